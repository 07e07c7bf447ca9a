import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppDeps } from '../../http/app-deps.ts';
import type { ErrorCode } from '../../errors.ts';
import { readFeed } from '../../services/feeds.ts';

// Atom feeds (DESIGN §8 Feeds), for readers that send no headers: the feed
// token is the URL's first segment. Outside /api/v1, so no bearer gate and no
// API allowance; reads are limited per token instead.

const Token = Type.String({ minLength: 1, maxLength: 64, description: 'a feed token (pwf_…) from POST /api/v1/feed-tokens' });
const Label = Type.String({ minLength: 1, maxLength: 50 });

// What a feed read can answer besides the feed (documented in OpenAPI): an unknown or revoked token or
// monitor, a plan without feeds, the token's reads per hour used up, the threads or the store busy.
const config = { errors: ['not_found', 'pro_required', 'rate_limited', 'busy', 'storage_unavailable', 'store_unavailable'] as ErrorCode[] };
const ENTRIES = 'The newest 50 retained changes, newest first, as Atom entries with their diff as text.';

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

  app.get(
    '/feeds/:token/changes.atom',
    {
      config,
      schema: {
        operationId: 'getFeed',
        summary: 'Atom feed of the changes a feed token shows',
        description: `${ENTRIES} A token shows the account, the monitors of one label, or one monitor.`,
        params: Type.Object({ token: Token }),
      },
    },
    async (request, reply) => answer(request, reply, { token: request.params.token }),
  );
  app.get(
    '/feeds/:token/labels/:label/changes.atom',
    {
      config,
      schema: {
        operationId: 'getLabelFeed',
        summary: 'Atom feed of the changes of the monitors carrying a label',
        description: `${ENTRIES} Of what the token shows, the monitors carrying the label.`,
        params: Type.Object({ token: Token, label: Label }),
      },
    },
    async (request, reply) => answer(request, reply, { token: request.params.token, label: request.params.label }),
  );
  app.get(
    '/feeds/:token/monitors/:monitor_id/changes.atom',
    {
      config,
      schema: {
        operationId: 'getMonitorFeed',
        summary: 'Atom feed of the changes of one monitor',
        description: `${ENTRIES} Of what the token shows, that monitor's (404 when it is not the account's).`,
        params: Type.Object({ token: Token, monitor_id: Type.String({ format: 'uuid' }) }),
      },
    },
    async (request, reply) => answer(request, reply, { token: request.params.token, monitorId: request.params.monitor_id }),
  );
};
