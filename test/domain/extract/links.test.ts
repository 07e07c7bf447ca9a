import { test } from 'node:test';
import assert from 'node:assert/strict';
import { extractTarget, MAX_LINKS } from '../../../src/domain/extract/extract-target.ts';
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

test('at most ten links are returned', () => {
  const html = Array.from({ length: 15 }, (_, i) => `<a href="/p/${String(i).padStart(2, '0')}">x</a>`).join('');
  const value = extractTarget(page(html), links()).value as string[];
  assert.equal(value.length, MAX_LINKS);
  assert.equal(value[0], 'https://shop.example/p/00');
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
