import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_USER_AGENT } from '../../../src/fetch/loader/html-loader.ts';
import { startFixtureServer } from '../../helpers/fixture-server.ts';
import { useHtmlLoaderFixture } from '../../helpers/html-loader-fixture.ts';
import { pageText } from '../../../src/domain/page-source.ts';

// The html loader against the local fixture server (127.0.0.1, trusted like
// the test configuration does): pages, redirects, statuses, content types.

const fixture = useHtmlLoaderFixture();
const { load, withLoader } = fixture;

test('an HTML page loads with its text, status and no issues', async () => {
  const result = await load('/loader/plain.html');
  assert.equal(result.status, 200);
  assert.deepEqual(result.issues, []);
  assert.equal(result.finalUrl, `${fixture.url}/loader/plain.html`);
  assert.match(pageText(result.html ?? ''), /<h1 id="title">Plain page<\/h1>/);
  assert.match(pageText(result.html ?? ''), /€ 19,99/);
});

test('requests carry the pagewatch user agent and accept compressed bodies', async () => {
  const result = await load('/loader/echo-headers');
  const headers = JSON.parse(/<pre id="v">(.*)<\/pre>/s.exec(pageText(result.html ?? ''))?.[1] ?? '{}');
  assert.equal(headers['user-agent'], DEFAULT_USER_AGENT);
  assert.equal(headers['accept-encoding'], 'gzip, deflate, br');
  assert.match(headers.accept, /^text\/html/);
});

test('the user agent is configurable', async () => {
  await withLoader({ userAgent: 'custom-agent/1' }, async (custom) => {
    assert.match(pageText((await load('/loader/echo-headers', custom)).html ?? ''), /"user-agent":"custom-agent\/1"/);
  });
});

test('redirects are followed and finalUrl is the last URL', async () => {
  const result = await load('/loader/hops?n=3');
  assert.deepEqual(result.issues, []);
  assert.equal(result.finalUrl, `${fixture.url}/loader/hops?n=0`);
  assert.match(pageText(result.html ?? ''), /arrived/);
});

test('exactly five redirects are followed', async () => {
  const result = await load('/loader/hops?n=5');
  assert.deepEqual(result.issues, []);
  assert.equal(result.status, 200);
});

test('more than five redirects fail the load', async () => {
  const result = await load('/loader/hops?n=6');
  assert.equal(result.html, null);
  assert.equal(result.issues[0]?.code, 'fetch_failed');
  assert.match(result.issues[0]?.message ?? '', /more than 5 redirects/);
});

test('the redirect limit is configurable', async () => {
  await withLoader({ maxRedirects: 1 }, async (strict) => {
    assert.equal((await load('/loader/hops?n=2', strict)).issues[0]?.code, 'fetch_failed');
  });
});

test('a redirect to another scheme is blocked', async () => {
  const result = await load(`/loader/redirect?to=${encodeURIComponent('file:///etc/passwd')}`);
  assert.equal(result.issues[0]?.code, 'address_refused');
  assert.match(result.issues[0]?.message ?? '', /scheme file:/);
});

test('a 404 answer is an http_status issue without html', async () => {
  const result = await load('/loader/does-not-exist.html');
  assert.equal(result.status, 404);
  assert.equal(result.html, null);
  assert.deepEqual(result.issues, [{ target_id: null, code: 'http_status', message: 'the server answered HTTP 404' }]);
  assert.equal(result.retryAfterSeconds, undefined);
});

test('a 500 answer is an http_status issue', async () => {
  const result = await load('/loader/server-error');
  assert.equal(result.status, 500);
  assert.equal(result.issues[0]?.code, 'http_status');
});

test('a 429 answer sets retryAfterSeconds from delta seconds', async () => {
  const result = await load('/loader/rate-limited');
  assert.equal(result.status, 429);
  assert.equal(result.issues[0]?.code, 'http_status');
  assert.equal(result.retryAfterSeconds, 120);
});

test('a 503 answer sets retryAfterSeconds from an HTTP date', async () => {
  const result = await load('/loader/unavailable');
  assert.equal(result.status, 503);
  assert.ok(result.retryAfterSeconds !== undefined && result.retryAfterSeconds >= 85 && result.retryAfterSeconds <= 91);
});

test('an image is not_html', async () => {
  const result = await load('/loader/png');
  assert.equal(result.status, 200);
  assert.equal(result.html, null);
  assert.deepEqual(result.issues, [{ target_id: null, code: 'not_html', message: 'the content type image/png is not HTML, JSON or PDF' }]);
});

test('a PDF is read as a document of format pdf, its bytes kept for the extraction threads', async () => {
  const result = await load('/loader/pdf');
  assert.deepEqual(result.issues, []);
  assert.equal(typeof result.html === 'object' && result.html?.format, 'pdf');
});

test('a JSON answer (also a +json type) is read as a document of format json', async () => {
  const result = await load('/loader/json');
  assert.deepEqual(result.issues, []);
  assert.equal(typeof result.html === 'object' && result.html?.format, 'json');
});

test('an answer without content type is sniffed as HTML when it looks like HTML', async () => {
  const result = await load('/loader/untyped-html');
  assert.deepEqual(result.issues, []);
  assert.match(pageText(result.html ?? ''), /decoded fine/);
});

test('an answer without content type that is not HTML is not_html', async () => {
  assert.equal((await load('/loader/untyped-binary')).issues[0]?.code, 'not_html');
});

test('a refused connection is fetch_failed', async () => {
  const closed = await startFixtureServer();
  const url = `${closed.url}/`;
  await closed.close();
  const result = await fixture.loader.load({ url, mode: 'html' });
  assert.equal(result.status, null);
  assert.equal(result.issues[0]?.code, 'fetch_failed');
  assert.match(result.issues[0]?.message ?? '', /ECONNREFUSED/);
});
