import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { migrate } from '../../src/store/migrate.ts';
import { openDatabase } from '../../src/store/open-database.ts';
import { tarEntries, unpackStoreTemplate } from '../../src/store/store-template.ts';
import { useTempDataDirs } from '../helpers/temp-dirs.ts';

// A new embedded store is unpacked from the build's template (a data directory
// as PGlite's dumpDataDir writes it) on the main thread, not by a PGlite thread.

const dataDirs = useTempDataDirs('pw-template-test-');

let migratedDump: Promise<Uint8Array> | undefined;
/** A migrated store's dump, made once for the file's tests (each costs a store's start and a PGlite's), read only. */
function dumpOfMigratedStore(): Promise<Uint8Array> {
  migratedDump ??= makeDump();
  return migratedDump;
}

async function makeDump(): Promise<Uint8Array> {
  const dataDir = dataDirs();
  await (await openDatabase({ databaseUrl: null, dataDir })).close();
  const pg = new PGlite(dataDir);
  await pg.waitReady;
  const dump = new Uint8Array(await (await pg.dumpDataDir('none')).arrayBuffer());
  await pg.close();
  return dump;
}

test('a data directory unpacked from a dump opens as the store it was, migrated', async () => {
  const target = dataDirs();
  unpackStoreTemplate(await dumpOfMigratedStore(), target);
  assert.ok(existsSync(join(target, 'PG_VERSION')));
  const db = await openDatabase({ databaseUrl: null, dataDir: target, migrate: false });
  try {
    assert.deepEqual(await migrate(db), [], 'already migrated');
    assert.deepEqual(await db.query('SELECT open FROM api_status'), [{ open: true }]);
  } finally {
    await db.close();
  }
});

test('a template read from its file a chunk at a time unpacks to the same files as one read whole', async () => {
  const dump = await dumpOfMigratedStore();
  const dir = dataDirs();
  mkdirSync(dir);
  const file = join(dir, 'template.tar');
  writeFileSync(file, dump);
  const fromFile = dataDirs();
  unpackStoreTemplate(pathToFileURL(file), fromFile);
  const files = tarEntries(dump).filter((entry) => entry.kind === 'file');
  assert.ok(
    files.some((entry) => entry.content.length > 1 << 20),
    'a file larger than a chunk',
  );
  for (const entry of files) assert.deepEqual(readFileSync(join(fromFile, entry.path)), Buffer.from(entry.content), entry.path);
});

function tarHeader(name: string, type: string): Uint8Array {
  const header = new Uint8Array(512);
  header.set(new TextEncoder().encode(name), 0);
  header.set(new TextEncoder().encode('00000000000'), 124);
  header[156] = type.charCodeAt(0);
  return header;
}

test('a template entry naming a path outside the data directory is refused', () => {
  const tar = new Uint8Array(2048);
  tar.set(tarHeader('/base/../../escape', '0'), 0);
  assert.throws(() => tarEntries(tar), /outside its directory/);
});

test('a template entry that is neither a file nor a directory is refused', () => {
  const tar = new Uint8Array(2048);
  tar.set(tarHeader('/pg_link', '2'), 0);
  const target = dataDirs();
  mkdirSync(target, { recursive: true });
  assert.throws(() => unpackStoreTemplate(tar, target), /tar type "2"/);
});
