import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyPluginAsync } from 'fastify';

// The dashboard's one stylesheet, one script and its icon, committed as
// written (no build step, no CDN), read once at start.

const ASSETS_DIR = join(import.meta.dirname, '..', 'assets');
const ASSETS = {
  'dashboard.css': 'text/css; charset=utf-8',
  'dashboard.js': 'text/javascript; charset=utf-8',
} as const;

export const assetRoutes: FastifyPluginAsync = async (app) => {
  for (const [name, type] of Object.entries(ASSETS)) {
    const body = readFileSync(join(ASSETS_DIR, name));
    app.get(`/assets/${name}`, async (_request, reply) =>
      reply.type(type).header('cache-control', 'public, max-age=300').header('x-content-type-options', 'nosniff').send(body),
    );
  }
  // Browsers ask for /favicon.ico on their own, whatever the page links.
  const icon = readFileSync(join(ASSETS_DIR, 'favicon.ico'));
  app.get('/favicon.ico', async (_request, reply) =>
    reply
      .type('image/vnd.microsoft.icon')
      .header('cache-control', 'public, max-age=86400')
      .header('x-content-type-options', 'nosniff')
      .send(icon),
  );
};
