import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { once } from 'node:events';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.ts';
import { ADMIN_TOKEN } from '../helpers/test-credentials.ts';
import { seedDataDir } from '../helpers/migrated-snapshot.ts';
import { useTempDataDirs } from '../helpers/temp-dirs.ts';
import { pagewatchArgs } from '../helpers/pagewatch-bin.ts';

// Ctrl-C in a terminal sends SIGINT to the whole process group, Chromium
// included. After a browser-mode load, pagewatch's own drain must still run
// and release the data directory; Playwright's signal handlers must not exit
// the process first.

const dataDirs = useTempDataDirs('pw-signals-');
let site: FixtureServer;
after(() => site?.close());

function serve(dataDir: string): { child: ChildProcess; output: () => string } {
  let output = '';
  // Its own process group, as a shell gives a foreground job, so the signal can go to the group.
  const child = spawn(process.execPath, pagewatchArgs(['serve']), {
    env: {
      ...process.env,
      PORT: '0',
      PAGEWATCH_DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      DATABASE_URL: '',
      PAGEWATCH_ADMIN_TOKEN: ADMIN_TOKEN,
      PAGEWATCH_ALLOW_PRIVATE_NETWORKS: '127.0.0.0/8',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  return { child, output: () => output };
}

async function browserPreview(base: string): Promise<void> {
  const admin = { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' };
  const account = await (
    await fetch(`${base}/admin/v1/accounts`, {
      method: 'POST',
      headers: admin,
      body: JSON.stringify({ email: 'sig@example.com', plan: 'pro' }),
    })
  ).json();
  const token = await (
    await fetch(`${base}/admin/v1/accounts/${account.data.id}/tokens`, {
      method: 'POST',
      headers: admin,
      body: JSON.stringify({ name: 'sig', scopes: ['monitors:write'], expires_in_days: 1 }),
    })
  ).json();
  const preview = await fetch(`${base}/api/v1/previews`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token.data.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ url: `${site.url}/shop/espresso.html`, load_mode: 'browser' }),
  });
  assert.equal(preview.status, 201, await preview.text());
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  test(`${signal} to the process group after a browser load drains and releases the data directory`, async () => {
    site ??= await startFixtureServer();
    const dataDir = seedDataDir(dataDirs());
    const server = serve(dataDir);
    after(() => {
      if (server.child.exitCode === null) process.kill(-server.child.pid!, 'SIGKILL');
    });
    const deadline = Date.now() + 30_000;
    while (!/listening on http:\/\/127\.0\.0\.1:\d+/.test(server.output())) {
      assert.ok(Date.now() < deadline && server.child.exitCode === null, server.output());
      await new Promise((r) => setTimeout(r, 50));
    }
    const port = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(server.output())![1];
    await browserPreview(`http://127.0.0.1:${port}`);
    assert.ok(existsSync(`${dataDir}.lock`));

    process.kill(-server.child.pid!, signal);
    const [code] = await once(server.child, 'exit');
    assert.equal(code, 0, server.output());
    assert.ok(!existsSync(`${dataDir}.lock`), 'the lock is released by the drain');
  });
}
