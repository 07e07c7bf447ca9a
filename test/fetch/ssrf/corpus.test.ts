import { test } from 'node:test';
import assert from 'node:assert/strict';
import { GuardError, guardPolicy, resolveAndVet, vetUrl, effectivePort, type LookupFn } from '../../../src/fetch/ssrf/guard.ts';
import { readSsrfCorpus } from '../../helpers/ssrf-corpus.ts';

// Every line of the corpus must be refused with an empty allow list,
// by the static check and by the connect-time check, without any connection.

// Reading throws when the corpus is absent: the tests fail, never skip.
const corpus = readSsrfCorpus();
const policy = guardPolicy();

// Were a name ever looked up, it would "resolve" to loopback, as localhost-like names do.
function recordingLookup(): { lookup: LookupFn; calls: string[] } {
  const calls: string[] = [];
  const lookup: LookupFn = async (hostname) => {
    calls.push(hostname);
    return [
      { address: '127.0.0.1', family: 4 },
      { address: '::1', family: 6 },
    ];
  };
  return { lookup, calls };
}

test('the corpus has 196 cases', () => {
  assert.equal(corpus.length, 196);
});

// The corpus notes say 17; Node 20's WHATWG parser rejects these 16 (it reads
// one of the others after normalisation). Either way none may crash the guard.
test('corpus lines that are not URLs are refused without throwing', () => {
  const unparseable = corpus.filter((c) => !URL.canParse(c.url));
  assert.ok(unparseable.length >= 16);
  for (const c of unparseable) assert.equal(vetUrl(c.url, policy).ok, false, c.url);
});

test('vetUrl refuses every corpus URL with an empty allow list', () => {
  const allowed = corpus.filter((c) => vetUrl(c.url, policy).ok).map((c) => `${c.url}  ${c.note}`);
  assert.deepEqual(allowed, []);
});

test('vetUrl gives a reason for every refused corpus URL, unparseable ones included', () => {
  for (const c of corpus) {
    const verdict = vetUrl(c.url, policy);
    assert.equal(verdict.ok, false, c.url);
    if (!verdict.ok) assert.ok(verdict.reason.length > 0, c.url);
  }
});

test('resolveAndVet refuses every corpus http(s) host, on the URL port, without a DNS query', async () => {
  const { lookup, calls } = recordingLookup();
  const passed: string[] = [];
  for (const c of corpus) {
    if (!URL.canParse(c.url)) continue;
    const url = new URL(c.url);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') continue;
    try {
      await resolveAndVet(url.hostname, effectivePort(url), policy, lookup);
      passed.push(c.url);
    } catch (err) {
      assert.ok(err instanceof GuardError, `${c.url}: ${String(err)}`);
    }
  }
  assert.deepEqual(passed, []);
  assert.deepEqual(calls, []);
});
