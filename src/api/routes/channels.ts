import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { AppDeps } from '../../http/app-deps.ts';
import {
  createChannel,
  deleteAccountChannel,
  listAccountChannels,
  listDeliveries,
  readAccountChannel,
  testChannel,
} from '../../services/channels.ts';
import { Data, NoQuery } from '../../schemas/common.ts';
import { EmptyBody } from '../../schemas/admin.ts';
import { ChannelDeliverySchema, ChannelParams, ChannelSchema, ChannelTestSchema, CreateChannelBody } from '../../schemas/channels.ts';

const read = { scope: 'channels:read' } as const;
const write = { scope: 'channels:write' } as const;

export const channelRoutes: FastifyPluginAsyncTypebox<AppDeps> = async (app, deps) => {
  app.post(
    '/channels',
    {
      config: { ...write, errors: ['allowance_exhausted'] },
      schema: {
        operationId: 'createChannel',
        summary: 'Create a notification channel from an Apprise-style URL',
        description:
          'Slack (slack://TokenA/TokenB/TokenC), Discord (discord://WebhookID/WebhookToken), ntfy (ntfy://topic, ' +
          'ntfys://[user:password@]host[:port]/topic, ?token=), Microsoft Teams workflows (workflows://host[:port]/WorkflowID/Signature), ' +
          'Telegram (tgram://BotToken/ChatID), Gotify (gotify[s]://host[:port]/AppToken), Pushover (pover://UserKey@AppToken), Google Chat (gchat://Space/Key/Token) and Matrix (matrix[s]://AccessToken@host/!RoomID:server). ' +
          "The answer shows the URL with its secrets masked. At most the plan's channels (10 on Pro).",
        tags: ['channels'],
        querystring: NoQuery,
        body: CreateChannelBody,
        response: { 201: Data(ChannelSchema) },
      },
    },
    async (request, reply) => reply.status(201).send({ data: await createChannel(deps, request.principal!, request.body) }),
  );

  app.get(
    '/channels',
    {
      config: read,
      schema: {
        operationId: 'listChannels',
        summary: 'List the account’s channels, newest first, secrets masked',
        tags: ['channels'],
        querystring: NoQuery,
        response: { 200: Data(Type.Array(ChannelSchema)) },
      },
    },
    async (request) => ({ data: await listAccountChannels(deps, request.principal!) }),
  );

  app.get(
    '/channels/:channel_id',
    {
      config: read,
      schema: {
        operationId: 'getChannel',
        summary: 'Read a channel, secrets masked',
        tags: ['channels'],
        querystring: NoQuery,
        params: ChannelParams,
        response: { 200: Data(ChannelSchema) },
      },
    },
    async (request) => ({ data: await readAccountChannel(deps, request.principal!, request.params.channel_id) }),
  );

  app.delete(
    '/channels/:channel_id',
    {
      config: write,
      schema: {
        operationId: 'deleteChannel',
        summary: 'Delete a channel',
        description: 'Monitors stop sending to it and its queued messages are dropped.',
        tags: ['channels'],
        querystring: NoQuery,
        params: ChannelParams,
        response: { 204: Type.Null() },
      },
    },
    async (request, reply) => {
      await deleteAccountChannel(deps, request.principal!, request.params.channel_id);
      return reply.status(204).send(null);
    },
  );

  app.post(
    '/channels/:channel_id/test',
    {
      config: write,
      schema: {
        operationId: 'testChannel',
        summary: 'Send a test message to a channel now and answer with what the service said',
        description:
          'Sent at once, outside the delivery queue, through the SSRF guard. 200 whatever the service answered: delivered, its ' +
          'HTTP status and body, or the error. A failing channel that takes the message is active again.',
        tags: ['channels'],
        querystring: NoQuery,
        params: ChannelParams,
        body: EmptyBody,
        response: { 200: Data(ChannelTestSchema) },
      },
    },
    async (request) => ({ data: await testChannel(deps, request.principal!, request.params.channel_id) }),
  );

  app.get(
    '/channels/:channel_id/deliveries',
    {
      config: read,
      schema: {
        operationId: 'listChannelDeliveries',
        summary: "The channel's delivery log: its newest 50 messages, newest first",
        tags: ['channels'],
        querystring: NoQuery,
        params: ChannelParams,
        response: { 200: Data(Type.Array(ChannelDeliverySchema)) },
      },
    },
    async (request) => ({ data: await listDeliveries(deps, request.principal!, request.params.channel_id) }),
  );
};
