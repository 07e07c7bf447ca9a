import type { IncomingMessage, ServerResponse } from 'node:http';
import { brotliCompressSync, constants, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import type { FixtureRoute } from './fixture-server.ts';

// Dynamic fixture routes for page-loader tests, to pass to startFixtureServer:
//   const server = await startFixtureServer(loaderRoutes());
// Paths are under /loader/; static pages live in test/fixtures/site/loader/.

const PAGE = '<!doctype html><html><head><title>Encoded</title></head><body><p id="v">decoded fine</p></body></html>';
const MiB = 1024 * 1024;

function query(req: IncomingMessage, name: string): string | null {
  return new URL(req.url ?? '/', 'http://fixture').searchParams.get(name);
}

function html(res: ServerResponse, body: Buffer | string, headers: Record<string, string> = {}): void {
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', ...headers });
  res.end(body);
}

/** Keeps the request open, writing `chunk` every `everyMs` until the client goes away. */
function drip(res: ServerResponse, chunk: string | null, everyMs: number): void {
  const timer = setInterval(() => (chunk === null ? undefined : res.write(chunk)), everyMs);
  res.on('close', () => clearInterval(timer));
}

// Bombs are built once per process: small on the wire, enormous decoded.
let bombs: { gzip: Buffer; br: Buffer; deflate: Buffer } | null = null;
function bombParts() {
  if (bombs === null) {
    const blank = Buffer.alloc(16 * MiB, 0x20);
    bombs = {
      // Concatenated gzip members are one valid stream: 64 × 16 MiB = 1 GiB decoded.
      gzip: gzipSync(blank, { level: 9 }),
      br: brotliCompressSync(Buffer.alloc(64 * MiB, 0x20), { params: { [constants.BROTLI_PARAM_QUALITY]: 1 } }),
      deflate: deflateSync(Buffer.alloc(64 * MiB, 0x20), { level: 9 }),
    };
  }
  return bombs;
}

// "Café € 5 ‘quoted’" in windows-1252: é = E9, € = 80, ‘ ’ = 91 92 (not valid UTF-8).
const CP1252_TEXT = Buffer.from([0x43, 0x61, 0x66, 0xe9, 0x20, 0x80, 0x20, 0x35, 0x20, 0x91, 0x71, 0x75, 0x6f, 0x74, 0x65, 0x64, 0x92]);
// "日本語の価格" in Shift_JIS.
const SJIS_TEXT = Buffer.from('93fa967b8cea82cc89bf8a69', 'hex');

function page(head: string, body: Buffer): Buffer {
  return Buffer.concat([
    Buffer.from(`<!doctype html><html><head>${head}<title>t</title></head><body><p id="v">`),
    body,
    Buffer.from('</p></body></html>'),
  ]);
}

export function loaderRoutes(): Record<string, FixtureRoute> {
  return {
    // ?n=K: K redirects (relative Location) before an HTML page.
    '/loader/hops': (req, res) => {
      const left = Number(query(req, 'n') ?? '0');
      if (left <= 0) return html(res, '<!doctype html><title>arrived</title><p id="v">arrived</p>');
      res.writeHead(302, { location: `/loader/hops?n=${left - 1}` });
      res.end();
    },
    // ?to=URL: one redirect to any URL (status from ?status=, default 302).
    '/loader/redirect': (req, res) => {
      res.writeHead(Number(query(req, 'status') ?? '302'), { location: query(req, 'to') ?? '/' });
      res.end();
    },
    '/loader/echo-headers': (req, res) =>
      html(res, `<!doctype html><pre id="v">${JSON.stringify(req.headers).replace(/</g, '&lt;')}</pre>`),
    '/loader/slow-headers': (_req, res) => drip(res, null, 1000),
    '/loader/slow-body': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.write('<!doctype html><p>');
      drip(res, 'still loading ', 100);
    },
    // ?bytes=N: an HTML page of N bytes, streamed.
    '/loader/huge': async (req, res) => {
      let left = Number(query(req, 'bytes') ?? String(6 * MiB));
      res.writeHead(200, { 'content-type': 'text/html' });
      const line = Buffer.from(`<p>${'x'.repeat(1019)}</p>\n`);
      while (left > 0 && !res.destroyed) {
        const chunk = line.subarray(0, Math.min(left, line.length));
        left -= chunk.length;
        if (!res.write(chunk)) await new Promise((resolve) => res.once('drain', resolve).once('close', resolve));
      }
      res.end();
    },
    '/loader/gzip': (_req, res) => html(res, gzipSync(PAGE), { 'content-encoding': 'gzip' }),
    '/loader/br': (_req, res) => html(res, brotliCompressSync(PAGE), { 'content-encoding': 'br' }),
    '/loader/deflate': (_req, res) => html(res, deflateSync(PAGE), { 'content-encoding': 'deflate' }),
    '/loader/deflate-raw': (_req, res) => html(res, deflateRawSync(PAGE), { 'content-encoding': 'deflate' }),
    '/loader/zstd': (_req, res) => html(res, PAGE, { 'content-encoding': 'zstd' }),
    '/loader/gzip-bomb': async (_req, res) => {
      const { gzip } = bombParts();
      res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip' });
      for (let i = 0; i < 64 && !res.destroyed; i++) {
        if (!res.write(gzip)) await new Promise((resolve) => res.once('drain', resolve).once('close', resolve));
      }
      res.end();
    },
    '/loader/br-bomb': (_req, res) => html(res, bombParts().br, { 'content-encoding': 'br' }),
    '/loader/deflate-bomb': (_req, res) => html(res, bombParts().deflate, { 'content-encoding': 'deflate' }),
    '/loader/png': (_req, res) => {
      res.writeHead(200, { 'content-type': 'image/png' });
      res.end(Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'));
    },
    '/loader/pdf': (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/pdf' });
      res.end('%PDF-1.4\n%\xe2\xe3\xcf\xd3\n');
    },
    '/loader/json': (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/ld+json' });
      res.end('{"price": 1}');
    },
    '/loader/untyped-html': (_req, res) => {
      res.writeHead(200);
      res.end(PAGE);
    },
    '/loader/untyped-binary': (_req, res) => {
      res.writeHead(200);
      res.end(Buffer.from('89504e470d0a1a0a', 'hex'));
    },
    '/loader/cp1252-header': (_req, res) => html(res, page('', CP1252_TEXT), { 'content-type': 'text/html; charset=windows-1252' }),
    '/loader/cp1252-meta': (_req, res) =>
      html(res, page('<meta http-equiv="Content-Type" content="text/html; charset=windows-1252">', CP1252_TEXT), {
        'content-type': 'text/html',
      }),
    '/loader/sjis-meta': (_req, res) => html(res, page('<meta charset="shift_jis">', SJIS_TEXT), { 'content-type': 'text/html' }),
    '/loader/undeclared-cp1252': (_req, res) => html(res, page('', CP1252_TEXT), { 'content-type': 'text/html' }),
    // The header wins over a contradicting <meta>, as in browsers.
    '/loader/header-beats-meta': (_req, res) =>
      html(res, page('<meta charset="utf-8">', CP1252_TEXT), { 'content-type': 'text/html; charset=windows-1252' }),
    '/loader/rate-limited': (_req, res) => {
      res.writeHead(429, { 'content-type': 'text/html', 'retry-after': '120' });
      res.end('<p>slow down</p>');
    },
    '/loader/unavailable': (_req, res) => {
      res.writeHead(503, { 'content-type': 'text/html', 'retry-after': new Date(Date.now() + 90_000).toUTCString() });
      res.end('<p>maintenance</p>');
    },
    '/loader/server-error': (_req, res) => {
      res.writeHead(500, { 'content-type': 'text/html' });
      res.end('<p>oops</p>');
    },
  };
}
