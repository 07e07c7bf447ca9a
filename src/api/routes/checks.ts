import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { getReceipt, POLL_SECONDS, requestManualCheck } from '../../services/manual-checks.ts';
import { API_PREFIX } from '../../http/openapi.ts';
import type { AppDeps } from '../../http/app-deps.ts';
import { Data, NoQuery } from '../../schemas/common.ts';
import { CheckParams, ReceiptSchema, RequestCheckBody } from '../../schemas/checks.ts';
import { IdempotencyHeaders, MonitorParams } from '../../schemas/monitors.ts';

const write = { scope: 'checks:write' } as const;

export const checkRoutes: FastifyPluginAsyncTypebox<AppDeps> = async (app, deps) => {
  app.post(
    '/monitors/:monitor_id/checks',
    {
      config: { ...write, errors: ['check_limited', 'check_not_allowed'] },
      schema: {
        operationId: 'requestCheck',
        summary: 'Request a manual check of an active monitor',
        description:
          "202 means accepted, not fetched: the monitor is queued for the workers (normally the next cycle). It runs no sooner than the plan's " +
          "minimum interval after the previous capture, the site's backoff still applies, and an unclaimed request expires after 30 minutes. " +
          '20 accepted per UTC day (429 check_limited with Retry-After to midnight UTC); a pending request for the monitor is returned again ' +
          'without a new charge; a paused monitor is 409 check_not_allowed. Poll Location no more than once every 60 seconds. ' +
          'A replay with the same Idempotency-Key returns the original acceptance with Idempotency-Replayed: true.',
        tags: ['checks'],
        querystring: NoQuery,
        headers: IdempotencyHeaders,
        params: MonitorParams,
        body: RequestCheckBody,
        response: { 202: Data(ReceiptSchema) },
      },
    },
    async (request, reply) => {
      const outcome = await requestManualCheck(
        deps,
        request.principal!,
        request.params.monitor_id,
        request.body,
        request.headers['idempotency-key'],
      );
      reply.header('Location', `${API_PREFIX}/checks/${outcome.value.check_id}`);
      if (outcome.replayed) reply.header('Idempotency-Replayed', 'true');
      reply.header('Retry-After', String(POLL_SECONDS));
      return reply.status(202).send({ data: outcome.value });
    },
  );

  app.get(
    '/checks/:check_id',
    {
      config: write,
      schema: {
        operationId: 'getCheck',
        summary: 'Read a manual-check receipt',
        description: 'Receipts are kept for seven days. While the check is queued or running the response carries Retry-After: 60.',
        tags: ['checks'],
        querystring: NoQuery,
        params: CheckParams,
        response: { 200: Data(ReceiptSchema) },
      },
    },
    async (request, reply) => {
      const { receipt, terminal } = await getReceipt(deps, request.principal!, request.params.check_id);
      if (!terminal) reply.header('Retry-After', String(POLL_SECONDS));
      return { data: receipt };
    },
  );
};
