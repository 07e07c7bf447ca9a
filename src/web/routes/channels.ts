import type { FastifyPluginAsync } from 'fastify';
import type { AppDeps } from '../../http/app-deps.ts';
import { listAccountChannels, listDeliveries } from '../../services/channels.ts';
import { layout, pageContext, sendPage } from '../views/layout.ts';
import { channelsBody } from '../views/channels.ts';

// Channels: the owner sees each channel's state and its delivery log, through the same service as /api/v1/channels.

export const channelPages: FastifyPluginAsync<AppDeps> = async (app, deps) => {
  app.get('/channels', async (request, reply) => {
    const { principal } = request.owner!;
    const channels = await listAccountChannels(deps, principal);
    const withLogs = await Promise.all(
      channels.map(async (channel) => ({ channel, deliveries: await listDeliveries(deps, principal, channel.id) })),
    );
    const ctx = pageContext(request);
    return sendPage(reply, layout(ctx, 'Channels', channelsBody(withLogs), { current: '/api-access' }));
  });
};
