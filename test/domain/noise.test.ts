import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { ignorePatternProblems, linksNotIgnored, withoutIgnored } from '../../src/domain/noise.ts';
import { targetFingerprint } from '../../src/domain/target-fingerprint.ts';
import { validateTarget } from '../../src/domain/target-rules.ts';
import type { Target } from '../../src/domain/targets.ts';

const TEXT: Target = { id: 'note', kind: 'text', selection: { scope: 'page' } };

test('literal ignore text is removed as written; expressions match case-insensitively', () => {
  assert.equal(withoutIgnored('Price (3 left) now', [{ text: '(3 left)' }]), 'Price  now');
  assert.equal(withoutIgnored('Viewed by 12 People', [{ regex: '\\d+ people' }]), 'Viewed by ');
  assert.equal(withoutIgnored('unchanged', undefined), 'unchanged');
});

test('links matching a pattern are dropped', () => {
  assert.deepEqual(linksNotIgnored(['https://a.example/x?utm=1', 'https://a.example/y'], [{ regex: 'utm=' }]), ['https://a.example/y']);
});

test('expressions that can backtrack catastrophically are refused with a reason', () => {
  for (const regex of ['(a+)+$', '(x|x)*y', '(\\w+)\\1', '(?=a)b', '(?<!a)b', '(a|ab)+c']) {
    const problems = ignorePatternProblems([{ regex }], 'targets[0].ignore');
    assert.equal(problems.length, 1, regex);
    assert.equal(problems[0]?.field, 'targets[0].ignore[0].regex');
  }
  assert.match(ignorePatternProblems([{ regex: '(' }], 'i')[0]?.message ?? '', /not a valid regular expression/);
  assert.deepEqual(
    ignorePatternProblems([{ regex: '\\d{2}:\\d{2}' }, { text: '(a+)+' }], 'i'),
    [],
    'safe expressions and any literal text pass',
  );
});

test('ignore is a field of text and links targets only', () => {
  const price: Target = { id: 'p', kind: 'price', selection: { scope: 'page' }, currency: 'EUR', ignore: [{ text: 'x' }] };
  assert.deepEqual(
    validateTarget(price, 0).map((d) => d.field),
    ['targets[0].ignore'],
  );
  assert.deepEqual(validateTarget({ ...TEXT, ignore: [{ text: 'x' }] }, 0), []);
  assert.deepEqual(
    validateTarget({ ...TEXT, ignore: [{ regex: '(a+)+' }] }, 0).map((d) => d.field),
    ['targets[0].ignore[0].regex'],
  );
});

test('ignore patterns are part of what a target observes; a target without them keeps its fingerprint', () => {
  const plain = targetFingerprint(TEXT, 'html');
  assert.equal(targetFingerprint({ ...TEXT, ignore: [] }, 'html'), plain);
  assert.equal(targetFingerprint({ ...TEXT, confirm: true }, 'html'), plain, 'confirm changes when alerts go out, not what is observed');
  assert.notEqual(targetFingerprint({ ...TEXT, ignore: [{ text: 'x' }] }, 'html'), plain);
  const before = createHash('sha256')
    .update(JSON.stringify(['html', 'text', 'page', '', '', '']))
    .digest('hex')
    .slice(0, 32);
  assert.equal(plain, before, 'the fingerprint stored before ignore patterns existed, so no baseline is reseeded on upgrade');
});
