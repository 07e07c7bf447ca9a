import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { readFile } from 'node:fs/promises';
import { join, normalize, extname } from 'node:path';
import type { AddressInfo } from 'node:net';

// A local web server for tests: serves test/fixtures/site/ as static files and
// any extra dynamic routes a test registers. Listens on 127.0.0.1 only, or on
// another loopback address a test names (a second host for off-site tests).

export type FixtureRoute = (req: IncomingMessage, res: ServerResponse) => void | Promise<void>;

export interface FixtureServer {
  /** base URL such as http://127.0.0.1:40123 */
  url: string;
  port: number;
  /** number of requests received, by path */
  hits: Map<string, number>;
  route(path: string, handler: FixtureRoute): void;
  close(): Promise<void>;
}

const SITE_DIR = join(import.meta.dirname, '..', 'fixtures', 'site');
const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.json': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
  '.js': 'text/javascript',
};

export async function startFixtureServer(
  routes: Record<string, FixtureRoute> = {},
  options: { host?: `127.${string}` } = {},
): Promise<FixtureServer> {
  const host = options.host ?? '127.0.0.1';
  const table = new Map(Object.entries(routes));
  const hits = new Map<string, number>();
  const server: Server = createServer((req, res) => void serve(req, res));
  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? '/', 'http://fixture').pathname;
    hits.set(path, (hits.get(path) ?? 0) + 1);
    try {
      const handler = table.get(path);
      if (handler) return await handler(req, res);
      const file = normalize(join(SITE_DIR, path));
      if (!file.startsWith(SITE_DIR)) throw Object.assign(new Error('outside'), { code: 'ENOENT' });
      const body = await readFile(file);
      res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' });
      res.end(body);
    } catch (err) {
      const missing = (err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'EISDIR';
      if (!res.headersSent) res.writeHead(missing ? 404 : 500, { 'content-type': 'text/plain' });
      res.end(missing ? 'not found' : 'fixture error');
    }
  }
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://${host}:${port}`,
    port,
    hits,
    route: (path, handler) => void table.set(path, handler),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
