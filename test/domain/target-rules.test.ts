import { test } from 'node:test';
import assert from 'node:assert/strict';
import { validateTarget, validateTargetList } from '../../src/domain/target-rules.ts';
import type { Target } from '../../src/domain/targets.ts';

const page = { scope: 'page' } as const;
const fields = (details: { field: string }[]) => details.map((d) => d.field);

test('a valid target of each kind has no details', () => {
  const targets: Target[] = [
    { id: 'a', kind: 'text', selection: page, rule: 'appears', phrase: 'on sale' },
    { id: 'b', kind: 'price', selection: page, rule: 'below', currency: 'EUR', decimal: ',', threshold: '30.00' },
    { id: 'c', kind: 'availability', selection: page, rule: 'available' },
  ];
  targets.forEach((target, i) => assert.deepEqual(validateTarget(target, i), []));
  assert.deepEqual(validateTarget({ id: 'd', kind: 'links', selection: page, rule: 'new_links', match: '/jobs/' }, 0), []);
});

test('a rule must belong to the target kind', () => {
  assert.deepEqual(fields(validateTarget({ id: 'a', kind: 'text', selection: page, rule: 'below' }, 1)), ['targets[1].rule']);
});

test('a target without a rule is the legacy any-change target and valid', () => {
  assert.deepEqual(validateTarget({ id: 'a', kind: 'links', selection: page }, 0), []);
});

test('currency is required for price targets', () => {
  assert.deepEqual(fields(validateTarget({ id: 'p', kind: 'price', selection: page }, 2)), ['targets[2].currency']);
});

test('currency must be a known ISO 4217 code', () => {
  assert.deepEqual(fields(validateTarget({ id: 'p', kind: 'price', selection: page, currency: 'ABC' }, 0)), ['targets[0].currency']);
  assert.deepEqual(fields(validateTarget({ id: 'p', kind: 'price', selection: page, currency: 'XAU' }, 0)), ['targets[0].currency']);
});

test('a code withdrawn recently that pages still show (HRK) is a currency a target can name', () => {
  assert.deepEqual(validateTarget({ id: 'p', kind: 'price', selection: page, currency: 'HRK' }, 0), []);
});

test('threshold is required for the below rule', () => {
  assert.deepEqual(fields(validateTarget({ id: 'p', kind: 'price', selection: page, rule: 'below', currency: 'USD' }, 0)), [
    'targets[0].threshold',
  ]);
});

test('threshold is only allowed with the below rule', () => {
  assert.deepEqual(
    fields(validateTarget({ id: 'p', kind: 'price', selection: page, rule: 'dropped', currency: 'USD', threshold: '5' }, 0)),
    ['targets[0].threshold'],
  );
});

test('a threshold may not have more decimals than the currency', () => {
  assert.deepEqual(
    fields(validateTarget({ id: 'p', kind: 'price', selection: page, rule: 'below', currency: 'JPY', threshold: '100.5' }, 0)),
    ['targets[0].threshold'],
  );
});

test('phrase is required for appears and disappears', () => {
  assert.deepEqual(fields(validateTarget({ id: 't', kind: 'text', selection: page, rule: 'disappears' }, 0)), ['targets[0].phrase']);
});

test('phrase is only allowed with appears and disappears on text targets', () => {
  assert.deepEqual(fields(validateTarget({ id: 't', kind: 'text', selection: page, rule: 'changed', phrase: 'x' }, 0)), [
    'targets[0].phrase',
  ]);
  assert.deepEqual(fields(validateTarget({ id: 'a', kind: 'availability', selection: page, phrase: 'x' }, 0)), ['targets[0].phrase']);
});

test('match is only allowed on links targets', () => {
  assert.deepEqual(fields(validateTarget({ id: 't', kind: 'text', selection: page, match: '/x' }, 0)), ['targets[0].match']);
});

test('decimal is only allowed on price targets', () => {
  assert.deepEqual(fields(validateTarget({ id: 'a', kind: 'availability', selection: page, decimal: ',' }, 0)), ['targets[0].decimal']);
});

test("a target list has one to the plan's number of targets", () => {
  assert.deepEqual(fields(validateTargetList([], 3)), ['targets']);
  const four = ['a', 'b', 'c', 'd'].map((id): Target => ({ id, kind: 'text', selection: page }));
  assert.deepEqual(fields(validateTargetList(four, 3)), ['targets']);
  assert.deepEqual(fields(validateTargetList(four, 4)), []);
  assert.deepEqual(fields(validateTargetList(four.slice(0, 2), 1)), ['targets']);
});

test('target ids are unique within the list', () => {
  const list: Target[] = [
    { id: 'a', kind: 'text', selection: page },
    { id: 'a', kind: 'availability', selection: page },
  ];
  assert.deepEqual(fields(validateTargetList(list, 3)), ['targets[1].id']);
});

test('the list check includes each target check, once', () => {
  const list: Target[] = [{ id: 'p', kind: 'price', selection: page }];
  assert.deepEqual(validateTargetList(list, 3), [
    { field: 'targets[0].currency', message: 'currency (an ISO 4217 code) is required for price targets' },
  ]);
});
