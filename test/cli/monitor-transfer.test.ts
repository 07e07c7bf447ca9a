import { after, before, mock, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { exportCommand, importCommand } from '../../src/cli/monitor-transfer-command.ts';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.ts';
import { loadPreview, patchMonitor, postMonitor } from '../helpers/monitor-api.ts';
import { serveShop } from '../helpers/shop-page.ts';
import { bearer, createAccountWithToken, startTestApp, type TestApp } from '../helpers/test-app.ts';
import { useTempDataDirs } from '../helpers/temp-dirs.ts';
import { buildZip } from '../helpers/zip-builder.ts';

// `pagewatch export FILE` / `pagewatch import FILE` against a real listening
// server with an account's own API token: previews spaced and charged as the
// plan says, monitors created as the API creates them.

let t: TestApp;
let site: FixtureServer;
let base: string;
let dir: string;
const newDir = useTempDataDirs('pw-transfer-');
before(async () => {
  t = await startTestApp({ plans: { pro: { preview_spacing_seconds: 0 } } });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  site = await startFixtureServer();
  dir = newDir();
  const { mkdirSync } = await import('node:fs');
  mkdirSync(dir, { recursive: true });
});
after(async () => {
  await t.close();
  await site.close();
});

const TITLE = { id: 'title', kind: 'text', selection: { scope: 'selector', selector: '#title' }, rule: 'changed' };
let pages = 0;
function page(): string {
  const path = `/transfer-${++pages}.html`;
  serveShop(site, path);
  return `${site.url}${path}`;
}

/** Runs a command with its output captured; onLine sees each line printed as it is printed. */
async function cli(run: () => Promise<number>, onLine?: (line: string) => void): Promise<{ code: number; stdout: string; stderr: string }> {
  const error = mock.method(console, 'error', () => {});
  const log = mock.method(console, 'log', (...args: unknown[]) => onLine?.(args.join(' ')));
  try {
    const code = await run();
    const text = (m: typeof error) => m.mock.calls.map((c) => c.arguments.join(' ')).join('\n');
    return { code, stdout: text(log), stderr: text(error) };
  } finally {
    error.mock.restore();
    log.mock.restore();
  }
}

async function monitorsOf(token: string) {
  const res = await t.app.inject({ method: 'GET', url: '/api/v1/monitors?limit=100', headers: bearer(token) });
  assert.equal(res.statusCode, 200, res.body);
  return (
    res.json().data as {
      url: string;
      name: string | null;
      labels: string[];
      targets: unknown;
      interval_minutes: number;
      schedule: unknown;
      status: string;
    }[]
  )
    .map(({ url, name, labels, targets, interval_minutes, schedule, status }) => ({
      url,
      name,
      labels,
      targets,
      interval_minutes,
      schedule,
      status,
    }))
    .sort((a, b) => a.url.localeCompare(b.url));
}

async function monitorOn(token: string, url: string, extra: Record<string, unknown> = {}): Promise<string> {
  const res = await postMonitor(t.app, token, {
    preview_id: await loadPreview(t.app, token, url),
    targets: [TITLE],
    interval_minutes: 30,
    ...extra,
  });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().data.id;
}

let source: { token: string };
let target: { token: string };
let exportFile: string;

test('an export imported into another account gives the same monitors: URL, name, labels, targets, schedule, status', async () => {
  source = await createAccountWithToken(t.app);
  target = await createAccountWithToken(t.app);
  await monitorOn(source.token, page(), { name: 'Espresso', labels: ['shop', 'coffee'] });
  const paused = await monitorOn(source.token, page());
  assert.equal((await patchMonitor(t.app, source.token, paused, { status: 'paused' })).statusCode, 200);
  exportFile = join(dir, 'export.json');
  const exported = await cli(() => exportCommand(exportFile, { base, token: source.token }));
  assert.equal(exported.code, 0, exported.stderr);
  assert.doesNotMatch(readFileSync(exportFile, 'utf8'), /pw_|whsec_|"id":\s*"[0-9a-f-]{36}"/);
  const imported = await cli(() => importCommand(exportFile, { base, token: target.token }));
  assert.equal(imported.code, 0, imported.stdout);
  assert.match(imported.stdout, /^\[1\/2\] .*: created$/m);
  assert.deepEqual(await monitorsOf(target.token), await monitorsOf(source.token));
});

test('export, import, export: the second file holds the first one’s monitors, notification switches included', async () => {
  const from = await createAccountWithToken(t.app);
  const to = await createAccountWithToken(t.app);
  await monitorOn(from.token, page(), {
    name: 'Quiet',
    labels: ['shop'],
    notifications: { email_enabled: false, email_mode: 'daily', webhook_enabled: true, failing_after: 5 },
  });
  await monitorOn(from.token, page(), { status: 'paused' });
  const first = join(dir, 'round-1.json');
  const second = join(dir, 'round-2.json');
  assert.equal((await cli(() => exportCommand(first, { base, token: from.token }))).code, 0);
  assert.equal((await cli(() => importCommand(first, { base, token: to.token }))).code, 0);
  assert.equal((await cli(() => exportCommand(second, { base, token: to.token }))).code, 0);
  const monitorsIn = (file: string) =>
    (JSON.parse(readFileSync(file, 'utf8')) as { monitors: { url: string }[] }).monitors.sort((a, b) => a.url.localeCompare(b.url));
  const exported = monitorsIn(first);
  assert.equal(exported.length, 2);
  assert.deepEqual(monitorsIn(second), exported);
});

test('an import waits out the plan’s preview spacing with a line each, spends a preview credit per monitor, and stops when the day’s previews run out', async () => {
  const spaced = await startTestApp({ plans: { pro: { preview_spacing_seconds: 1, previews_per_day: 2 } } });
  await spaced.app.listen({ port: 0, host: '127.0.0.1' });
  const api = { base: `http://127.0.0.1:${(spaced.app.server.address() as AddressInfo).port}`, token: '' };
  try {
    const account = await createAccountWithToken(spaced.app);
    const urls = [page(), page(), page()];
    const list = join(dir, 'spaced.txt');
    writeFileSync(list, `${urls.join('\n')}\n`);
    // The app's clock is a manual one, standing still: it moves on when the import says it waits, as time would.
    const res = await cli(
      () => importCommand(list, { ...api, token: account.token }),
      (line) => {
        const waiting = /waiting (\d+) s for the next preview/.exec(line);
        if (waiting) spaced.clock.advance(Number(waiting[1]) * 1000);
      },
    );
    assert.equal(res.code, 1, res.stdout);
    assert.match(res.stdout, /^ {2}waiting 1 s for the next preview \(the plan spaces them\)$/m);
    assert.match(res.stdout, /^\[2\/3\] .*: created$/m);
    assert.match(res.stdout, /created 2, existing 0, not created 1/);
    assert.match(res.stdout, new RegExp(`not created: ${urls[2]}: preview refused: 429 preview_limited: at most 2 previews per UTC day`));
    const usage = await spaced.app.inject({ method: 'GET', url: '/api/v1/usage', headers: bearer(account.token) });
    assert.equal(usage.json().data.previews.day.used, 2);
  } finally {
    await spaced.close();
  }
});

test('a second import of the same file creates nothing: a monitor of a URL the account watches already is skipped', async () => {
  const again = await cli(() => importCommand(exportFile, { base, token: target.token }));
  assert.equal(again.code, 0, again.stdout);
  assert.match(again.stdout, /created 0, existing 2, not created 0/);
  assert.equal((await monitorsOf(target.token)).length, 2);
});

test('an import creates what validates and lists each URL that did not, with the reason the API gave', async () => {
  const account = await createAccountWithToken(t.app);
  const good = page();
  const list = join(dir, 'urls.txt');
  writeFileSync(list, `${good}\n${site.url}/no-such-page.html\nnot a url\n`);
  const res = await cli(() => importCommand(list, { base, token: account.token }));
  assert.equal(res.code, 1, res.stdout);
  assert.match(res.stdout, /created 1, existing 0, not created 1/);
  assert.match(res.stdout, new RegExp(`not created: ${site.url}/no-such-page.html: preview refused: 4\\d\\d \\w+: `));
  assert.match(res.stdout, /skipped line 3: not an http:\/\/ or https:\/\/ URL: not a url/);
  assert.deepEqual(
    (await monitorsOf(account.token)).map((m) => [m.url, m.targets]),
    [[good, [{ id: 'page', label: 'page', kind: 'text', selection: { scope: 'page' }, rule: 'changed' }]]],
  );
});

test('a changedetection.io backup archive is imported with its tags as labels and CSS filters as targets, saying what was left out', async () => {
  const account = await createAccountWithToken(t.app);
  const url = page();
  const watches = {
    watching: {
      'w-1': {
        url,
        title: 'From changedetection',
        tags: ['t-1'],
        time_between_check: { hours: 1, minutes: 30 },
        include_filters: ['#title', '//h1'],
        notification_urls: ['mailto://me@example.com'],
      },
    },
    settings: { application: { tags: { 't-1': { title: 'moved' } } } },
  };
  const archive = join(dir, 'changedetection-backup.zip');
  writeFileSync(archive, buildZip([{ name: 'url-watches.json', content: JSON.stringify(watches) }]));
  const res = await cli(() => importCommand(archive, { base, token: account.token }));
  assert.equal(res.code, 0, res.stdout);
  assert.match(res.stdout, /not carried over: 1 notification URL: add the services as channels/);
  assert.deepEqual(await monitorsOf(account.token), [
    {
      url,
      name: 'From changedetection',
      labels: ['moved'],
      targets: [
        { id: 'css-1', label: 'css-1', kind: 'text', selection: { scope: 'selector', selector: '#title' }, rule: 'changed' },
        { id: 'xpath-2', label: 'xpath-2', kind: 'text', selection: { scope: 'xpath', expression: '//h1' }, rule: 'changed' },
      ],
      interval_minutes: 90,
      schedule: null,
      status: 'active',
    },
  ]);
});

test('schedules travel: a cron schedule and a days/hours one with jitter come back as they were exported', async () => {
  const from = await createAccountWithToken(t.app);
  const to = await createAccountWithToken(t.app);
  await monitorOn(from.token, page(), { schedule: { timezone: 'Europe/Berlin', cron: '0 9,17 * * 1-5', jitter_seconds: 60 } });
  await monitorOn(from.token, page(), {
    schedule: { timezone: 'America/New_York', days: ['mon', 'wed', 'fri'], hours: { from: 22, to: 6 } },
  });
  const file = join(dir, 'schedules.json');
  assert.equal((await cli(() => exportCommand(file, { base, token: from.token }))).code, 0);
  const imported = await cli(() => importCommand(file, { base, token: to.token }));
  assert.equal(imported.code, 0, imported.stdout);
  const schedules = (await monitorsOf(to.token)).map((m) => m.schedule);
  assert.deepEqual(
    schedules.sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
    [
      { timezone: 'America/New_York', days: ['mon', 'wed', 'fri'], hours: { from: 22, to: 6 } },
      { timezone: 'Europe/Berlin', cron: '0 9,17 * * 1-5', jitter_seconds: 60 },
    ],
  );
  assert.deepEqual(await monitorsOf(to.token), await monitorsOf(from.token));
});

test('a monitor loaded through a proxy this install lacks is not imported, with the reason the API gives; the others are', async () => {
  const from = await createAccountWithToken(t.app);
  const to = await createAccountWithToken(t.app);
  const direct = page();
  const proxied = page();
  await monitorOn(from.token, direct);
  await monitorOn(from.token, proxied);
  const file = join(dir, 'proxied.json');
  assert.equal((await cli(() => exportCommand(file, { base, token: from.token }))).code, 0);
  // As an install with an "office" proxy would have written it.
  const document = JSON.parse(readFileSync(file, 'utf8'));
  document.monitors.find((m: { url: string }) => m.url === proxied).proxy = 'office';
  writeFileSync(file, JSON.stringify(document));
  const res = await cli(() => importCommand(file, { base, token: to.token }));
  assert.equal(res.code, 1, res.stdout);
  assert.match(res.stdout, /created 1, existing 0, not created 1/);
  assert.match(
    res.stdout,
    new RegExp(`not created: ${proxied}: preview refused: 422 proxy_unknown: no proxy named office; .*\\(proxy: no proxy named office\\)`),
  );
  assert.deepEqual(
    (await monitorsOf(to.token)).map((m) => m.url),
    [direct],
  );
});

test('a file exported before schedules, steps and proxies were carried imports as before: none of them', async () => {
  const account = await createAccountWithToken(t.app);
  const url = page();
  const file = join(dir, 'first-version.json');
  const monitor = { url, name: 'Old', labels: [], load_mode: 'html', interval_minutes: 45, targets: [TITLE], status: 'active' };
  writeFileSync(
    file,
    JSON.stringify({ format: 'pagewatch-monitors', version: 1, exported_at: '2026-11-01T00:00:00Z', monitors: [monitor] }),
  );
  const res = await cli(() => importCommand(file, { base, token: account.token }));
  assert.equal(res.code, 0, res.stdout);
  const created = await monitorsOf(account.token);
  assert.deepEqual(
    created.map((m) => [m.url, m.interval_minutes, m.schedule]),
    [[url, 45, null]],
  );
});
