import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { baseEnv, createAccountVia, ProcessGroup, type PagewatchProcess } from '../helpers/pagewatch-process.ts';
import { seedDataDir } from '../helpers/migrated-snapshot.ts';
import { useTempDataDirs } from '../helpers/temp-dirs.ts';

// On the embedded store `pagewatch serve` counts API requests and read bytes in
// memory and writes them to the data directory every second, at shutdown and
// before GET /usage answers (src/services/request-counts-in-memory.ts). A clean
// stop loses nothing; a kill -9 loses at most what was not yet written.

const dataDir = useTempDataDirs('pw-counts-');
const group = new ProcessGroup();

after(() => group.killAll());

async function newAccount(node: PagewatchProcess): Promise<string> {
  return (await createAccountVia(node.url, { email: 'counts@example.com', tokenName: 'counts' })).token;
}

/** Makes `n` GET /api/v1/monitors requests one after the other; returns the body bytes served. */
async function reads(node: PagewatchProcess, token: string, n: number): Promise<number> {
  let bytes = 0;
  for (let i = 0; i < n; i++) {
    const res = await fetch(`${node.url}/api/v1/monitors`, { headers: { authorization: `Bearer ${token}` } });
    assert.equal(res.status, 200);
    bytes += Buffer.byteLength(await res.text());
  }
  return bytes;
}

async function usage(node: PagewatchProcess, token: string): Promise<{ requests: number; readBytes: number; minuteRemaining: number }> {
  const res = await fetch(`${node.url}/api/v1/usage`, { headers: { authorization: `Bearer ${token}` } });
  assert.equal(res.status, 200);
  const { api } = (await res.json()).data;
  // Without this request itself, which the counts include.
  const minuteRemaining = Number(res.headers.get('x-ratelimit-remaining')) + 1;
  return { requests: api.day.used - 1, readBytes: api.read_bytes.used, minuteRemaining };
}

test('request counts and read bytes survive a clean shutdown of serve on the embedded store', async () => {
  const env = baseEnv({ PAGEWATCH_DATA_DIR: seedDataDir(dataDir()) });
  const first = await group.start('serve', 'serve', env);
  const token = await newAccount(first);
  const bytes = await reads(first, token, 7);
  first.child.kill('SIGTERM');
  assert.equal(await first.exited, 0);

  const second = await group.start('serve', 'serve-again', env);
  assert.deepEqual(await usage(second, token), { requests: 7, readBytes: bytes, minuteRemaining: 60 - 7 });
  second.child.kill('SIGTERM');
  assert.equal(await second.exited, 0);
});

test('after kill -9 of serve on the embedded store at most the last second of counts is lost', async () => {
  const env = baseEnv({ PAGEWATCH_DATA_DIR: seedDataDir(dataDir()) });
  const first = await group.start('serve', 'serve', env);
  const token = await newAccount(first);
  const settledBytes = await reads(first, token, 10);
  // GET /usage writes what waits to be written before it answers: these ten, and the usage request itself, are in the store.
  const flushing = await fetch(`${first.url}/api/v1/usage`, { headers: { authorization: `Bearer ${token}` } });
  assert.equal(flushing.status, 200);
  const usageBytes = Buffer.byteLength(await flushing.text());
  const lateBytes = await reads(first, token, 10);
  first.child.kill('SIGKILL');
  await first.exited;

  const second = await group.start('serve', 'serve-again', env);
  const counts = await usage(second, token);
  assert.ok(counts.requests >= 11 && counts.requests <= 21, `${counts.requests} requests counted`);
  assert.ok(
    counts.readBytes >= settledBytes && counts.readBytes <= settledBytes + usageBytes + lateBytes,
    `${counts.readBytes} bytes counted`,
  );
  second.child.kill('SIGTERM');
  assert.equal(await second.exited, 0);
});
