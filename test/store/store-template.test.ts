import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { migrate } from '../../src/store/migrate.ts';
import { openDatabase } from '../../src/store/open-database.ts';
import { tarEntries, unpackStoreTemplate } from '../../src/store/store-template.ts';
import { migratedStoreDump } from '../helpers/migrated-snapshot.ts';
import { useTempDataDirs } from '../helpers/temp-dirs.ts';

// A new embedded store is unpacked from the build's template (a data directory
// as PGlite's dumpDataDir writes it) on the main thread, not by a PGlite thread.

const dataDirs = useTempDataDirs('pw-template-test-');

let migratedDump: Promise<Uint8Array> | undefined;
/** A migrated store's dump (the run's snapshot where there is one), got once for the file's tests, read only. */
function dumpOfMigratedStore(): Promise<Uint8Array> {
  migratedDump ??= migratedStoreDump(dataDirs());
  return migratedDump;
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
  // a file of two chunks and a half (the run's lean snapshot has none larger than one), then a store's dump
  const large = Uint8Array.from({ length: 2.5 * (1 << 20) }, (_, i) => (i * 31) % 251);
  const template = Buffer.concat([tarFile('/large', large), await dumpOfMigratedStore()]);
  const dir = dataDirs();
  mkdirSync(dir);
  const file = join(dir, 'template.tar');
  writeFileSync(file, template);
  const fromFile = dataDirs();
  unpackStoreTemplate(pathToFileURL(file), fromFile);
  const files = tarEntries(template).filter((entry) => entry.kind === 'file');
  assert.ok(files.length > 1);
  for (const entry of files) assert.deepEqual(readFileSync(join(fromFile, entry.path)), Buffer.from(entry.content), entry.path);
});

function tarHeader(name: string, type: string, size = 0): Uint8Array {
  const header = new Uint8Array(512);
  header.set(new TextEncoder().encode(name), 0);
  header.set(new TextEncoder().encode(size.toString(8).padStart(11, '0')), 124);
  header[156] = type.charCodeAt(0);
  return header;
}

/** A tar entry of a file holding `content`, padded to whole blocks. */
function tarFile(name: string, content: Uint8Array): Uint8Array {
  const entry = new Uint8Array(512 + Math.ceil(content.length / 512) * 512);
  entry.set(tarHeader(name, '0', content.length), 0);
  entry.set(content, 512);
  return entry;
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
