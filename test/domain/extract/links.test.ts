import { test } from 'node:test';
import assert from 'node:assert/strict';
import { evaluationAnswer, extractTarget } from '../../../src/domain/extract/extract-target.ts';
import { MAX_LINKS } from '../../../src/domain/extract/target-extraction.ts';
import { MAX_WATCHED_LINKS } from '../../../src/domain/plans.ts';
import { detectChange } from '../../../src/domain/rules.ts';
import type { Target } from '../../../src/domain/targets.ts';
import { page, selector } from './helpers.ts';

const links = (fields: Partial<Target> = {}): Target => ({ id: 'l', kind: 'links', selection: { scope: 'page' }, ...fields });

test('links are absolute, resolved against the final URL', () => {
  const result = extractTarget(page('<a href="/jobs/1">1</a><a href="2">2</a>', 'https://example.com/careers/list'), links());
  assert.deepEqual(result.value, ['https://example.com/careers/2', 'https://example.com/jobs/1']);
  assert.deepEqual(result.links, result.value);
});

test('a <base href> changes what relative links resolve against', () => {
  const result = extractTarget(page('<head><base href="https://cdn.example/app/"></head><a href="x">x</a>'), links());
  assert.deepEqual(result.value, ['https://cdn.example/app/x']);
});

test('only http and https links count', () => {
  const html =
    '<a href="mailto:a@b.c">m</a><a href="javascript:void(0)">j</a><a href="ftp://f.example/">f</a><a href="https://ok.example/">ok</a>';
  assert.deepEqual(extractTarget(page(html), links()).value, ['https://ok.example/']);
});

test('links are de-duplicated ignoring fragments, and sorted', () => {
  const html = '<a href="/b">b</a><a href="/a#top">a</a><a href="/a">a</a>';
  assert.deepEqual(extractTarget(page(html), links()).value, ['https://shop.example/a', 'https://shop.example/b']);
});

test('match keeps only links containing the substring', () => {
  const html = '<a href="/jobs/1">1</a><a href="/about">a</a>';
  assert.deepEqual(extractTarget(page(html), links({ match: '/jobs/' })).value, ['https://shop.example/jobs/1']);
});

const numbered = (count: number, prefix = '/p/') =>
  Array.from({ length: count }, (_, i) => `<a href="${prefix}${String(i).padStart(4, '0')}">x</a>`).join('');

test('a links target watches every link of its selection, not only the first ten', () => {
  const result = extractTarget(page(numbered(30)), links());
  const value = result.value as string[];
  assert.equal(value.length, 30);
  assert.equal(value[29], 'https://shop.example/p/0029');
  assert.deepEqual(result.links, value.slice(0, MAX_LINKS), 'links lists the first ten for people');
});

test(`a links target watches up to ${MAX_WATCHED_LINKS} links; past that it is a links_too_many issue, not a part of them`, () => {
  assert.equal((extractTarget(page(numbered(MAX_WATCHED_LINKS)), links()).value as string[]).length, MAX_WATCHED_LINKS);
  const over = extractTarget(page(numbered(MAX_WATCHED_LINKS + 1)), links());
  assert.deepEqual([over.ok, over.value, over.issues[0]?.code], [false, null, 'links_too_many']);
  assert.match(over.issues[0]!.message, /1001 links, more than the 1000/);
});

test('an evaluate answer shows at most ten links, in value, links and display', () => {
  const answer = evaluationAnswer(extractTarget(page(numbered(30)), links()));
  assert.equal((answer.value as string[]).length, MAX_LINKS);
  assert.deepEqual(answer.links, answer.value);
  assert.equal(answer.display?.split('\n').length, MAX_LINKS);
  assert.equal('text' in answer, false);
});

test('a new link sorting after the tenth is a new link, and one sorting first pushes none out', () => {
  const target = links({ rule: 'new_links' });
  const before = extractTarget(page(numbered(30)), target).value as string[];
  const late = extractTarget(page(numbered(30) + '<a href="/p/9999">x</a>'), target).value as string[];
  const lateDecision = detectChange(target, before, late);
  assert.equal(lateDecision.outcome, 'changed');
  assert.deepEqual(lateDecision.newlySeenLinks, ['https://shop.example/p/9999']);
  assert.deepEqual(lateDecision.outcome === 'changed' && lateDecision.ruleMatches, [{ target_id: 'l', rule: 'new_links' }]);

  const early = extractTarget(page('<a href="/a/first">x</a>' + numbered(30)), target).value as string[];
  assert.deepEqual(
    before.filter((url) => !early.includes(url)),
    [],
    'no watched link is gone',
  );
  assert.deepEqual(detectChange(target, before, early).newlySeenLinks, ['https://shop.example/a/first']);
});

test('a links selector may match several elements; links are gathered from all', () => {
  const html = '<ul class="l"><li><a href="/a">a</a></li></ul><ul class="l"><li><a href="/b">b</a></li></ul>';
  assert.deepEqual(extractTarget(page(html), links({ selection: selector('ul.l') })).value, [
    'https://shop.example/a',
    'https://shop.example/b',
  ]);
});

test('no matching link is a links_missing issue', () => {
  const result = extractTarget(page('<a href="/about">a</a>'), links({ match: '/jobs/' }));
  assert.deepEqual([result.ok, result.issues[0]!.code], [false, 'links_missing']);
});
