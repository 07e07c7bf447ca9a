import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { AppDeps } from '../../http/app-deps.ts';
import { AppError } from '../../errors.ts';
import { isUuid } from '../../domain/ids.ts';
import { CreateChannelBody } from '../../schemas/channels.ts';
import {
  createChannel,
  deleteAccountChannel,
  listAccountChannels,
  listDeliveries,
  readAccountChannel,
  testChannel,
} from '../../services/channels.ts';
import { field } from '../form.ts';
import { formRefusal } from '../form-refusal.ts';
import { PageError } from '../page-error.ts';
import { bodyValidator } from '../validate-body.ts';
import { layout, pageContext, seeOther, sendPage } from '../views/layout.ts';
import { channelsBody, deleteChannelBody, EMPTY_CHANNEL_FORM, type ChannelForm, type TestOutcome } from '../views/channels.ts';

// Channels: the owner makes a channel from a pasted URL, sends it a test
// message, deletes it, and sees each one's state and delivery log — through the
// same service and request schema as /api/v1/channels, so a refusal says what the API says.

const validateCreateBody = bodyValidator(CreateChannelBody);

/** The API's refusal as one line: its message and what it says about each field. */
function refusalText(err: AppError): string {
  return [err.message, ...(err.details ?? []).map((d) => `${d.field}: ${d.message}`)].join('. ');
}

export const channelPages: FastifyPluginAsync<AppDeps> = async (app, deps) => {
  async function render(
    request: FastifyRequest,
    reply: FastifyReply,
    extra: { form?: ChannelForm; tested?: TestOutcome; error?: string; status?: number } = {},
  ) {
    const { principal } = request.owner!;
    const channels = await listAccountChannels(deps, principal);
    const withLogs = await Promise.all(
      channels.map(async (channel) => ({ channel, deliveries: await listDeliveries(deps, principal, channel.id) })),
    );
    const ctx = pageContext(request);
    const body = channelsBody(ctx, {
      channels: withLogs,
      limit: principal.plan.channels,
      form: extra.form ?? EMPTY_CHANNEL_FORM,
      tested: extra.tested,
    });
    return sendPage(reply, layout(ctx, 'Channels', body, { error: extra.error, current: '/api-access' }), extra.status);
  }

  /** The channel the path names, as a page's 404 when it is not this account's. */
  function channelId(request: FastifyRequest<{ Params: { id: string } }>): string {
    if (!isUuid(request.params.id)) throw new PageError(404, 'Not found', 'There is no such channel in this account.');
    return request.params.id;
  }

  function notFound(err: unknown): never {
    if (err instanceof AppError && err.code === 'not_found')
      throw new PageError(404, 'Not found', 'There is no such channel in this account.');
    throw err;
  }

  app.get('/channels', async (request, reply) => render(request, reply));

  app.post('/channels', async (request, reply) => {
    const form: ChannelForm = { name: field(request, 'name').trim(), url: field(request, 'url').trim() };
    try {
      validateCreateBody(form);
      await createChannel(deps, request.owner!.principal, form);
      return seeOther(reply, '/channels?notice=channel-created');
    } catch (err) {
      const refusal = formRefusal(err);
      if (!refusal) throw err;
      return render(request, reply, { form, error: refusalText(refusal), status: refusal.status });
    }
  });

  app.post<{ Params: { id: string } }>('/channels/:id/test', async (request, reply) => {
    const id = channelId(request);
    const result = await testChannel(deps, request.owner!.principal, id).catch(notFound);
    return render(request, reply, { tested: { channelId: id, result } });
  });

  app.get<{ Params: { id: string } }>('/channels/:id/delete', async (request, reply) => {
    const channel = await readAccountChannel(deps, request.owner!.principal, channelId(request)).catch(notFound);
    const ctx = pageContext(request);
    return sendPage(reply, layout(ctx, `Delete ${channel.name}`, deleteChannelBody(ctx, channel), { current: '/api-access' }));
  });

  app.post<{ Params: { id: string } }>('/channels/:id/delete', async (request, reply) => {
    await deleteAccountChannel(deps, request.owner!.principal, channelId(request)).catch(notFound);
    return seeOther(reply, '/channels?notice=channel-deleted');
  });
};
