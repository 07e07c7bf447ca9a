import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { gunzip, gzip } from 'node:zlib';

// A backup of the embedded store: one line naming the format, one line of
// JSON describing the copy (its schema and the payload's SHA-256), then the
// payload, PGlite's data directory as a gzipped tarball. Everything in the
// header is checked before a byte of the payload is used.

const MAGIC = 'PAGEWATCH-BACKUP';
const FORMAT = 1;
// A header is a few kilobytes (one name per migration); anything longer is not one.
const MAX_HEADER_BYTES = 64 * 1024;

export interface BackupHeader {
  format: number;
  created_at: string;
  /** the migrations the store had applied, oldest first: its schema */
  migrations: string[];
  payload_bytes: number;
  payload_sha256: string;
  /** how long the running store was held still for the copy */
  held_ms: number;
}

/** A file that is not a usable backup: the reason is for the operator. */
export class BackupFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BackupFileError';
  }
}

export interface BackupContents {
  tarball: Uint8Array<ArrayBuffer>;
  migrations: string[];
  heldMs: number;
  createdAt: Date;
}

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

export async function encodeBackup(contents: BackupContents): Promise<Buffer> {
  const payload = await promisify(gzip)(contents.tarball);
  const header: BackupHeader = {
    format: FORMAT,
    created_at: contents.createdAt.toISOString(),
    migrations: contents.migrations,
    payload_bytes: payload.length,
    payload_sha256: sha256(payload),
    held_ms: Math.round(contents.heldMs),
  };
  return Buffer.concat([Buffer.from(`${MAGIC}\n${JSON.stringify(header)}\n`), payload]);
}

/** The header alone, checked for shape, and where the payload starts. */
export function readBackupHeader(file: Buffer): { header: BackupHeader; payloadStart: number } {
  const firstBreak = file.indexOf(0x0a);
  if (firstBreak < 0 || file.subarray(0, firstBreak).toString() !== MAGIC) throw new BackupFileError('not a pagewatch backup file');
  const secondBreak = file.indexOf(0x0a, firstBreak + 1);
  if (secondBreak < 0 || secondBreak - firstBreak > MAX_HEADER_BYTES) throw new BackupFileError('the backup header is cut short');
  let header: BackupHeader;
  try {
    header = JSON.parse(file.subarray(firstBreak + 1, secondBreak).toString()) as BackupHeader;
  } catch {
    throw new BackupFileError('the backup header is not readable');
  }
  if (header.format !== FORMAT)
    throw new BackupFileError(`backup format ${String(header.format)} is not one this version reads (${FORMAT})`);
  const valid =
    Array.isArray(header.migrations) &&
    header.migrations.every((m) => typeof m === 'string') &&
    Number.isSafeInteger(header.payload_bytes) &&
    typeof header.payload_sha256 === 'string';
  if (!valid) throw new BackupFileError('the backup header is incomplete');
  return { header, payloadStart: secondBreak + 1 };
}

/** The data directory's tarball, once the payload's length and checksum match the header. */
export async function decodeBackup(file: Buffer): Promise<{ header: BackupHeader; tarball: Uint8Array<ArrayBuffer> }> {
  const { header, payloadStart } = readBackupHeader(file);
  const payload = file.subarray(payloadStart);
  if (payload.length !== header.payload_bytes) {
    throw new BackupFileError(
      `the backup is ${payload.length} bytes long where its header says ${header.payload_bytes}: cut short or added to`,
    );
  }
  if (sha256(payload) !== header.payload_sha256) throw new BackupFileError('the backup does not match its checksum: it is damaged');
  const tarball = await promisify(gunzip)(payload);
  return { header, tarball: new Uint8Array(tarball.buffer, tarball.byteOffset, tarball.length) };
}
