// test-lane: waits (pagewatch processes it starts and stops)
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { once } from 'node:events';
import { useMigratedDataDirs } from '../helpers/migrated-snapshot.ts';
import { pagewatchArgs } from '../helpers/pagewatch-bin.ts';

// `pagewatch serve` as an operator runs it: a real process on the embedded store.

const serveDir = useMigratedDataDirs('pw-serve-');

function serve(dataDir: string, port: number, logLevel = 'warn'): { child: ChildProcess; output: () => string } {
  let output = '';
  const child = spawn(process.execPath, pagewatchArgs(['serve']), {
    env: { ...process.env, PORT: String(port), PAGEWATCH_DATA_DIR: dataDir, LOG_LEVEL: logLevel, DATABASE_URL: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  return { child, output: () => output };
}

async function waitFor(child: ChildProcess, predicate: () => boolean, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!predicate()) {
    if (child.exitCode !== null) throw new Error(`the process exited early with ${child.exitCode}`);
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}

test('serve prints where it listens and how to create the first account, and stops cleanly on SIGTERM', async () => {
  const dataDir = serveDir();
  // Port 0: the system picks a free port, and the listening line names it.
  const server = serve(dataDir, 0);
  after(() => server.child.kill('SIGKILL'));
  // The first-run help follows the listening line once the store has been asked for accounts.
  await waitFor(server.child, () => server.output().includes('tokens create'));
  const port = Number(/listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(server.output())?.[1]);
  assert.ok(port > 0, server.output());
  assert.match(server.output(), /No accounts yet/);
  assert.match(server.output(), /accounts create/);
  const res = await fetch(`http://127.0.0.1:${port}/api/v1/openapi.json`);
  assert.equal(res.status, 200);

  const second = serve(dataDir, 0);
  const [code] = await once(second.child, 'exit');
  assert.equal(code, 1);
  assert.match(second.output(), /in use by process/);

  server.child.kill('SIGTERM');
  const [exitCode] = await once(server.child, 'exit');
  assert.equal(exitCode, 0);
  assert.ok(!existsSync(`${dataDir}.lock`), 'lock released');
});

test('each start-up line appears once, in the JSON log format', async () => {
  const server = serve(serveDir(), 0, 'info');
  after(() => server.child.kill('SIGKILL'));
  await waitFor(server.child, () => server.output().includes('tokens create'));
  server.child.kill('SIGTERM');
  await once(server.child, 'exit');
  const lines = server.output().split('\n').filter(Boolean);
  const messages = lines.map((line) => (JSON.parse(line) as { msg: string }).msg);
  assert.equal(messages.filter((m) => /listening/i.test(m)).length, 1, server.output());
  assert.match(
    messages.find((m) => /listening/i.test(m))!,
    /^pagewatch listening on http:\/\/127\.0\.0\.1:\d+ \(embedded store in /,
  );
  assert.equal(messages.filter((m) => /accounts/i.test(m)).length, 1, server.output());
});

test('a bad configuration value stops serve with a message naming the variable', async () => {
  const child = spawn(process.execPath, pagewatchArgs(['serve']), {
    env: { ...process.env, PORT: 'abc' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr.on('data', (d) => (err += d));
  const [code] = await once(child, 'exit');
  assert.equal(code, 1);
  assert.match(err, /PORT/);
});
