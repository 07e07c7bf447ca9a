import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHtmlLoader } from '../../../src/fetch/loader/html-loader.ts';
import type { PageLoader } from '../../../src/fetch/loader/types.ts';
import { startFixtureServer, type FixtureServer } from '../../helpers/fixture-server.ts';
import { loopbackPolicy } from '../../helpers/html-loader-fixture.ts';
import { serveValidatingPage } from '../../helpers/validating-page.ts';

// Conditional requests of the html loader (issue #41): a page read whole
// reports its validators; sent back, they become If-None-Match /
// If-Modified-Since, and a 304 is "not modified", not an HTTP error.

let site: FixtureServer;
let loader: PageLoader;
before(async () => {
  site = await startFixtureServer();
  loader = createHtmlLoader({ policy: loopbackPolicy });
});
after(async () => {
  await loader.close();
  await site.close();
});

test('a page read whole reports its ETag and Last-Modified', async () => {
  const page = serveValidatingPage(site);
  const result = await loader.load({ url: page.url, mode: 'html' });
  assert.equal(result.status, 200);
  assert.notEqual(result.html, null);
  assert.deepEqual(result.validators, { etag: '"v1"', lastModified: 'Thu, 01 Jan 2026 00:00:01 GMT' });
  assert.deepEqual(page.requests, [{ 'if-none-match': undefined, 'if-modified-since': undefined }]);
});

test('a page without validators reports null', async () => {
  site.route('/no-validators.html', (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<p>plain</p>');
  });
  const result = await loader.load({ url: `${site.url}/no-validators.html`, mode: 'html' });
  assert.equal(result.validators, null);
});

test('the validators are sent back as If-None-Match and If-Modified-Since; a 304 is notModified with no body and no issue', async () => {
  const page = serveValidatingPage(site);
  const { validators } = await loader.load({ url: page.url, mode: 'html' });
  const again = await loader.load({ url: page.url, mode: 'html', validators: validators! });
  assert.deepEqual(page.requests[1], { 'if-none-match': '"v1"', 'if-modified-since': 'Thu, 01 Jan 2026 00:00:01 GMT' });
  assert.equal(again.status, 304);
  assert.equal(again.notModified, true);
  assert.equal(again.html, null);
  assert.deepEqual(again.issues, []);
});

test('a changed page answers the conditional request with 200, read whole with its new validators', async () => {
  const page = serveValidatingPage(site);
  const { validators } = await loader.load({ url: page.url, mode: 'html' });
  page.setPage({ title: 'Espresso Trio' });
  const changed = await loader.load({ url: page.url, mode: 'html', validators: validators! });
  assert.equal(changed.status, 200);
  assert.equal(changed.notModified, undefined);
  assert.notEqual(changed.html, null);
  assert.equal(changed.validators?.etag, '"v2"');
});

test('Last-Modified alone is sent as If-Modified-Since', async () => {
  const page = serveValidatingPage(site, { lastModifiedOnly: true });
  const { validators } = await loader.load({ url: page.url, mode: 'html' });
  assert.deepEqual(validators, { etag: null, lastModified: 'Thu, 01 Jan 2026 00:00:01 GMT' });
  const again = await loader.load({ url: page.url, mode: 'html', validators: validators });
  assert.deepEqual(page.requests[1], { 'if-none-match': undefined, 'if-modified-since': 'Thu, 01 Jan 2026 00:00:01 GMT' });
  assert.equal(again.notModified, true);
});

test('a 304 to a request that sent no validators is still an http_status issue', async () => {
  site.route('/always-304.html', (_req, res) => {
    res.writeHead(304);
    res.end();
  });
  const result = await loader.load({ url: `${site.url}/always-304.html`, mode: 'html' });
  assert.equal(result.notModified, undefined);
  assert.deepEqual(
    result.issues.map((i) => i.code),
    ['http_status'],
  );
});
