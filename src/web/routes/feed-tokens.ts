import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { AppDeps } from '../../http/app-deps.ts';
import { AppError } from '../../errors.ts';
import { createFeedToken, listAccountFeedTokens, revokeAccountFeedToken } from '../../services/feed-tokens.ts';
import { listMonitorPage } from '../../services/monitors.ts';
import { isUuid } from '../../domain/ids.ts';
import { field } from '../form.ts';
import { PageError } from '../page-error.ts';
import { layout, pageContext, seeOther, sendPage } from '../views/layout.ts';
import { EMPTY_FEED_TOKEN_FORM, feedTokensBody, type FeedTokenForm } from '../views/feed-tokens.ts';

// Atom feeds: the owner's feed tokens, through the same service as /api/v1/feed-tokens.

const MONITOR_CHOICES = 100;

function validate(form: FeedTokenForm): string | null {
  if (form.name.length < 1 || form.name.length > 100) return 'Give the feed a name of 1 to 100 characters.';
  if (form.label.length > 50) return 'A label has at most 50 characters.';
  if (form.label !== '' && form.monitorId !== '') return 'Choose a label or a monitor, not both.';
  if (form.monitorId !== '' && !isUuid(form.monitorId)) return 'Choose a monitor from the list.';
  return null;
}

export const feedTokenPages: FastifyPluginAsync<AppDeps> = async (app, deps) => {
  async function render(
    request: FastifyRequest,
    reply: FastifyReply,
    extra: { form?: FeedTokenForm; created?: { name: string; feedUrl: string }; error?: string; status?: number } = {},
  ) {
    const { principal } = request.owner!;
    const monitors = await listMonitorPage(deps, principal, {
      status: null,
      label: null,
      search: null,
      limit: MONITOR_CHOICES,
      after: null,
    });
    const ctx = pageContext(request);
    const body = feedTokensBody(ctx, {
      tokens: await listAccountFeedTokens(deps, principal),
      limit: principal.plan.feed_tokens,
      monitors: monitors.rows.map((m) => ({ id: m.id, title: m.name ?? m.url })),
      form: extra.form ?? EMPTY_FEED_TOKEN_FORM,
      created: extra.created,
    });
    return sendPage(reply, layout(ctx, 'Atom feeds', body, { error: extra.error, current: '/api-access' }), extra.status);
  }

  app.get('/feed-tokens', async (request, reply) => render(request, reply));

  app.post('/feed-tokens', async (request, reply) => {
    const form: FeedTokenForm = {
      name: field(request, 'name').trim(),
      label: field(request, 'label').trim(),
      monitorId: field(request, 'monitor_id'),
    };
    const problem = validate(form);
    if (problem) return render(request, reply, { form, error: problem, status: 422 });
    try {
      const created = await createFeedToken(deps, request.owner!.principal, {
        name: form.name,
        ...(form.label !== '' ? { label: form.label } : {}),
        ...(form.monitorId !== '' ? { monitor_id: form.monitorId } : {}),
      });
      return render(request, reply, { created: { name: form.name, feedUrl: created.feed_url }, status: 201 });
    } catch (err) {
      if (err instanceof AppError && (err.code === 'allowance_exhausted' || err.code === 'validation_failed')) {
        return render(request, reply, { form, error: err.message, status: err.status });
      }
      throw err;
    }
  });

  app.post<{ Params: { id: string } }>('/feed-tokens/:id/revoke', async (request, reply) => {
    if (!isUuid(request.params.id)) throw new PageError(404, 'Not found', 'There is no such feed in this account.');
    await revokeAccountFeedToken(deps, request.owner!.principal, request.params.id).catch((err: unknown) => {
      if (err instanceof AppError && err.code === 'not_found')
        throw new PageError(404, 'Not found', 'There is no such feed in this account.');
      throw err;
    });
    return seeOther(reply, '/feed-tokens?notice=feed-revoked');
  });
};
