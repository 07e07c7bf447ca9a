import { test } from 'node:test';
import assert from 'node:assert/strict';
import { guardPolicy, vetUrl } from '../../../src/fetch/ssrf/guard.ts';

// Static URL rules (no DNS, no connection): scheme, userinfo, backslashes,
// ports, local-only names, and the operator's trusted networks.

const open = guardPolicy();
const trustingLoopback = guardPolicy({ trustedCidrs: ['127.0.0.0/8'] });

function refusal(raw: string, policy = open): string {
  const verdict = vetUrl(raw, policy);
  assert.equal(verdict.ok, false, `${raw} should be refused`);
  return verdict.ok ? '' : verdict.reason;
}

test('a public https URL passes the static checks', () => {
  const verdict = vetUrl('https://example.com/shop?item=1', open);
  assert.equal(verdict.ok, true);
  if (verdict.ok) assert.equal(verdict.url.hostname, 'example.com');
});

test('only http and https schemes are allowed', () => {
  assert.match(refusal('ftp://example.com/'), /scheme ftp:/);
  assert.match(refusal('ws://example.com/'), /scheme ws:/);
});

test('userinfo is refused even on a trusted address', () => {
  assert.match(refusal('http://user:pass@127.0.0.1:8080/', trustingLoopback), /userinfo/);
  assert.match(refusal('http://@127.0.0.1:8080/', trustingLoopback), /userinfo/);
});

test('an @ in the path or query is not userinfo', () => {
  assert.equal(vetUrl('https://example.com/users/@me?mail=a@b.example', open).ok, true);
});

test('a backslash is refused even on a trusted address', () => {
  assert.match(refusal('http://127.0.0.1:8080\\@example.com/', trustingLoopback), /backslash/);
});

test('control characters are refused', () => {
  assert.match(refusal('http://exa\tmple.com/'), /control character/);
});

test('a host name on a port outside the allow list is refused when nothing is trusted', () => {
  assert.match(refusal('http://example.com:8080/'), /port 8080/);
});

test('a port added to the allow list is accepted', () => {
  assert.equal(vetUrl('https://example.com:8443/', guardPolicy({ allowPorts: [80, 443, 8443] })).ok, true);
});

test('a host name on another port waits for connect-time vetting when networks are trusted', () => {
  assert.equal(vetUrl('http://app.example.com:3000/', trustingLoopback).ok, true);
});

test('a trusted address may use any port', () => {
  assert.equal(vetUrl('http://127.0.0.1:3000/', trustingLoopback).ok, true);
});

test('trusting a network does not trust others', () => {
  assert.match(refusal('http://10.0.0.1/', trustingLoopback), /private/);
});

test('local-only domain names are refused', () => {
  for (const host of ['printer.local', 'db.internal', 'nas.home.arpa', 'box.localdomain', 'x.localhost', 'router.lan']) {
    assert.match(refusal(`http://${host}/`), /local-only domain/, host);
  }
});

test('single-label host names are refused', () => {
  assert.match(refusal('http://kubernetes/'), /single-label/);
  assert.match(refusal('http://metadata/'), /single-label/);
});

test('cloud metadata host names are refused', () => {
  assert.match(refusal('http://metadata.google.internal/'), /metadata/);
  assert.match(refusal('http://metadata.goog/'), /metadata/);
});

test('odd IPv4 encodings are judged as the address the URL parser reads', () => {
  assert.match(refusal('http://0x7f.1/'), /loopback address 127\.0\.0\.1/);
  assert.match(refusal('http://2852039166/'), /metadata address 169\.254\.169\.254/);
});

test('an IPv4-mapped literal of a trusted address is allowed', () => {
  assert.equal(vetUrl('http://[::ffff:127.0.0.1]:3000/', trustingLoopback).ok, true);
});
