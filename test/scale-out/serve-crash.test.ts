// test-lane: waits (pagewatch processes it starts, kills and starts again)
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.ts';
import { gatedPages } from '../helpers/gated-page.ts';
import { baseEnv, createAccountVia, ProcessGroup, waitUntil, writePlansFile } from '../helpers/pagewatch-process.ts';
import { ADMIN_TOKEN } from '../helpers/test-credentials.ts';
import { useTempDataDirs } from '../helpers/temp-dirs.ts';

const crashDir = useTempDataDirs('pw-crash-');

// kill -9 of `pagewatch serve` on the embedded store while it acknowledges
// writes and holds a check mid-load; then a restart on the same directory.

const group = new ProcessGroup();
let site: FixtureServer;

before(async () => {
  site = await startFixtureServer();
});

after(async () => {
  await group.killAll();
  await site.close();
});

test('serve killed with -9 during writes: after a restart every acknowledged write is there and the interrupted check completes', async () => {
  const env = baseEnv({
    PAGEWATCH_DATA_DIR: crashDir(),
    PAGEWATCH_TICK_SECONDS: '1',
    PAGEWATCH_LEASE_SECONDS: '5',
    PAGEWATCH_PLANS_FILE: writePlansFile({ pro: { min_interval_minutes: { html: 0 } } }),
  });
  const first = await group.start('serve', 'serve', env);
  const admin = { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' };
  const post = (base: string, path: string, body: unknown, headers: Record<string, string> = admin) =>
    fetch(`${base}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });

  const { accountId, token } = await createAccountVia(first.url, { email: 'owner@example.com', tokenName: 'crash' });
  const api = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const pages = gatedPages([site], ['/page.html']);
  const preview = await (await post(first.url, '/api/v1/previews', { url: `${site.url}/page.html`, load_mode: 'html' }, api)).json();
  const monitor = await post(
    first.url,
    '/api/v1/monitors',
    {
      preview_id: preview.data.id,
      targets: [{ id: 'title', label: 'Title', kind: 'text', selection: { scope: 'selector', selector: '#title' }, rule: 'changed' }],
      interval_minutes: 60,
    },
    { ...api, 'idempotency-key': 'crash-monitor-1' },
  );
  assert.equal(monitor.status, 201);
  const monitorId = (await monitor.json()).data.id as string;
  // The first check is held mid-load when the process dies.
  pages.close();
  const check = await post(first.url, `/api/v1/monitors/${monitorId}/checks`, {}, { ...api, 'idempotency-key': 'crash-check-1' });
  assert.equal(check.status, 202);
  const checkId = (await check.json()).data.check_id as string;

  // Writers keep going until the kill; only answered creations count as acknowledged.
  const acknowledged: string[] = [];
  let writing = true;
  const writers = Array.from({ length: 4 }, async (_, w) => {
    for (let n = 0; writing && n < 500; n++) {
      try {
        const res = await post(first.url, '/admin/v1/accounts', { email: `w${w}-${n}@example.com`, plan: 'pro' });
        if (res.status === 201) acknowledged.push((await res.json()).data.id);
      } catch {
        return; // the process is gone
      }
    }
  });
  await waitUntil('writes acknowledged and the check mid-load', () => acknowledged.length >= 40 && pages.waiting === 1, 30_000);
  first.child.kill('SIGKILL');
  writing = false;
  await first.exited;
  await Promise.all(writers);
  const acked = [...acknowledged];

  // The lock file of the killed process is stale: the restart takes it over.
  const second = await group.start('serve', 'serve-again', env);
  pages.open();
  for (const id of [accountId, ...acked]) {
    const res = await fetch(`${second.url}/admin/v1/accounts/${id}`, { headers: admin });
    assert.equal(res.status, 200, `account ${id} acknowledged before the kill`);
  }
  assert.equal((await fetch(`${second.url}/api/v1/monitors/${monitorId}`, { headers: api })).status, 200);

  // Scheduling resumes: the interrupted check's lease runs out and the restarted process completes it.
  let receipt: { status: string } = { status: '' };
  await waitUntil(
    'the interrupted check completed',
    async () => {
      receipt = (await (await fetch(`${second.url}/api/v1/checks/${checkId}`, { headers: api })).json()).data;
      return receipt.status !== 'queued' && receipt.status !== 'running';
    },
    30_000,
  );
  assert.equal(receipt.status, 'succeeded');
  const after = (await (await fetch(`${second.url}/api/v1/monitors/${monitorId}`, { headers: api })).json()).data;
  assert.ok(after.last_checked_at, 'the monitor was checked after the restart');

  second.child.kill('SIGTERM');
  assert.equal(await second.exited, 0);
});
