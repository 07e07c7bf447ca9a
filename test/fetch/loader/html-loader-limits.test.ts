import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useHtmlLoaderFixture } from '../../helpers/html-loader-fixture.ts';
import { signal } from '../../helpers/signal.ts';
import { pageText } from '../../../src/domain/page-source.ts';

// What a page load may cost (DESIGN §5): deadlines, body size, compression.

const fixture = useHtmlLoaderFixture();
const { load, withLoader } = fixture;

test('a page whose headers never come times out at the overall deadline', async () => {
  const closed = signal();
  let answered = true;
  fixture.route('/loader/never-answers', (req, res) => {
    req.once('close', () => {
      answered = res.headersSent;
      closed.resolve();
    });
  });
  const result = await withLoader({ timeoutMs: 1000 }, (l) => load('/loader/never-answers', l));
  assert.equal(result.issues[0]?.code, 'timeout');
  assert.match(result.issues[0]?.message ?? '', /within 1000 ms/);
  // The deadline cut the load: the server saw the connection closed while it still had not answered.
  await closed.promise;
  assert.equal(answered, false);
});

test('a page whose body never ends times out at the overall deadline', async () => {
  const result = await withLoader({ timeoutMs: 1000 }, (l) => load('/loader/slow-body', l));
  assert.equal(result.status, 200);
  assert.equal(result.html, null);
  assert.equal(result.issues[0]?.code, 'timeout');
});

test('a server that stops sending hits the read timeout', async () => {
  const result = await withLoader({ readTimeoutMs: 500 }, (l) => load('/loader/slow-headers', l));
  assert.equal(result.issues[0]?.code, 'timeout');
  assert.match(result.issues[0]?.message ?? '', /UND_ERR_HEADERS_TIMEOUT/);
});

test('a caller abort ends the load as fetch_failed, not timeout', async () => {
  const controller = new AbortController();
  setTimeout(() => controller.abort(new Error('shutting down')), 200);
  const result = await fixture.loader.load({ url: `${fixture.url}/loader/slow-headers`, mode: 'html', signal: controller.signal });
  assert.equal(result.issues[0]?.code, 'fetch_failed');
});

test('a page larger than 5 MiB is too_large', async () => {
  const result = await load(`/loader/huge?bytes=${6 * 1024 * 1024}`);
  assert.equal(result.html, null);
  assert.deepEqual(result.issues, [{ target_id: null, code: 'too_large', message: 'the page is larger than 5242880 bytes' }]);
});

test('a page just under 5 MiB loads', async () => {
  const result = await load(`/loader/huge?bytes=${5 * 1024 * 1024 - 1024}`);
  assert.deepEqual(result.issues, []);
  assert.equal(pageText(result.html ?? '').length, 5 * 1024 * 1024 - 1024);
});

test('the body limit is configurable', async () => {
  const result = await withLoader({ maxBodyBytes: 10_000 }, (l) => load('/loader/huge?bytes=20000', l));
  assert.equal(result.issues[0]?.code, 'too_large');
});

test('gzip, br and deflate (zlib and raw) bodies are decoded', async () => {
  for (const path of ['/loader/gzip', '/loader/br', '/loader/deflate', '/loader/deflate-raw']) {
    const result = await load(path);
    assert.deepEqual(result.issues, [], path);
    assert.match(pageText(result.html ?? ''), /<p id="v">decoded fine<\/p>/, path);
  }
});

test('an unknown content encoding is fetch_failed', async () => {
  const result = await load('/loader/zstd');
  assert.equal(result.issues[0]?.code, 'fetch_failed');
  assert.match(result.issues[0]?.message ?? '', /unsupported content-encoding "zstd"/);
});

test('a gzip bomb (1 GiB decoded) is cut off as too_large', async () => {
  const before = process.memoryUsage().rss;
  const result = await load('/loader/gzip-bomb');
  assert.equal(result.issues[0]?.code, 'too_large');
  assert.ok(process.memoryUsage().rss - before < 200 * 1024 * 1024, 'decoding stayed bounded');
});

test('a brotli bomb is cut off as too_large', async () => {
  assert.equal((await load('/loader/br-bomb')).issues[0]?.code, 'too_large');
});

test('a deflate bomb is cut off as too_large', async () => {
  assert.equal((await load('/loader/deflate-bomb')).issues[0]?.code, 'too_large');
});
