import { test } from 'node:test';
import assert from 'node:assert/strict';
import { GuardError, guardPolicy, resolveAndVet, type LookupFn } from '../../../src/fetch/ssrf/guard.ts';

// Connect-time vetting with a fake resolver: no DNS query leaves the process
// and nothing connects anywhere.

const open = guardPolicy();

function fakeLookup(answers: Record<string, string[]>): { lookup: LookupFn; calls: string[] } {
  const calls: string[] = [];
  const lookup: LookupFn = async (hostname) => {
    calls.push(hostname);
    const addresses = answers[hostname];
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return { lookup, calls };
}

test('a name with only public answers yields the first answer', async () => {
  const { lookup } = fakeLookup({ 'shop.example.com': ['93.184.216.34', '93.184.216.35'] });
  assert.deepEqual(await resolveAndVet('shop.example.com', 443, open, lookup), { address: '93.184.216.34', family: 4 });
});

test('a name is resolved exactly once', async () => {
  const { lookup, calls } = fakeLookup({ 'shop.example.com': ['2606:4700::1'] });
  assert.deepEqual(await resolveAndVet('shop.example.com', 443, open, lookup), { address: '2606:4700::1', family: 6 });
  assert.deepEqual(calls, ['shop.example.com']);
});

test('a name is refused if any answer is forbidden', async () => {
  const { lookup } = fakeLookup({ 'rebind.example.com': ['93.184.216.34', '10.0.0.1'] });
  await assert.rejects(resolveAndVet('rebind.example.com', 443, open, lookup), (err: unknown) => {
    assert.ok(err instanceof GuardError);
    assert.match(err.reason, /rebind\.example\.com resolves to private/);
    return true;
  });
});

test('a name resolving to an IPv4-mapped loopback address is refused', async () => {
  const { lookup } = fakeLookup({ 'mapped.example.com': ['::ffff:127.0.0.1'] });
  await assert.rejects(resolveAndVet('mapped.example.com', 80, open, lookup), GuardError);
});

test('local-only names are refused without a DNS query', async () => {
  const { lookup, calls } = fakeLookup({});
  for (const name of ['localhost', 'LOCALHOST.', 'api.localhost', 'metadata.google.internal', 'ip6-localhost']) {
    await assert.rejects(resolveAndVet(name, 80, open, lookup), GuardError, name);
  }
  assert.deepEqual(calls, []);
});

test('IP literals are judged without a DNS query, bracketed or not', async () => {
  const { lookup, calls } = fakeLookup({});
  await assert.rejects(resolveAndVet('[::1]', 80, open, lookup), GuardError);
  await assert.rejects(resolveAndVet('::1', 80, open, lookup), GuardError);
  await assert.rejects(resolveAndVet('0x7f.1', 80, open, lookup), GuardError);
  assert.deepEqual(await resolveAndVet('93.184.216.34', 443, open, lookup), { address: '93.184.216.34', family: 4 });
  assert.deepEqual(calls, []);
});

test('a port outside the allow list is refused for public answers', async () => {
  const { lookup } = fakeLookup({ 'shop.example.com': ['93.184.216.34'] });
  await assert.rejects(resolveAndVet('shop.example.com', 8080, open, lookup), /port 8080/);
});

test('a name resolving into a trusted network is allowed on any port', async () => {
  const { lookup } = fakeLookup({ 'fixture.example.com': ['127.0.0.1'] });
  const trusting = guardPolicy({ trustedCidrs: ['127.0.0.0/8'] });
  assert.deepEqual(await resolveAndVet('fixture.example.com', 3000, trusting, lookup), { address: '127.0.0.1', family: 4 });
});

test('a DNS failure is not a guard refusal', async () => {
  const { lookup } = fakeLookup({});
  await assert.rejects(resolveAndVet('nowhere.example.com', 443, open, lookup), (err: unknown) => {
    assert.ok(!(err instanceof GuardError));
    assert.equal((err as NodeJS.ErrnoException).code, 'ENOTFOUND');
    return true;
  });
});

test('an empty DNS answer is not a guard refusal', async () => {
  const { lookup } = fakeLookup({ 'empty.example.com': [] });
  await assert.rejects(resolveAndVet('empty.example.com', 443, open, lookup), (err: unknown) => !(err instanceof GuardError));
});

test('an invalid host is refused', async () => {
  await assert.rejects(resolveAndVet('bad host', 80, open, fakeLookup({}).lookup), GuardError);
});
