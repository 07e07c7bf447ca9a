import { draftsFromChangedetection } from './changedetection.ts';
import type { ImportPlan } from './monitor-draft.ts';
import { draftsFromUrlList } from './url-list.ts';
import { draftsFromExport, isMonitorExport } from './pagewatch-export.ts';
import { readZipFile, ZipArchiveError, type ZipLimits } from './zip-archive.ts';

// What an import file is, told by its content: a pagewatch export, a changedetection.io
// backup archive (ZIP), its url-watches.json alone, or a plain list of URLs.

export const IMPORT_LIMITS: ZipLimits & { maxMonitors: number } = {
  maxArchiveBytes: 50 * 1024 * 1024,
  maxEntries: 10_000,
  maxFileBytes: 20 * 1024 * 1024,
  maxMonitors: 5_000,
};

export class ImportSourceError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ImportSourceError';
  }
}

function parseJson(text: Buffer, what: string): unknown {
  try {
    return JSON.parse(text.toString('utf8'));
  } catch {
    throw new ImportSourceError(`${what} is not valid JSON`);
  }
}

export function readImportSource(file: Buffer, limits = IMPORT_LIMITS): ImportPlan {
  const planOf = (document: unknown) => {
    try {
      if (isMonitorExport(document)) return draftsFromExport(document, limits.maxMonitors);
      return draftsFromChangedetection(document, limits.maxMonitors);
    } catch (err) {
      throw new ImportSourceError((err as Error).message);
    }
  };
  if (
    file.subarray(0, 4).equals(Buffer.from([0x50, 0x4b, 0x03, 0x04])) ||
    file.subarray(0, 4).equals(Buffer.from([0x50, 0x4b, 0x05, 0x06]))
  ) {
    let watches: Buffer | null;
    try {
      watches = readZipFile(file, 'url-watches.json', limits);
    } catch (err) {
      if (err instanceof ZipArchiveError) throw new ImportSourceError(`the archive cannot be read: ${err.message}`);
      throw err;
    }
    if (!watches) throw new ImportSourceError('the archive has no url-watches.json: not a changedetection.io backup');
    return planOf(parseJson(watches, 'url-watches.json'));
  }
  if (file.length > limits.maxFileBytes) throw new ImportSourceError(`the file is larger than ${limits.maxFileBytes} bytes`);
  if (/^\s*\{/.test(file.subarray(0, 64).toString('utf8'))) return planOf(parseJson(file, 'the file'));
  return draftsFromUrlList(file.toString('utf8'), limits.maxMonitors);
}
