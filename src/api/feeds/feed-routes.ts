import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppDeps } from '../../http/app-deps.ts';
import { readFeed } from '../../services/feeds.ts';

// Atom feeds (DESIGN §8 Feeds), for readers that send no headers: the feed
// token is the URL's first segment. Outside /api/v1, so no bearer gate and no
// API allowance; reads are limited per token instead.

const Token = Type.String({ minLength: 1, maxLength: 64 });
const Label = Type.String({ minLength: 1, maxLength: 50 });

export const feedRoutes: FastifyPluginAsyncTypebox<AppDeps> = async (app, deps) => {
  async function answer(request: FastifyRequest, reply: FastifyReply, params: { token: string; label?: string; monitorId?: string }) {
    reply.header('Cache-Control', 'no-store');
    const feed = await readFeed(deps, {
      ...params,
      path: request.url.split('?')[0] ?? request.url,
      ifNoneMatch: request.headers['if-none-match'],
    });
    // A secret URL: no shared cache may keep the feed, and a reader always revalidates it.
    reply.header('Cache-Control', 'private, no-cache');
    reply.header('ETag', feed.etag);
    if (feed.status === 304) return reply.status(304).send();
    return reply.type('application/atom+xml; charset=utf-8').send(feed.body);
  }

  app.get('/feeds/:token/changes.atom', { schema: { params: Type.Object({ token: Token }) } }, async (request, reply) =>
    answer(request, reply, { token: request.params.token }),
  );
  app.get(
    '/feeds/:token/labels/:label/changes.atom',
    { schema: { params: Type.Object({ token: Token, label: Label }) } },
    async (request, reply) => answer(request, reply, { token: request.params.token, label: request.params.label }),
  );
  app.get(
    '/feeds/:token/monitors/:monitor_id/changes.atom',
    { schema: { params: Type.Object({ token: Token, monitor_id: Type.String({ format: 'uuid' }) }) } },
    async (request, reply) => answer(request, reply, { token: request.params.token, monitorId: request.params.monitor_id }),
  );
};
