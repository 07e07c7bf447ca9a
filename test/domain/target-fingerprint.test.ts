import { test } from 'node:test';
import assert from 'node:assert/strict';
import { targetFingerprint } from '../../src/domain/target-fingerprint.ts';
import type { Target } from '../../src/domain/targets.ts';

const price = (fields: Partial<Target> = {}): Target => ({
  id: 'p',
  kind: 'price',
  selection: { scope: 'page' },
  currency: 'IDR',
  ...fields,
});

test('a price target without decimal (automatic reading) does not share a baseline with one reading "."', () => {
  assert.notEqual(targetFingerprint(price(), 'html'), targetFingerprint(price({ decimal: '.' }), 'html'));
  assert.notEqual(targetFingerprint(price({ decimal: ',' }), 'html'), targetFingerprint(price({ decimal: '.' }), 'html'));
});
