import { EmscriptenBuiltinFilesystem } from '@electric-sql/pglite/basefs';
import { tarEntries } from './store-template.ts';

// An in-memory store started from a data directory's tarball (PGlite's
// dumpDataDir output: every test store, and migrate-store's source). PGlite's
// own loadDataDir looked each file's every parent directory up again, through
// emscripten's path walks, before writing it: about a quarter of such a
// store's start (docs/decisions/0068-in-memory-stores-written-from-their-snapshot-directly.md).
// Here each directory is made once and each file written once, before the
// server starts: PGlite then finds PG_VERSION and opens the store as it is.

/** What of emscripten's file system is used here: PGlite's types name emscripten's own, which are not installed. */
interface Files {
  mkdirTree(path: string): void;
  writeFile(path: string, data: Uint8Array): void;
  quit(): void;
}

/** PGlite's in-memory file system (as PGlite makes it for a store without a data directory), filled from `tarball`. */
export class SnapshotFilesystem extends EmscriptenBuiltinFilesystem {
  constructor(private readonly tarball: Uint8Array) {
    super();
  }

  override async initialSyncFs(): Promise<void> {
    const { files, dataDir } = this.started();
    files.mkdirTree(dataDir);
    for (const entry of tarEntries(this.tarball)) {
      const path = `${dataDir}/${entry.path}`;
      if (entry.kind === 'directory') files.mkdirTree(path);
      else files.writeFile(path, entry.content);
    }
  }

  override async closeFs(): Promise<void> {
    this.started().files.quit();
  }

  /** The started module's files, and where its data directory is (PGDATA). */
  private started(): { files: Files; dataDir: string } {
    if (!this.pg) throw new Error('the file system is used before PGlite started it');
    const module = this.pg.Module as unknown as { FS: Files; ENV: { PGDATA: string } };
    return { files: module.FS, dataDir: module.ENV.PGDATA };
  }
}
