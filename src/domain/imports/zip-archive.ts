import { inflateRawSync } from 'node:zlib';

// One named file read out of a ZIP archive held in memory: nothing is ever
// written to disk, so an entry's name is only compared, never used as a path
// (no zip-slip), and the archive's size, its number of entries and the file's
// inflated size are bounded before and while it is read (no zip bomb).

export interface ZipLimits {
  /** the archive itself */
  maxArchiveBytes: number;
  /** entries in its central directory */
  maxEntries: number;
  /** the wanted file once inflated, whatever the archive claims */
  maxFileBytes: number;
}

export class ZipArchiveError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ZipArchiveError';
  }
}

const END_OF_DIRECTORY = 0x06054b50;
const DIRECTORY_ENTRY = 0x02014b50;
const LOCAL_HEADER = 0x04034b50;
const STORED = 0;
const DEFLATED = 8;

function endOfDirectory(zip: Buffer): number {
  // The record is 22 bytes plus a comment of at most 65,535.
  for (let at = zip.length - 22; at >= Math.max(0, zip.length - 22 - 0xffff); at--) {
    if (zip.readUInt32LE(at) === END_OF_DIRECTORY) return at;
  }
  throw new ZipArchiveError('not a ZIP archive (no end of central directory)');
}

interface Entry {
  name: string;
  method: number;
  encrypted: boolean;
  compressedBytes: number;
  localHeader: number;
}

function* entries(zip: Buffer, limits: ZipLimits): Generator<Entry> {
  const end = endOfDirectory(zip);
  const count = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  if (count === 0xffff || at === 0xffffffff) throw new ZipArchiveError('ZIP64 archives are not read');
  if (count > limits.maxEntries) throw new ZipArchiveError(`the archive has ${count} entries, more than the ${limits.maxEntries} read`);
  for (let i = 0; i < count; i++) {
    if (at + 46 > zip.length || zip.readUInt32LE(at) !== DIRECTORY_ENTRY) throw new ZipArchiveError('the central directory is damaged');
    const nameBytes = zip.readUInt16LE(at + 28);
    const skip = nameBytes + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
    if (at + 46 + skip > zip.length) throw new ZipArchiveError('the central directory is damaged');
    yield {
      name: zip.toString('utf8', at + 46, at + 46 + nameBytes),
      method: zip.readUInt16LE(at + 10),
      encrypted: (zip.readUInt16LE(at + 8) & 1) === 1,
      compressedBytes: zip.readUInt32LE(at + 20),
      localHeader: zip.readUInt32LE(at + 42),
    };
    at += 46 + skip;
  }
}

function contents(zip: Buffer, entry: Entry, limits: ZipLimits): Buffer {
  if (entry.encrypted) throw new ZipArchiveError(`${entry.name} is encrypted`);
  const local = entry.localHeader;
  if (local + 30 > zip.length || zip.readUInt32LE(local) !== LOCAL_HEADER) throw new ZipArchiveError(`${entry.name}: damaged entry`);
  const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
  const data = zip.subarray(start, start + entry.compressedBytes);
  if (start + entry.compressedBytes > zip.length) throw new ZipArchiveError(`${entry.name}: the entry is cut short`);
  const tooLarge = () => new ZipArchiveError(`${entry.name} inflates to more than ${limits.maxFileBytes} bytes`);
  if (entry.method === STORED) {
    if (data.length > limits.maxFileBytes) throw tooLarge();
    return data;
  }
  if (entry.method !== DEFLATED) throw new ZipArchiveError(`${entry.name}: compression method ${entry.method} is not read`);
  try {
    // Bounded by what is produced, not by the size the archive declares.
    return inflateRawSync(data, { maxOutputLength: limits.maxFileBytes });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE' || err instanceof RangeError) throw tooLarge();
    throw new ZipArchiveError(`${entry.name}: ${(err as Error).message}`);
  }
}

/** The file named `name` at the archive's top level, or null when there is none. */
export function readZipFile(zip: Buffer, name: string, limits: ZipLimits): Buffer | null {
  if (zip.length > limits.maxArchiveBytes) throw new ZipArchiveError(`the archive is larger than ${limits.maxArchiveBytes} bytes`);
  for (const entry of entries(zip, limits)) if (entry.name === name) return contents(zip, entry, limits);
  return null;
}
