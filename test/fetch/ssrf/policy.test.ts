import { test } from 'node:test';
import assert from 'node:assert/strict';
import { guardPolicy, isAddressAllowed } from '../../../src/fetch/ssrf/guard.ts';

test('the default policy allows ports 80 and 443 and trusts nothing', () => {
  assert.deepEqual(guardPolicy(), { allowPorts: [80, 443], trustedCidrs: [] });
});

test('a malformed trusted CIDR stops configuration', () => {
  assert.throws(() => guardPolicy({ trustedCidrs: ['127.0.0.0'] }), /invalid CIDR/);
  assert.throws(() => guardPolicy({ trustedCidrs: ['127.0.0.0/33'] }), /invalid CIDR/);
});

test('a malformed allowed port stops configuration', () => {
  assert.throws(() => guardPolicy({ allowPorts: [0] }), /invalid port/);
  assert.throws(() => guardPolicy({ allowPorts: [70000] }), /invalid port/);
});

test('a malformed CIDR in a hand-built policy trusts nothing', () => {
  const verdict = isAddressAllowed('127.0.0.1', 80, { allowPorts: [80], trustedCidrs: ['not-a-cidr', '127.0.0.1'] });
  assert.equal(verdict.ok, false);
});
