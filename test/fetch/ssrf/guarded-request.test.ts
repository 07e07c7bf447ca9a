import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { GuardError, guardPolicy } from '../../../src/fetch/ssrf/guard.ts';
import { guardedPost } from '../../../src/fetch/ssrf/guarded-request.ts';
import { startFixtureServer, type FixtureServer } from '../../helpers/fixture-server.ts';
import { waitUntil, within } from '../../helpers/deadline.ts';
import { listenCounting, type CountingListener } from '../../helpers/tcp-listener.ts';

// guardedPost against loopback only: a trusted fixture server, and a
// counting listener on an address the policy does not trust.

let server: FixtureServer;
let untrusted: CountingListener;
const received: Array<{ headers: Record<string, unknown>; body: string }> = [];
const trusting = guardPolicy({ trustedCidrs: ['127.0.0.1/32'] });
/** one entry per /stall request the caller closed: true when it was closed before any answer */
const stallClosed: boolean[] = [];

before(async () => {
  server = await startFixtureServer({
    '/hook': async (req, res) => {
      let body = '';
      for await (const chunk of req) body += chunk;
      received.push({ headers: req.headers, body });
      res.writeHead(202, { 'retry-after': '30' });
      res.end('accepted');
    },
    '/moved': (_req, res) => {
      res.writeHead(302, { location: '/hook' });
      res.end();
    },
    // Never answers; records that the caller closed the connection while it waited.
    '/stall': (req, res) => void req.once('close', () => stallClosed.push(!res.headersSent)),
  });
  untrusted = await listenCounting('127.0.0.2');
});
after(async () => {
  await server.close();
  await untrusted.close();
});

test('posts the body and headers and returns the answer status and headers', async () => {
  const result = await guardedPost(
    `${server.url}/hook`,
    { headers: { 'content-type': 'application/json', 'webhook-id': 'msg_1' }, body: '{"a":1}' },
    trusting,
  );
  assert.equal(result.ok, true);
  if (!result.ok) return;
  assert.equal(result.status, 202);
  assert.equal(result.headers['retry-after'], '30');
  const last = received.at(-1);
  assert.equal(last?.body, '{"a":1}');
  assert.equal(last?.headers['webhook-id'], 'msg_1');
});

test('a redirect is returned, not followed', async () => {
  const before = received.length;
  const result = await guardedPost(`${server.url}/moved`, { body: '{}' }, trusting);
  assert.equal(result.ok && result.status, 302);
  assert.equal(received.length, before);
});

test('a refused URL is blocked without a connection', async () => {
  const result = await guardedPost(`http://127.0.0.2:${untrusted.port}/hook`, { body: '{}' }, trusting);
  assert.equal(result.ok, false);
  if (result.ok) return;
  assert.equal(result.blocked, true);
  assert.ok(result.error instanceof GuardError);
  assert.equal(untrusted.connections(), 0);
});

test('a name resolving to an untrusted address is blocked at connect time without a connection', async () => {
  const lookup = async () => [{ address: '127.0.0.2', family: 4 }];
  const result = await guardedPost(`http://hooks.example.com:${untrusted.port}/hook`, { body: '{}', lookup }, trusting);
  assert.equal(result.ok, false);
  if (!result.ok) assert.equal(result.blocked, true);
  assert.equal(untrusted.connections(), 0);
});

test('an answer slower than the deadline is a timeout, not a block', async () => {
  // A deadline below the default 15 s: a request that ignored its own 300 ms would be caught here.
  const result = await within(
    'the stalled post ended',
    10_000,
    guardedPost(`${server.url}/stall`, { body: '{}', timeoutMs: 300 }, trusting),
  );
  assert.equal(result.ok, false);
  if (!result.ok) assert.equal(result.blocked, false);
  // The deadline cut the request: the server saw the connection closed while it still had not answered.
  await waitUntil('the stalled request closed', () => stallClosed.length > 0, 10_000);
  assert.deepEqual(stallClosed, [true]);
});
