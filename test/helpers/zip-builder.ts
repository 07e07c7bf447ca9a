import { crc32, deflateRawSync } from 'node:zlib';

// ZIP archives made in the tests, as changedetection.io's backup writes them
// (deflated entries, a central directory), and hostile ones: every field can
// be set to lie.

export interface ZipEntrySpec {
  name: string;
  content: Buffer | string;
  /** store instead of deflate */
  stored?: boolean;
  /** the uncompressed size the archive claims (default: the true one) */
  claimedSize?: number;
  encrypted?: boolean;
}

export function buildZip(specs: ZipEntrySpec[]): Buffer {
  const locals: Buffer[] = [];
  const directory: Buffer[] = [];
  let offset = 0;
  for (const spec of specs) {
    const raw = Buffer.isBuffer(spec.content) ? spec.content : Buffer.from(spec.content);
    const data = spec.stored ? raw : deflateRawSync(raw);
    const name = Buffer.from(spec.name);
    const flags = spec.encrypted ? 1 : 0;
    const method = spec.stored ? 0 : 8;
    const size = spec.claimedSize ?? raw.length;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(flags, 6);
    local.writeUInt16LE(method, 8);
    local.writeUInt32LE(crc32(raw), 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(flags, 8);
    central.writeUInt16LE(method, 10);
    central.writeUInt32LE(crc32(raw), 16);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(size, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, data);
    directory.push(central, name);
    offset += local.length + name.length + data.length;
  }
  const dir = Buffer.concat(directory);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(specs.length, 8);
  end.writeUInt16LE(specs.length, 10);
  end.writeUInt32LE(dir.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, dir, end]);
}
