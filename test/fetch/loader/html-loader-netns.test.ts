import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { loopbackNamespaceUnavailable, runInLoopbackNamespace } from '../../helpers/netns.ts';
import type { NamespaceReport, Outcome } from './html-netns-child.ts';

// The real html and browser loaders (and guardedPost) on every SSRF corpus URL and on
// redirects/names leading to private and metadata addresses. Everything runs
// in a child process inside a loopback-only network namespace, where those
// addresses exist on lo and listeners wait on every port the cases use:
// a guard failure would show up as a connection, never as off-machine traffic.

const skip = loopbackNamespaceUnavailable();
let report: NamespaceReport;

before(async () => {
  if (skip) return;
  const run = await runInLoopbackNamespace(join(import.meta.dirname, 'html-netns-child.ts'));
  assert.equal(run.status, 0, `namespace child failed:\n${run.stderr}`);
  report = JSON.parse(run.stdout.trim().split('\n').at(-1) ?? '{}');
});

const group = (name: Outcome['group']) => report.outcomes.filter((o) => o.group === name);
const notBlocked = (outcomes: Outcome[]) =>
  outcomes.filter((o) => o.code !== 'address_refused').map((o) => `${o.url} -> ${o.code}: ${o.message}`);

test('the html loader returns an address_refused issue for every corpus URL', { skip: skip ?? false }, () => {
  assert.equal(group('corpus').length, 196);
  assert.deepEqual(notBlocked(group('corpus')), []);
});

test('the browser loader returns an address_refused issue for every corpus URL', { skip: skip ?? false }, () => {
  assert.equal(group('corpus-browser').length, 196);
  assert.deepEqual(notBlocked(group('corpus-browser')), []);
});

test('redirects to private and metadata addresses are blocked', { skip: skip ?? false }, () => {
  assert.equal(group('redirect').length, 8);
  assert.deepEqual(notBlocked(group('redirect')), []);
});

test('names resolving to private, metadata or mapped addresses are blocked at connect time', { skip: skip ?? false }, () => {
  assert.equal(group('resolved-name').length, 5);
  assert.deepEqual(notBlocked(group('resolved-name')), []);
});

test('guardedPost refuses private targets and names resolving to them', { skip: skip ?? false }, () => {
  assert.equal(group('webhook').length, 3);
  assert.deepEqual(notBlocked(group('webhook')), []);
});

test('no connection reached any listener', { skip: skip ?? false }, () => {
  assert.ok(report.listenedPorts.includes(80) && report.listenedPorts.includes(443) && report.listenedPorts.includes(6379));
  assert.equal(report.leakedConnections, 0);
});

test('the listeners would have seen a connection to a private address', { skip: skip ?? false }, () => {
  assert.equal(report.controlConnections, 2);
});

test('a name resolved to a trusted address connects there and keeps its Host header', { skip: skip ?? false }, () => {
  const [named] = group('control');
  assert.ok(named);
  assert.equal(named.code, null, named.message);
  assert.match(named.html ?? '', /"host":"fixture\.example\.com:\d+"/);
});

test('a DNS failure is fetch_failed', { skip: skip ?? false }, () => {
  const [, unknown] = group('control');
  assert.ok(unknown);
  assert.equal(unknown.code, 'fetch_failed');
  assert.match(unknown.message, /ENOTFOUND/);
});
