import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { blockedReason, readsDocument, SCREENED_CHARS, type BlockEvidence } from '../../src/domain/blocked-page.ts';
import { loadRealPages } from '../../scripts/realpages-eval.ts';

const WALLS = resolve(import.meta.dirname, '../fixtures/site/walls');
const page = (name: string): string => readFileSync(join(WALLS, name), 'utf8');
const evidence = (html: string, status: number | null, cfMitigated: string | null = null): BlockEvidence => ({
  status,
  cfMitigated,
  head: html.slice(0, SCREENED_CHARS),
  length: html.length,
});

const WALL_PAGES: [string, number, RegExp][] = [
  ['cloudflare-challenge.html', 403, /Cloudflare challenge/],
  ['cloudflare-block.html', 403, /Cloudflare block/],
  ['akamai-denied.html', 403, /Akamai/],
  ['datadome-captcha.html', 403, /DataDome/],
  ['perimeterx-block.html', 403, /PerimeterX/],
  ['recaptcha-wall.html', 429, /captcha page/],
  ['hcaptcha-wall.html', 503, /captcha page/],
  ['checking-browser.html', 503, /bot check/],
];

test('the challenge and block pages of the common walls are blocked when served with 403, 429 or 503', () => {
  for (const [name, status, reason] of WALL_PAGES) assert.match(blockedReason(evidence(page(name), status)) ?? 'not blocked', reason, name);
});

test('the same walls served with 200 are blocked too: a captcha or "checking your browser" page is never content', () => {
  for (const [name, , reason] of WALL_PAGES) assert.match(blockedReason(evidence(page(name), 200)) ?? 'not blocked', reason, name);
});

test('a cf-mitigated challenge header blocks whatever the body, even without one', () => {
  assert.match(blockedReason({ status: 403, cfMitigated: 'challenge', head: '', length: 0 }) ?? '', /cf-mitigated: challenge/);
  assert.match(blockedReason(evidence('<p>ok</p>', 200, 'Challenge')) ?? '', /Cloudflare challenge/);
});

test('an error status without a wall marker stays an ordinary error, not blocked', () => {
  const maintenance =
    '<html><head><title>Service Unavailable</title></head><body><h1>Back soon</h1><p>We are updating the shop.</p></body></html>';
  assert.equal(blockedReason(evidence(maintenance, 503)), null);
  assert.equal(blockedReason(evidence('', 429)), null);
  assert.equal(blockedReason(evidence(page('cloudflare-challenge.html'), 404)), null, 'only 403, 429 and 503 are read as walls');
});

test('a small page whose contact form loads reCAPTCHA and mentions verification is not blocked', () => {
  assert.equal(blockedReason(evidence(page('contact-form-recaptcha.html'), 200)), null);
});

test('a long page with a wall marker among its content is content, not a wall', () => {
  const article = `<p>${'A long review of espresso machines with prices and opinions. '.repeat(200)}</p>`;
  const html = page('perimeterx-block.html').replace('</section></body>', `${article}</section></body>`);
  assert.equal(blockedReason(evidence(html, 200)), null);
  const huge = `${page('cloudflare-challenge.html')}<!--${'x'.repeat(SCREENED_CHARS)}-->`;
  assert.equal(blockedReason(evidence(huge, 200)), null, 'a document longer than what is screened is not a wall page');
});

test('no real shop page of the corpus is classified blocked in html mode', () => {
  const pages = loadRealPages(resolve(import.meta.dirname, '../corpora/realpages'));
  assert.equal(pages.length, 47);
  const blocked = pages
    .map((p) => ({ url: p.url, reason: blockedReason(evidence(p.html.toString('utf8'), 200)) }))
    .filter((p) => p.reason !== null);
  assert.deepEqual(blocked, []);
});

test('no product page of the availability corpus or the fixture shop is classified blocked', () => {
  const dirs = [resolve(import.meta.dirname, '../corpora/availability'), resolve(import.meta.dirname, '../fixtures/site/shop')];
  const files = dirs.flatMap((dir) =>
    readdirSync(dir)
      .filter((f) => f.endsWith('.html'))
      .map((f) => join(dir, f)),
  );
  assert.ok(files.length > 20);
  const blocked = files.filter((file) => blockedReason(evidence(readFileSync(file, 'utf8'), 200)) !== null);
  assert.deepEqual(blocked, []);
});

test('the document is not read for a 2xx page larger than the screened part, nor for an error other than the wall statuses', () => {
  assert.equal(readsDocument({ status: 200, length: SCREENED_CHARS + 1 }), false);
  assert.equal(readsDocument({ status: 404, length: 100 }), false);
  assert.equal(readsDocument({ status: 200, length: SCREENED_CHARS }), true);
  assert.equal(readsDocument({ status: null, length: 100 }), true);
  assert.equal(readsDocument({ status: 403, length: SCREENED_CHARS * 4 }), true);
});
