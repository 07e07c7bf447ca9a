import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { MatcherInput } from 're2js';
import { ignoreExpression, ignorePatternProblems, linksNotIgnored, withoutIgnored } from '../../src/domain/noise.ts';
import { targetFingerprint } from '../../src/domain/target-fingerprint.ts';
import { validateTarget } from '../../src/domain/target-rules.ts';
import type { Target } from '../../src/domain/targets.ts';

const TEXT: Target = { id: 'note', kind: 'text', selection: { scope: 'page' } };

test('literal ignore text is removed as written; expressions match case-insensitively', () => {
  assert.equal(withoutIgnored('Price (3 left) now', [{ text: '(3 left)' }]), 'Price now');
  assert.equal(withoutIgnored('Viewed by 12 People', [{ regex: '\\d+ people' }]), 'Viewed by');
  assert.equal(withoutIgnored('Viewed by 12 People', [{ text: '12 people' }]), 'Viewed by 12 People', 'literal text keeps its case');
  assert.equal(withoutIgnored('unchanged', undefined), 'unchanged');
});

test('links matching a pattern are dropped', () => {
  assert.deepEqual(linksNotIgnored(['https://a.example/x?utm=1', 'https://a.example/y'], [{ regex: 'utm=' }]), ['https://a.example/y']);
});

test('backreferences and lookaround are refused with a reason, as RE2 syntax has neither', () => {
  for (const [regex, reason] of [
    ['(\\w+)\\1', /backreferences/],
    ['(?<w>a)\\k<w>', /backreferences/],
    ['(?=a)b', /lookahead and lookbehind/],
    ['(?<!a)b', /lookahead and lookbehind/],
  ] as const) {
    const problems = ignorePatternProblems([{ regex }], 'targets[0].ignore');
    assert.equal(problems.length, 1, regex);
    assert.equal(problems[0]?.field, 'targets[0].ignore[0].regex');
    assert.match(problems[0]?.message ?? '', reason);
  }
  assert.match(ignorePatternProblems([{ regex: '(' }], 'i')[0]?.message ?? '', /not a valid regular expression/);
  assert.deepEqual(
    ignorePatternProblems([{ regex: '\\d{2}:\\d{2}' }, { regex: '(?<h>\\d+)h' }, { text: '(a+)+' }], 'i'),
    [],
    'plain expressions, JavaScript named groups and any literal text pass',
  );
});

// The patterns that ran a thread's whole 10 s budget on a backtracking engine.
// Each with a text that makes a backtracking engine try every split of it, and the characters a match removes there.
const DANGEROUS: readonly { regex: string; text: (size: number) => string; removes: number }[] = [
  { regex: '((a)|a)+$', text: (size) => `${'a'.repeat(size)}!`, removes: 0 },
  { regex: '(a|(a))+$', text: (size) => `${'a'.repeat(size)}!`, removes: 0 },
  { regex: '(?:(?:a)|(?:a))+$', text: (size) => `${'a'.repeat(size)}!`, removes: 0 },
  { regex: 'a*a*a*a*a*a*a*a*!x', text: (size) => `x${'a'.repeat(size)}`, removes: 0 },
  { regex: '.*.*.*.*.*.*.*.*x', text: (size) => `x\n${'a'.repeat(size)}`, removes: 1 },
  { regex: '[\\s\\S]*x', text: (size) => `x${'a'.repeat(size)}`, removes: 1 },
  { regex: '(a+)+$', text: (size) => `${'a'.repeat(size)}!`, removes: 0 },
];

test('nested quantifiers and repeated alternatives are accepted: no pattern can backtrack', () => {
  for (const { regex } of DANGEROUS) assert.deepEqual(ignorePatternProblems([{ regex }], 'i'), [], regex);
});

test('a pattern reads each character of the text a bounded number of times, however the pattern nests', () => {
  // Characters read while removing matches, counted per character of text: a backtracking engine re-reads the text
  // for every way of splitting it, so its count grows with the text; a linear one stays the same at any size.
  let reads = 0;
  class CountedText extends String {
    override charCodeAt(index: number): number {
      reads += 1;
      return super.charCodeAt(index);
    }
  }
  for (const { regex, text } of DANGEROUS) {
    const perCharacter = [1_000, 16_000].map((size) => {
      reads = 0;
      const input = MatcherInput.utf16(new CountedText(text(size)));
      ignoreExpression({ regex }).matcher(input).replaceAll('');
      return reads / size;
    });
    assert.ok(
      perCharacter.every((count) => count > 0 && count <= 16),
      `${regex}: ${perCharacter.join(', ')} reads a character`,
    );
  }
});

test('the dangerous patterns complete over a long page text, [\\s\\S]*x over 4.9 MB', () => {
  for (const { regex, text, removes } of DANGEROUS) {
    const page = text(regex === '[\\s\\S]*x' ? 4_900_000 : 100_000);
    assert.equal(withoutIgnored(page, [{ regex }]).length, page.length - removes, regex);
  }
});

test('an ignored part takes the punctuation that only framed it along', () => {
  const viewing = [{ regex: '\\d+ people viewing' }];
  assert.equal(withoutIgnored('Sale ends soon (5 people viewing)', viewing), 'Sale ends soon');
  assert.equal(withoutIgnored('Sale ends soon [5 people viewing] today', viewing), 'Sale ends soon today');
  assert.equal(withoutIgnored('Posted 3 min ago · 12 people viewing · Share', viewing), 'Posted 3 min ago · Share');
  assert.equal(withoutIgnored('5 people viewing | In stock', viewing), 'In stock');
  assert.equal(withoutIgnored('In stock, 5 people viewing', viewing), 'In stock');
  assert.equal(withoutIgnored('Popular with 5 people viewing.', viewing), 'Popular with.');
  assert.equal(withoutIgnored('Line one\n(5 people viewing)\nLine two', viewing), 'Line one\n\nLine two');
  assert.equal(withoutIgnored('token=ab12cd', [{ regex: '\\d+' }]), 'token=abcd', 'a part cut from inside a word leaves no gap');
  assert.equal(
    withoutIgnored('Price: (see below)', [{ text: 'see below' }]),
    'Price',
    'brackets emptied go, then the separator left at the line end',
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
    validateTarget({ ...TEXT, ignore: [{ regex: '(a)\\1' }] }, 0).map((d) => d.field),
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

test('where an ignored part stood between two different separators the first stays, and one before closing punctuation goes', () => {
  const green = [{ text: 'Green' }];
  assert.equal(withoutIgnored('Colours: Green; Blue', green), 'Colours: Blue');
  assert.equal(withoutIgnored('Red | Green, Blue', green), 'Red | Blue');
  assert.equal(withoutIgnored('Sale: 12 left, hurry', [{ regex: '\\d+ left' }]), 'Sale: hurry');
  assert.equal(withoutIgnored('Red, Green and Blue, Green.', green), 'Red, and Blue.');
  assert.equal(withoutIgnored('In stock: Green!', green), 'In stock!');
});
