import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createBrowserLoader } from '../../../src/fetch/loader/browser-loader.ts';
import type { PageLoader } from '../../../src/fetch/loader/types.ts';
import { startFixtureServer, type FixtureServer } from '../../helpers/fixture-server.ts';
import { pageText } from '../../../src/domain/page-source.ts';

// Real Chromium against the local fixture server; one loader (one browser) for
// the whole file. The policy trusts loopback so the fixture server is reachable.
const policy = { allowPorts: [80, 443], trustedCidrs: ['127.0.0.0/8'] };

describe('browser loader', () => {
  let site: FixtureServer;
  let loader: PageLoader;

  before(async () => {
    site = await startFixtureServer({
      '/cookie': (req, res) => {
        res.writeHead(200, { 'content-type': 'text/html', 'set-cookie': 'visited=yes; Path=/; Max-Age=3600' });
        res.end(`<html><body><p id="seen">${req.headers.cookie ?? 'no cookie'}</p></body></html>`);
      },
      '/missing': (_req, res) => void res.writeHead(404, { 'content-type': 'text/html' }).end('<p>gone</p>'),
      '/throttled': (_req, res) => void res.writeHead(429, { 'content-type': 'text/html', 'retry-after': '120' }).end('<p>slow down</p>'),
      '/plain': (_req, res) => void res.writeHead(200, { 'content-type': 'text/plain' }).end('just text'),
      '/hop': (_req, res) => void res.writeHead(302, { location: '/js/inserted.html' }).end(),
      '/undeclared-utf8': (_req, res) =>
        void res.writeHead(200, { 'content-type': 'text/html' }).end(Buffer.from('<p id="price">Preis: 12,50 €</p>', 'utf8')),
      '/undeclared-latin1': (_req, res) =>
        void res.writeHead(200, { 'content-type': 'text/html' }).end(Buffer.from('<p id="name">Café crème</p>', 'latin1')),
    });
    loader = createBrowserLoader({ policy, settleMs: 3000, timeoutMs: 20_000 });
  });

  after(async () => {
    await loader?.close();
    await site?.close();
  });

  it('sees content inserted by JavaScript, which the raw HTML lacks', async () => {
    const raw = await (await fetch(`${site.url}/js/inserted.html`)).text();
    assert.ok(!raw.includes('42 widgets in stock'));

    const result = await loader.load({ url: `${site.url}/js/inserted.html`, mode: 'browser' });
    assert.deepEqual(result.issues, []);
    assert.equal(result.status, 200);
    assert.equal(result.finalUrl, `${site.url}/js/inserted.html`);
    assert.match(pageText(result.html ?? ''), /<div id="app">Inserted by JavaScript: 42 widgets in stock<\/div>/);
  });

  it('reads a page that declares no encoding in the encoding html mode reads it: valid UTF-8 as UTF-8, else windows-1252', async () => {
    const utf8 = await loader.load({ url: `${site.url}/undeclared-utf8`, mode: 'browser' });
    assert.deepEqual(utf8.issues, []);
    assert.match(pageText(utf8.html ?? ''), /<p id="price">Preis: 12,50 €<\/p>/);
    const latin1 = await loader.load({ url: `${site.url}/undeclared-latin1`, mode: 'browser' });
    assert.match(pageText(latin1.html ?? ''), /<p id="name">Café crème<\/p>/);
  });

  it('follows redirects and reports the final URL', async () => {
    const result = await loader.load({ url: `${site.url}/hop`, mode: 'browser' });
    assert.deepEqual(result.issues, []);
    assert.equal(result.finalUrl, `${site.url}/js/inserted.html`);
  });

  it('starts every load without the cookies of the previous one', async () => {
    const first = await loader.load({ url: `${site.url}/cookie`, mode: 'browser' });
    const second = await loader.load({ url: `${site.url}/cookie`, mode: 'browser' });
    assert.match(pageText(first.html ?? ''), /<p id="seen">no cookie<\/p>/);
    assert.match(pageText(second.html ?? ''), /<p id="seen">no cookie<\/p>/);
  });

  it('does not download images, media or fonts, but does load stylesheets', async () => {
    const result = await loader.load({ url: `${site.url}/js/resources.html`, mode: 'browser' });
    assert.deepEqual(result.issues, []);
    assert.match(pageText(result.html ?? ''), /<h1>Resources<\/h1>/);
    assert.equal(site.hits.get('/js/style.css'), 1);
    for (const path of ['/js/pixel.png', '/js/background.png', '/js/clip.mp4', '/js/sound.mp3', '/js/font.woff2']) {
      assert.equal(site.hits.get(path), undefined, `${path} was requested`);
    }
  });

  it('refuses a WebSocket opened by the page', async () => {
    let upgrades = 0;
    let connections = 0;
    const sockets: Server = createServer((_req, res) => res.end());
    sockets.on('connection', () => (connections += 1));
    sockets.on('upgrade', (_req, socket) => {
      upgrades += 1;
      socket.destroy();
    });
    await new Promise<void>((resolve) => sockets.listen(0, '127.0.0.1', resolve));
    const wsPort = (sockets.address() as AddressInfo).port;
    try {
      const url = `${site.url}/js/websocket.html?ws=${encodeURIComponent(`ws://127.0.0.1:${wsPort}/socket`)}`;
      const result = await loader.load({ url, mode: 'browser' });
      assert.deepEqual(result.issues, []);
      assert.doesNotMatch(pageText(result.html ?? ''), /<p id="state">(open|pending)<\/p>/);
      assert.equal(upgrades, 0);
      assert.equal(connections, 0);
    } finally {
      sockets.closeAllConnections();
      await new Promise<void>((resolve) => sockets.close(() => resolve()));
    }
  });

  it('reports HTTP errors with Retry-After, and non-HTML pages', async () => {
    const missing = await loader.load({ url: `${site.url}/missing`, mode: 'browser' });
    assert.equal(missing.status, 404);
    assert.equal(missing.html, null);
    assert.deepEqual(
      missing.issues.map((i) => [i.code, i.target_id]),
      [['http_status', null]],
    );

    const throttled = await loader.load({ url: `${site.url}/throttled`, mode: 'browser' });
    assert.equal(throttled.status, 429);
    assert.equal(throttled.retryAfterSeconds, 120);
    assert.equal(throttled.issues[0]?.code, 'http_status');

    const plain = await loader.load({ url: `${site.url}/plain`, mode: 'browser' });
    assert.equal(plain.issues[0]?.code, 'not_html');
    assert.equal(plain.html, null);
  });

  it('reports a refused connection as fetch_failed', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));

    const result = await loader.load({ url: `http://127.0.0.1:${port}/`, mode: 'browser' });
    assert.equal(result.status, null);
    assert.equal(result.html, null);
    assert.equal(result.issues[0]?.code, 'fetch_failed');
  });

  it('refuses URLs that are not http or https before starting a page', async () => {
    for (const url of ['file:///etc/passwd', 'chrome://version', 'javascript:alert(1)']) {
      const result = await loader.load({ url, mode: 'browser' });
      assert.deepEqual(
        result.issues.map((i) => i.code),
        ['address_refused'],
        url,
      );
    }
  });
});
