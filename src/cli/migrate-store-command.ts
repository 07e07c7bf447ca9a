import { parseArgs } from 'node:util';
import type { Config } from '../config.ts';
import { copyStore, StoreCopyError } from '../store/copy-store.ts';
import { DataDirLockedError } from '../store/data-dir-lock.ts';
import { openDatabase } from '../store/open-database.ts';
import { MigrationMismatchError } from '../store/migrate.ts';

// `pagewatch migrate-store --to URL` (docs/operations.md, Moving to PostgreSQL):
// the embedded store in PAGEWATCH_DATA_DIR, stopped, copied into an empty
// PostgreSQL database and compared with it table by table.

const USAGE = `usage: pagewatch migrate-store --to postgres://…
Copies the embedded store (PAGEWATCH_DATA_DIR; stop the server first) into an empty PostgreSQL database,
then compares every table's row count and checksum. Afterwards run with DATABASE_URL set to that database.`;

export async function migrateStoreCommand(args: string[], config: Config): Promise<number> {
  let to: string | undefined;
  try {
    to = parseArgs({ args, options: { to: { type: 'string' } } }).values.to;
  } catch (err) {
    console.error(`${(err as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (!to || !/^postgres(ql)?:\/\//.test(to)) {
    console.error(USAGE);
    return 2;
  }
  try {
    // Opening the embedded store locks it (a running server refuses the copy) and brings its schema up to date.
    const source = await openDatabase({ databaseUrl: null, dataDir: config.dataDir });
    try {
      const target = await openDatabase({ databaseUrl: to, dataDir: null, migrate: false });
      try {
        const report = await copyStore(source, target, (table) => console.log(`copying ${table}`));
        const lines = Object.entries(report.tables).map(([table, f]) => `  ${table}: ${f.rows} rows, checksum ${f.checksum}`);
        console.log(
          ['copied and compared, every table equal:', ...lines, `sequences: ${Object.keys(report.sequences).length} set`].join('\n'),
        );
        console.log('next: set DATABASE_URL to that database and start pagewatch serve, or pagewatch api + pagewatch worker');
        return 0;
      } finally {
        await target.close();
      }
    } finally {
      await source.close();
    }
  } catch (err) {
    if (err instanceof StoreCopyError || err instanceof DataDirLockedError || err instanceof MigrationMismatchError) {
      console.error(`pagewatch migrate-store: ${err.message}`);
      return 1;
    }
    throw err;
  }
}
