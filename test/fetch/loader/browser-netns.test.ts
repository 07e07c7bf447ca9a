import { it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

// Pages that reach for private and metadata addresses. Such traffic must never
// leave this machine, so the scenario runs in a child process inside a fresh
// network namespace whose only interface is loopback; 10.0.0.1 and
// 169.254.169.254 are added to that loopback and listened on, so any
// connection the proxy let through would be counted.
const SCENARIO = join(import.meta.dirname, 'browser-netns-scenario.ts');
const ROOT = join(import.meta.dirname, '..', '..', '..');

function unshareProblem(): string | null {
  const probe = spawnSync('unshare', ['-n', 'sh', '-c', 'ip link set lo up'], { encoding: 'utf8' });
  if (probe.error) return `unshare is not available: ${probe.error.message}`;
  if (probe.status !== 0) return `unshare -n is not permitted here: ${probe.stderr.trim()}`;
  return null;
}

const problem = unshareProblem();

it('refuses private and metadata addresses reached by redirect, subresource or navigation', { skip: problem ?? false }, () => {
  const script = [
    'ip link set lo up',
    'ip addr add 10.0.0.1/32 dev lo',
    'ip addr add 169.254.169.254/32 dev lo',
    `exec node --import tsx '${SCENARIO}'`,
  ].join(' && ');
  const run = spawnSync('unshare', ['-n', 'sh', '-c', script], { cwd: ROOT, encoding: 'utf8', timeout: 100_000 });
  assert.equal(run.status, 0, `scenario failed: ${run.stderr}`);
  const outcome = JSON.parse(run.stdout.trim().split('\n').at(-1) ?? '{}');

  assert.equal(outcome.controlReached, true, 'the listeners were not reachable, so the test proves nothing');
  assert.equal(outcome.controlConnections, 1);

  const { redirectMetadata, redirectPrivateHttps, subresources, navigation, direct } = outcome.results;
  assert.deepEqual(redirectMetadata, { codes: ['address_refused'], status: null, html: null });
  assert.deepEqual(redirectPrivateHttps, { codes: ['address_refused'], status: null, html: null });
  assert.deepEqual(navigation, { codes: ['address_refused'], status: null, html: null });
  assert.deepEqual(direct, { codes: ['address_refused'], status: null, html: null });
  // The page itself loads; what it pulls from private addresses does not.
  assert.deepEqual(subresources.codes, []);
  assert.match(subresources.html, /<p id="state">metadata refused<\/p>/);

  assert.equal(outcome.connections, 0, 'a connection reached a private or metadata address');
});
