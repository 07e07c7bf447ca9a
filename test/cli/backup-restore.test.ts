// test-lane: waits (pagewatch processes it starts: serve, backup, restore)
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { openDatabase } from '../../src/store/open-database.ts';
import { readBackupHeader } from '../../src/store/backup-file.ts';
import { listMigrations } from '../../src/store/migrate.ts';
import { baseEnv, ProcessGroup, type PagewatchProcess } from '../helpers/pagewatch-process.ts';
import { ADMIN_TOKEN } from '../helpers/test-credentials.ts';
import { useMigratedDataDirs } from '../helpers/migrated-snapshot.ts';
import { useTempDataDirs } from '../helpers/temp-dirs.ts';
import { pagewatchArgs } from '../helpers/pagewatch-bin.ts';

// `pagewatch backup FILE` / `pagewatch restore FILE` on the embedded store, as
// an operator runs them: real pagewatch processes on a data directory.

const group = new ProcessGroup();
after(() => group.killAll());
const newDataDir = useTempDataDirs('pw-backup-');
const newStoreDir = useMigratedDataDirs('pw-backup-store-');

function run(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, pagewatchArgs(args), { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, stdout, stderr })));
}

async function createAccount(server: PagewatchProcess, email: string): Promise<string> {
  const res = await fetch(`${server.url}/admin/v1/accounts`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ email, plan: 'pro' }),
  });
  assert.equal(res.status, 201, await res.clone().text());
  return ((await res.json()) as { data: { id: string } }).data.id;
}

async function accountIds(dataDir: string): Promise<Set<string>> {
  const db = await openDatabase({ databaseUrl: null, dataDir });
  try {
    return new Set((await db.query<{ id: string }>('SELECT id FROM accounts')).map((r) => r.id));
  } finally {
    await db.close();
  }
}

// The file shares one server, on a migrated store, stopped by the last test.
const START_MS = 180_000;
let dataDir: string;
let server: PagewatchProcess;
let runningBackup: string;
before(async () => {
  dataDir = newStoreDir();
  server = await group.start('serve', 'server', baseEnv({ PAGEWATCH_DATA_DIR: dataDir }), START_MS);
});

/** A copy of the backup taken while the server ran, to spoil. */
function copyOfBackup(name: string): string {
  const file = join(dirname(dataDir), name);
  writeFileSync(file, readFileSync(runningBackup));
  return file;
}

test('a backup taken while the server takes writes holds every write acknowledged before it started, and restores to a store that passes the consistency check', async () => {
  const acknowledged: string[] = [];
  let writing = true;
  const writer = (async () => {
    for (let i = 0; writing; i++) acknowledged.push(await createAccount(server, `loop-${i}@example.com`));
  })();
  while (acknowledged.length < 20) await new Promise((r) => setTimeout(r, 20));
  const beforeBackup = [...acknowledged];
  const file = join(dirname(dataDir), 'running.pwbackup');
  runningBackup = file;
  const backup = await run(['backup', file], baseEnv({ PAGEWATCH_DATA_DIR: dataDir, PAGEWATCH_URL: server.url }));
  const duringBackup = acknowledged.length - beforeBackup.length;
  writing = false;
  await writer;
  assert.equal(backup.code, 0, backup.stderr);
  assert.match(backup.stdout, /^backup written to .*: \d+ bytes, schema \d{3}_\w+\.sql; the store was held still for \d+ ms\n$/);
  assert.ok(duringBackup > 0, 'the server kept answering writes while the backup was taken');

  const restoredDir = newDataDir();
  const restored = await run(['restore', file], baseEnv({ PAGEWATCH_DATA_DIR: restoredDir }));
  assert.equal(restored.code, 0, restored.stderr);
  assert.match(restored.stdout, /^ {2}accounts: \d+$/m);
  assert.match(restored.stdout, /^consistency: every foreign key holds, every monitor has its check state$/m);
  const ids = await accountIds(restoredDir);
  assert.deepEqual(
    beforeBackup.filter((id) => !ids.has(id)),
    [],
  );
});

test('restore refuses a data directory that is not empty, and leaves it as it was', async () => {
  const target = newDataDir();
  mkdirSync(target, { recursive: true });
  writeFileSync(join(target, 'notes.txt'), 'mine');
  const res = await run(['restore', runningBackup], baseEnv({ PAGEWATCH_DATA_DIR: target }));
  assert.equal(res.code, 1);
  assert.match(res.stderr, /is not empty: restore writes into an empty data directory only/);
  assert.deepEqual(readdirSync(target), ['notes.txt']);
});

test('restore refuses a backup from a newer schema before writing anything', async () => {
  const file = copyOfBackup('newer.pwbackup');
  const bytes = readFileSync(file);
  const { header, payloadStart } = readBackupHeader(bytes);
  const newer = { ...header, migrations: [...header.migrations, '999_from_the_future.sql'] };
  const lines = Buffer.from(`PAGEWATCH-BACKUP\n${JSON.stringify(newer)}\n`);
  writeFileSync(file, Buffer.concat([lines, bytes.subarray(payloadStart)]));
  const target = newDataDir();
  const res = await run(['restore', file], baseEnv({ PAGEWATCH_DATA_DIR: target }));
  assert.equal(res.code, 1);
  assert.match(res.stderr, /newer pagewatch \(its schema has 999_from_the_future\.sql/);
  assert.equal(existsSync(target), false);
});

test('restore refuses a damaged backup (checksum) and one cut short, before writing anything', async () => {
  const bytes = readFileSync(runningBackup);
  const damaged = Buffer.from(bytes);
  damaged[damaged.length - 100] = damaged[damaged.length - 100]! ^ 0xff;
  const spoiled = [
    [damaged, /does not match its checksum/],
    [bytes.subarray(0, bytes.length - 10), /cut short or added to/],
    [Buffer.from('PK\u0003\u0004 not a backup'), /not a pagewatch backup file/],
  ] as const;
  // One file and one target per spoiled backup, so the restores can run side by side.
  await Promise.all(
    spoiled.map(async ([content, reason], i) => {
      const file = join(dirname(dataDir), `damaged-${i}.pwbackup`);
      writeFileSync(file, content);
      const target = newDataDir();
      const res = await run(['restore', file], baseEnv({ PAGEWATCH_DATA_DIR: target }));
      assert.equal(res.code, 1);
      assert.match(res.stderr, reason);
      assert.equal(existsSync(target), false);
    }),
  );
});

test('a backup of a running server needs the operator token, and is never written over a file', async () => {
  const file = join(dirname(dataDir), 'nope.pwbackup');
  const env = baseEnv({ PAGEWATCH_DATA_DIR: dataDir, PAGEWATCH_URL: server.url });
  delete env.PAGEWATCH_ADMIN_TOKEN;
  const res = await run(['backup', file], env);
  assert.equal(res.code, 1);
  assert.match(res.stderr, /a running server holds .*: set PAGEWATCH_ADMIN_TOKEN/);
  assert.equal(existsSync(file), false);
  writeFileSync(file, 'keep me');
  const over = await run(['backup', file], baseEnv({ PAGEWATCH_DATA_DIR: dataDir, PAGEWATCH_URL: server.url }));
  assert.equal(over.code, 1);
  assert.match(over.stderr, /exists: a backup is never written over a file/);
  assert.equal(readFileSync(file, 'utf8'), 'keep me');
});

test('a stopped store is backed up without a server, at its schema, and its restore serves as the original did', async () => {
  server.signalGroup('SIGTERM');
  assert.equal(await server.exited, 0);
  const file = join(dirname(dataDir), 'stopped.pwbackup');
  const made = await run(['backup', file], baseEnv({ PAGEWATCH_DATA_DIR: dataDir }));
  assert.equal(made.code, 0, made.stderr);
  assert.deepEqual(
    readBackupHeader(readFileSync(file)).header.migrations,
    listMigrations().map((m) => m.name),
  );
  const restoredDir = newDataDir();
  assert.equal((await run(['restore', file], baseEnv({ PAGEWATCH_DATA_DIR: restoredDir }))).code, 0);
  const restored = await group.start('serve', 'restored', baseEnv({ PAGEWATCH_DATA_DIR: restoredDir }), START_MS);
  const original = await accountIds(dataDir);
  const res = await fetch(`${restored.url}/admin/v1/accounts?limit=100`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  assert.equal(res.status, 200);
  const listed = ((await res.json()) as { data: { id: string }[] }).data.map((a) => a.id);
  assert.ok(listed.length > 0 && listed.every((id) => original.has(id)));
  restored.signalGroup('SIGTERM');
  await restored.exited;
  assert.deepEqual(await accountIds(restoredDir), original);
});
