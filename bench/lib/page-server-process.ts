import { createServer, type Server } from 'node:http';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { productPage, smallPage, smallPageVersion } from './pages.ts';
import { loadRealPageFixtures } from './real-pages.ts';

// The fixture site of the benchmarks, run as a child process so that serving
// pages does not share the measured process's event loop. It listens on
// 127.0.0.1 only, on `--ports N` ports: the engine keeps politeness per host
// and port, so several ports stand for several sites.
//
//   /product/<n>.html  ~100 KB product page (built once per n, then cached)
//   /small/<n>.html    the same watched elements alone; the price moves
//                      every `--change-seconds` seconds, staggered per page
//   /rendered.html     test/fixtures/site/shop/rendered-price.html (JavaScript-rendered price)
//   /stepped.html      test/fixtures/site/shop/stepped-price.html (the price shows after three actions)
//   /real/<n>.html     real shop page n (modulo their number) of test/corpora/realpages
//   /validated/<n>.html  product page n with an ETag; a request whose If-None-Match
//                      names it is answered 304 without a body (conditional requests)
//
// `--delay-ms N` answers every page N ms late, as a real site takes time to
// answer: a worker then has checks under way at any moment.

const args = process.argv.slice(2);
const option = (name: string, fallback: number) => {
  const index = args.indexOf(name);
  return index >= 0 ? Number(args[index + 1]) : fallback;
};
const portCount = option('--ports', 1);
const changeSeconds = option('--change-seconds', 600);
const delayMs = option('--delay-ms', 0);
const rendered = readFileSync(join(import.meta.dirname, '..', '..', 'test', 'fixtures', 'site', 'shop', 'rendered-price.html'));
const stepped = readFileSync(join(import.meta.dirname, '..', '..', 'test', 'fixtures', 'site', 'shop', 'stepped-price.html'));
const products = new Map<number, Buffer>();
let realPages: Buffer[] | null = null;

function page(path: string): Buffer | string | null {
  if (path === '/rendered.html') return rendered;
  if (path === '/stepped.html') return stepped;
  const real = /^\/real\/(\d+)\.html$/.exec(path);
  if (real) {
    realPages ??= loadRealPageFixtures().map((p) => p.html);
    return realPages[Number(real[1]) % realPages.length]!;
  }
  const match = /^\/(product|small|validated)\/(\d+)\.html$/.exec(path);
  if (!match) return null;
  const n = Number(match[2]);
  if (match[1] === 'small') return smallPage(n, smallPageVersion(n, Date.now(), changeSeconds));
  let body = products.get(n);
  if (!body) products.set(n, (body = Buffer.from(productPage(n))));
  return body;
}

const servers: Server[] = [];
for (let i = 0; i < portCount; i++) {
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://fixture').pathname;
    const body = page(path);
    if (body === null) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found');
      return;
    }
    // real pages declare their own encoding, in their markup
    const type = req.url?.startsWith('/real/') ? 'text/html' : 'text/html; charset=utf-8';
    const etag = path.startsWith('/validated/') ? `"${path}"` : null;
    const answer = () => {
      if (etag !== null && req.headers['if-none-match'] === etag) {
        res.writeHead(304, { etag });
        res.end();
        return;
      }
      res.writeHead(200, { 'content-type': type, ...(etag === null ? {} : { etag }) });
      res.end(body);
    };
    if (delayMs > 0) setTimeout(answer, delayMs);
    else answer();
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
}

process.send!({ ports: servers.map((s) => (s.address() as AddressInfo).port) });
// The parent ends this process; losing the parent ends it too.
process.on('disconnect', () => process.exit(0));
