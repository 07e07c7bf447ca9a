// test-lane: waits (pagewatch processes it starts and kills)
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.ts';
import { baseEnv, createAccountVia, ProcessGroup, waitUntil, type PagewatchProcess } from '../helpers/pagewatch-process.ts';
import { useTempDataDirs } from '../helpers/temp-dirs.ts';
import { pagewatchArgs } from '../helpers/pagewatch-bin.ts';

// kill -9 of `pagewatch backup` in the middle of its copy of a running
// server's store: the destination holds nothing `pagewatch restore` takes as
// a whole backup, and the store it copied from serves as before.

// Creating a store (initdb) is slow on a busy machine.
const START_MS = 180_000;
const group = new ProcessGroup();
const newDataDir = useTempDataDirs('pw-backup-crash-');
let site: FixtureServer;
let dataDir: string;
let server: PagewatchProcess;
let token: string;
let monitorId: string;

before(async () => {
  site = await startFixtureServer();
  site.route('/kept.html', (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<html><body><h1 id="title">Kept</h1></body></html>');
  });
  dataDir = newDataDir();
  server = await group.start('serve', 'server', baseEnv({ PAGEWATCH_DATA_DIR: dataDir }), START_MS);
  ({ token } = await createAccountVia(server.url, { email: 'backup-crash@example.com', tokenName: 'backup-crash' }));
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const preview = await fetch(`${server.url}/api/v1/previews`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ url: `${site.url}/kept.html`, load_mode: 'html' }),
  });
  assert.equal(preview.status, 201);
  const created = await fetch(`${server.url}/api/v1/monitors`, {
    method: 'POST',
    headers: { ...headers, 'idempotency-key': 'backup-crash-monitor' },
    body: JSON.stringify({
      preview_id: (await preview.json()).data.id,
      targets: [{ id: 'title', label: 'Title', kind: 'text', selection: { scope: 'selector', selector: '#title' }, rule: 'changed' }],
      interval_minutes: 60,
    }),
  });
  assert.equal(created.status, 201);
  monitorId = (await created.json()).data.id;
});

after(async () => {
  await group.killAll();
  await site.close();
});

/** `pagewatch ARGS` in a process group of its own, so a test can kill it whole. */
function startCli(args: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, pagewatchArgs(args), { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise<{ code: number | null; stderr: string }>((resolve) => child.once('exit', (code) => resolve({ code, stderr })));
  return { child, exited };
}

const run = (args: string[], env: Record<string, string>) => startCli(args, env).exited;

/**
 * Stands between `pagewatch backup` and the server: passes the server's
 * answer on but keeps back its last kilobyte, so the command is held in the
 * middle of its copy for as long as the test needs.
 */
async function startHoldingProxy(upstream: string): Promise<{ url: string; holding: () => boolean; close: () => Promise<void> }> {
  let holding = false;
  const proxy: Server = createServer((req, res) => {
    const forward = request(`${upstream}${req.url}`, { method: req.method, headers: req.headers }, (answer) => {
      const chunks: Buffer[] = [];
      answer.on('data', (chunk: Buffer) => chunks.push(chunk));
      answer.on('end', () => {
        const body = Buffer.concat(chunks);
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        res.write(body.subarray(0, Math.max(0, body.length - 1024)));
        holding = true;
      });
    });
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
    holding: () => holding,
    close: () => new Promise<void>((resolve) => proxy.close(() => resolve())),
  };
}

test('a backup killed with -9 mid-copy leaves nothing at its destination that restore takes as a whole backup', async () => {
  const proxy = await startHoldingProxy(server.url);
  const file = join(dirname(dataDir), 'killed.pwbackup');
  const backup = startCli(['backup', file], baseEnv({ PAGEWATCH_DATA_DIR: dataDir, PAGEWATCH_URL: proxy.url }));
  await waitUntil('the backup in the middle of its copy', proxy.holding, 60_000);
  process.kill(-backup.child.pid!, 'SIGKILL');
  await backup.exited;
  await proxy.close();

  assert.equal(existsSync(file), false, 'no file under the backup name');
  const left = readdirSync(dirname(file)).filter((name) => name.startsWith('killed.pwbackup'));
  for (const name of left) {
    const restored = await run(['restore', join(dirname(file), name)], baseEnv({ PAGEWATCH_DATA_DIR: newDataDir() }));
    assert.equal(restored.code, 1, `restore refuses ${name}`);
    assert.match(restored.stderr, /cut short|does not match its checksum|not a pagewatch backup file/);
  }
});

test('the store a killed backup copied from serves its monitors and takes writes as before', async () => {
  const headers = { authorization: `Bearer ${token}` };
  const monitor = await fetch(`${server.url}/api/v1/monitors/${monitorId}`, { headers });
  assert.equal(monitor.status, 200);
  assert.equal((await monitor.json()).data.url, `${site.url}/kept.html`);
  const paused = await fetch(`${server.url}/api/v1/monitors/${monitorId}`, {
    method: 'PATCH',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({ status: 'paused' }),
  });
  assert.equal(paused.status, 200, await paused.clone().text());
});

test('a backup that finds the FILE.partial a killed backup left refuses, naming it, and leaves it alone', async () => {
  const whole = join(dirname(dataDir), 'whole.pwbackup');
  const env = baseEnv({ PAGEWATCH_DATA_DIR: dataDir, PAGEWATCH_URL: server.url });
  assert.equal((await run(['backup', whole], env)).code, 0);
  // What a backup killed in the middle of writing FILE.partial leaves: the file's first half.
  const file = join(dirname(dataDir), 'interrupted.pwbackup');
  const cut = readFileSync(whole).subarray(0, 4096);
  writeFileSync(`${file}.partial`, cut);

  const again = await run(['backup', file], env);
  assert.equal(again.code, 1);
  assert.match(again.stderr, /^pagewatch: .*interrupted\.pwbackup\.partial exists: .*remove it/m);
  assert.deepEqual(readFileSync(`${file}.partial`), cut);
  assert.equal(existsSync(file), false);
  const restored = await run(['restore', `${file}.partial`], baseEnv({ PAGEWATCH_DATA_DIR: newDataDir() }));
  assert.equal(restored.code, 1);
  assert.match(restored.stderr, /cut short or added to/);
});
