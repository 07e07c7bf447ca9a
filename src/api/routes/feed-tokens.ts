import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppDeps } from '../../http/app-deps.ts';
import { createFeedToken, listAccountFeedTokens, revokeAccountFeedToken } from '../../services/feed-tokens.ts';
import { Data, NoQuery } from '../../schemas/common.ts';
import { CreatedFeedTokenSchema, CreateFeedTokenBody, FeedTokenParams, FeedTokenSchema } from '../../schemas/feeds.ts';
import { Type } from '@sinclair/typebox';

const read = { scope: 'feeds:read' } as const;
const write = { scope: 'feeds:write' } as const;

export const feedTokenRoutes: FastifyPluginAsyncTypebox<AppDeps> = async (app, deps) => {
  app.post(
    '/feed-tokens',
    {
      config: { ...write, errors: ['allowance_exhausted'] },
      schema: {
        operationId: 'createFeedToken',
        summary: 'Create an Atom feed token',
        description:
          'A read-only token for feed readers, which cannot send headers: it stands in the feed URL (feed_url, ' +
          '/feeds/{token}/changes.atom), shown once. It shows the whole account, one label (label) or one monitor (monitor_id). ' +
          "At most the plan's feed_tokens active tokens (10 on Pro).",
        tags: ['feeds'],
        querystring: NoQuery,
        body: CreateFeedTokenBody,
        response: { 201: Data(CreatedFeedTokenSchema) },
      },
    },
    async (request, reply) => {
      const created = await createFeedToken(deps, request.principal!, request.body);
      return reply.status(201).send({ data: created });
    },
  );

  app.get(
    '/feed-tokens',
    {
      config: read,
      schema: {
        operationId: 'listFeedTokens',
        summary: 'List the account’s feed tokens, newest first, without secrets',
        tags: ['feeds'],
        querystring: NoQuery,
        response: { 200: Data(Type.Array(FeedTokenSchema)) },
      },
    },
    async (request) => ({ data: await listAccountFeedTokens(deps, request.principal!) }),
  );

  app.delete(
    '/feed-tokens/:feed_token_id',
    {
      config: write,
      schema: {
        operationId: 'revokeFeedToken',
        summary: 'Revoke a feed token',
        description: 'Its feeds answer 404 from now on. Revoking a revoked token is 204 again.',
        tags: ['feeds'],
        querystring: NoQuery,
        params: FeedTokenParams,
        response: { 204: Type.Null() },
      },
    },
    async (request, reply) => {
      await revokeAccountFeedToken(deps, request.principal!, request.params.feed_token_id);
      return reply.status(204).send(null);
    },
  );
};
