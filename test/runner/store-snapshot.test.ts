import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { tarEntries } from '../../src/store/store-template.ts';
import { openDatabase } from '../../src/store/open-database.ts';
import { migratedSnapshot } from '../helpers/migrated-snapshot.ts';
import { writeStoreSnapshot } from '../helpers/snapshot-file.ts';
import { useTempDataDirs } from '../helpers/temp-dirs.ts';

// Every in-memory test store starts from one lean snapshot (test/helpers/snapshot-file.ts):
// without the template databases and the WAL's unwritten tail, which only made each store's start dearer.

const WAL_SEGMENT_BYTES = 16 * 1024 * 1024;
const newDir = useTempDataDirs('pw-snapshot-test-');
let snapshot: Uint8Array<ArrayBuffer>;

before(async () => {
  const run = migratedSnapshot();
  if (run) {
    snapshot = run;
    return;
  }
  const out = `${newDir()}.tar`;
  await writeStoreSnapshot(out, async (dataDir) => (await openDatabase({ databaseUrl: null, dataDir })).close());
  snapshot = new Uint8Array(readFileSync(out));
});

const stores: { close(): Promise<void> }[] = [];
after(async () => {
  for (const store of stores) await store.close();
});

async function storeFrom(start: Uint8Array<ArrayBuffer>) {
  const db = await openDatabase({ databaseUrl: null, dataDir: null, snapshot: start });
  stores.push(db);
  return db;
}

test('the test stores snapshot holds one database and one short WAL segment', () => {
  const entries = tarEntries(snapshot);
  const databases = entries.filter((e) => e.kind === 'directory' && /^base\/\d+$/.test(e.path));
  assert.equal(databases.length, 1, databases.map((d) => d.path).join(', '));
  const segments = entries.filter((e) => e.kind === 'file' && /^pg_wal\/[0-9A-F]{24}$/.test(e.path));
  assert.equal(segments.length, 1);
  assert.ok(segments[0]!.content.length < WAL_SEGMENT_BYTES / 16, `${segments[0]!.content.length} bytes of WAL`);
});

test('a store started from the snapshot keeps what it wrote past a WAL segment through a dump and a new start', async () => {
  const db = await storeFrom(snapshot);
  const segmentNow = async () => (await db.query<{ name: string }>('SELECT pg_walfile_name(pg_current_wal_lsn()) AS name'))[0]!.name;
  const first = await segmentNow();
  await db.query('CREATE TABLE snapshot_probe (n int PRIMARY KEY, filler text NOT NULL)');
  // more WAL than one segment holds: the server goes on past the short segment's end, and into a new one
  await db.query(`INSERT INTO snapshot_probe SELECT n, repeat(md5(n::text), 8) FROM generate_series(1, 60000) n`);
  assert.notEqual(await segmentNow(), first);
  const dump = await db.dumpDataDir!();
  const again = await storeFrom(dump.tarball);
  const [row] = await again.query<{ rows: number }>('SELECT count(*)::int AS rows FROM snapshot_probe');
  assert.equal(row!.rows, 60000);
  const [account] = await again.query<{ n: number }>('SELECT count(*)::int AS n FROM accounts');
  assert.equal(account!.n, 0);
});
