import { after, before, mock, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type AddressInfo } from 'node:net';
import { adminCommand } from '../../src/cli/admin-command.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { ADMIN_TOKEN } from '../helpers/test-credentials.ts';

// `pagewatch admin` against a real listening server: what an operator reads
// when the server refuses a request, or is not there at all.

let t: TestApp;
let base: string;
before(async () => {
  t = await startTestApp();
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
});
after(() => t.close());

async function admin(args: string[], url = base): Promise<{ code: number; stderr: string; stdout: string }> {
  const error = mock.method(console, 'error', () => {});
  const log = mock.method(console, 'log', () => {});
  try {
    const code = await adminCommand(args, { PAGEWATCH_URL: url, PAGEWATCH_ADMIN_TOKEN: ADMIN_TOKEN });
    const text = (m: typeof error) => m.mock.calls.map((c) => c.arguments.join(' ')).join('\n');
    return { code, stderr: text(error), stdout: text(log) };
  } finally {
    error.mock.restore();
    log.mock.restore();
  }
}

test("a refused request prints the server's details, one line each, not only the status", async () => {
  const account = await admin(['accounts', 'create', '--email', 'cli@example.com', '--plan', 'pro', '--json']);
  assert.equal(account.code, 0, account.stderr);
  const id = JSON.parse(account.stdout).id as string;
  const res = await admin(['tokens', 'create', '--account', id, '--name', 'n', '--scopes', 'monitors:read,everything', '--days', '30']);
  assert.equal(res.code, 1);
  assert.match(res.stderr, /^pagewatch admin: 422 validation_failed: /);
  assert.match(res.stderr, /\n {2}--scopes[^:\n]*: [^\n]+/, res.stderr);
});

test('an unreachable server is one clear line naming the address', async () => {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const port = (probe.address() as AddressInfo).port;
  await new Promise((resolve) => probe.close(resolve));
  const res = await admin(['api', 'status'], `http://127.0.0.1:${port}`);
  assert.equal(res.code, 1);
  assert.equal(
    res.stderr,
    `pagewatch admin: cannot reach the pagewatch server at http://127.0.0.1:${port} (ECONNREFUSED); is it running, and does PAGEWATCH_URL name it?`,
  );
});

test('refusals name the command-line flags, in its own words, never API fields or schema text', async () => {
  const account = await admin(['accounts', 'create', '--email', 'flags@example.com', '--plan', 'pro', '--json']);
  const id = JSON.parse(account.stdout).id as string;
  for (const [args, flag] of [
    [['tokens', 'create', '--account', id, '--name', 'n', '--scopes', 'monitors:read', '--days', '999'], '--days'],
    [['tokens', 'create', '--account', id, '--name', 'n', '--scopes', 'monitors:read', '--days', 'soon'], '--days'],
    [['accounts', 'set-webhook', id, '--url', 'not-a-url'], '--url'],
  ] as const) {
    const res = await admin([...args]);
    assert.notEqual(res.code, 0);
    assert.match(res.stderr, new RegExp(`^${flag} `), res.stderr);
    assert.doesNotMatch(res.stderr, /expires_in_days|webhook_url|must match|format "|pattern/, res.stderr);
  }
});

test("the server's refusals of every command with flags name the command's flags, never the API's field names", async () => {
  const account = await admin(['accounts', 'create', '--email', 'fields@example.com', '--plan', 'pro', '--json']);
  const id = JSON.parse(account.stdout).id as string;
  const token = ['tokens', 'create', '--account', id, '--days', '30'];
  for (const [args, flag] of [
    [['accounts', 'create', '--email', 'not-an-address', '--plan', 'pro'], '--email'],
    [['accounts', 'create', '--email', 'gold@example.com', '--plan', 'gold'], '--plan'],
    [['accounts', 'set-plan', id, '--plan', 'gold'], '--plan'],
    [['accounts', 'set-webhook', id, '--url', 'http://169.254.169.254/hook'], '--url'],
    [['accounts', 'set-time-zone', id, '--zone', 'Mars/Olympus_Mons'], '--zone'],
    [['accounts', 'set-email-mode', id, '--mode', 'hourly'], '--mode'],
    [['accounts', 'set-email-mode', id, '--mode', 'daily', '--hour', '24'], '--hour'],
    [[...token, '--name', 'n', '--scopes', 'monitors:read,everything'], '--scopes'],
    [[...token, '--name', 'n'.repeat(101), '--scopes', 'monitors:read'], '--name'],
    [['api', 'close', '--retry-after', '0'], '--retry-after'],
    [['api', 'close', '--retry-after', 'soon'], '--retry-after'],
  ] as const) {
    const res = await admin([...args]);
    assert.equal(res.code, 1, res.stderr);
    const fields = [...res.stderr.matchAll(/\n {2}(\S+)(?: \(item \d+\))?: /g)].map((m) => m[1]);
    assert.deepEqual(fields, [flag], res.stderr);
    assert.doesNotMatch(
      res.stderr,
      /expires_in_days|webhook_url|time_zone|email_mode|digest_hour|retry_after_seconds|(?<![\w-])(plan|scopes)(?![\w-])/,
      res.stderr,
    );
  }
});

test('accounts list prints one line per account: id, email, plan, created, monitors', async () => {
  const created = await admin(['accounts', 'create', '--email', 'listed@example.com', '--plan', 'free', '--json']);
  const id = JSON.parse(created.stdout).id as string;
  const res = await admin(['accounts', 'list']);
  assert.equal(res.code, 0, res.stderr);
  const lines = res.stdout.split('\n');
  const count = (await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM accounts'))[0]!.n;
  assert.equal(lines.length, count, res.stdout);
  assert.ok(lines.includes(`${id}  listed@example.com  free  created ${t.clock.now().toISOString()}  0 monitors`), res.stdout);
  const json = await admin(['accounts', 'list', '--json']);
  assert.ok((JSON.parse(json.stdout) as { id: string }[]).some((a) => a.id === id));
});

test('accounts set-email-mode sets the change emails to a digest at the hour', async () => {
  const account = await admin(['accounts', 'create', '--email', 'digest@example.com', '--plan', 'pro', '--json']);
  const id = JSON.parse(account.stdout).id as string;
  const res = await admin(['accounts', 'set-email-mode', id, '--mode', 'weekly', '--hour', '18', '--json']);
  assert.equal(res.code, 0, res.stderr);
  const set = JSON.parse(res.stdout) as { email_mode: string; digest_hour: number };
  assert.deepEqual([set.email_mode, set.digest_hour], ['weekly', 18]);
});
