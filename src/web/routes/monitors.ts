import { randomUUID } from 'node:crypto';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { AppDeps } from '../../http/app-deps.ts';
import { AppError } from '../../errors.ts';
import { earliestRunAt } from '../../domain/manual-check.ts';
import { getReceipt, requestManualCheck, type Receipt } from '../../services/manual-checks.ts';
import { changeMonitor, getMonitorDetail, listMonitorPage, monitorSlots, type MonitorFilters } from '../../services/monitors.ts';
import { getUsage } from '../../services/usage.ts';
import { isUuid } from '../../domain/ids.ts';
import { field } from '../form.ts';
import { PageError } from '../page-error.ts';
import { layout, pageContext, seeOther, sendPage } from '../views/layout.ts';
import { checkPanel } from '../views/checks.ts';
import { checkHistory } from '../views/check-history.ts';
import { listCheckHistory } from '../../services/check-history.ts';
import { monitorBody, monitorListBody, monitorTitle } from '../views/monitors.ts';

// The monitor list (home page), one monitor's page, pause and resume, "Check
// now" — through the monitor and manual-check services the API uses.

const PAGE_SIZE = 50;
/** checks shown on a monitor's page; the API's check history has them all */
const HISTORY_SIZE = 10;

/** The list's filters from its query string; anything odd is simply no filter. */
function listFilters(query: Record<string, unknown>): MonitorFilters {
  const text = (value: unknown) =>
    typeof value === 'string' && value.trim() !== '' && !value.includes('\0') ? value.trim().slice(0, 200) : null;
  const status = query.status === 'active' || query.status === 'paused' ? query.status : null;
  return {
    status,
    label: text(query.label),
    search: text(query.q),
    failing: query.failing === 'true' || query.failing === '1' ? true : null,
  };
}

export function monitorIdParam(request: FastifyRequest<{ Params: { id: string } }>): string {
  if (!isUuid(request.params.id)) throw new PageError(404, 'Not found', 'There is no such monitor in this account.');
  return request.params.id;
}

export const monitorRoutes: FastifyPluginAsync<AppDeps> = async (app, deps) => {
  app.get<{ Querystring: Record<string, unknown> }>('/', async (request, reply) => {
    const { principal } = request.owner!;
    const filters = listFilters(request.query);
    const cursor = typeof request.query.cursor === 'string' ? request.query.cursor : null;
    const position = cursor ? deps.cursors.decode(cursor, filters, ['created_at', 'seq']) : null;
    const after = position ? { created_at: new Date(position.created_at), seq: Number(position.seq) } : null;
    const page = await listMonitorPage(deps, principal, { ...filters, limit: PAGE_SIZE, after });
    const more = page.next
      ? deps.cursors.encode({ created_at: page.next.created_at.toISOString(), seq: String(page.next.seq) }, filters)
      : null;
    const slots = await monitorSlots(deps, principal);
    const ctx = pageContext(request);
    return sendPage(reply, layout(ctx, 'Monitors', monitorListBody(ctx, page.rows, { more, filters, slots })));
  });

  async function monitorPage(
    request: FastifyRequest,
    reply: FastifyReply,
    id: string,
    extra: { checkId?: string; error?: string; status?: number } = {},
  ) {
    const { principal } = request.owner!;
    const { observations, ...monitor } = await getMonitorDetail(deps, principal, id);
    let receipt: { receipt: Receipt; terminal: boolean } | null = null;
    if (extra.checkId && isUuid(extra.checkId)) {
      receipt = await getReceipt(deps, principal, extra.checkId).catch((err: unknown) => {
        if (err instanceof AppError && err.code === 'not_found') return null;
        throw err;
      });
      if (receipt?.receipt.monitor_id !== monitor.id) receipt = null;
    }
    const manual = (await getUsage(deps, principal)).api.manual_checks;
    const history = await listCheckHistory(deps, principal, id, { limit: HISTORY_SIZE, beforeSeq: null });
    const ctx = pageContext(request);
    // A fresh key per rendered form: a double click on "Check now" is one request.
    const minIntervalMinutes = principal.plan.min_interval_minutes[monitor.load_mode];
    const earliest = earliestRunAt(monitor.last_checked_at ? new Date(monitor.last_checked_at) : null, minIntervalMinutes);
    const panel = checkPanel(ctx, monitor, {
      receipt,
      left: Math.max(0, manual.limit - manual.used),
      limit: manual.limit,
      idempotencyKey: `dashboard-${randomUUID()}`,
      notBefore: earliest && earliest > deps.clock.now() ? earliest : null,
      minIntervalMinutes,
    });
    return sendPage(
      reply,
      layout(ctx, monitorTitle(monitor), monitorBody(ctx, monitor, observations, panel, checkHistory(monitor.id, history.rows)), {
        error: extra.error,
      }),
      extra.status,
    );
  }

  app.get<{ Params: { id: string }; Querystring: { check?: string } }>('/monitors/:id', async (request, reply) =>
    monitorPage(request, reply, monitorIdParam(request), {
      checkId: typeof request.query.check === 'string' ? request.query.check : undefined,
    }),
  );

  app.post<{ Params: { id: string } }>('/monitors/:id/check', async (request, reply) => {
    const id = monitorIdParam(request);
    try {
      const outcome = await requestManualCheck(deps, request.owner!.principal, id, {}, field(request, 'idempotency_key'));
      return seeOther(reply, `/monitors/${id}?check=${outcome.value.check_id}#receipt`);
    } catch (err) {
      if (!(err instanceof AppError) || (err.code !== 'check_limited' && err.code !== 'check_not_allowed')) throw err;
      if (err.retryAfter !== undefined) reply.header('retry-after', String(err.retryAfter));
      return monitorPage(request, reply, id, { error: err.message, status: err.status });
    }
  });

  app.post<{ Params: { id: string } }>('/monitors/:id/status', async (request, reply) => {
    const status = field(request, 'status');
    if (status !== 'active' && status !== 'paused') throw new PageError(400, 'Bad request', 'Choose pause or resume.');
    const monitor = await changeMonitor(deps, request.owner!.principal, monitorIdParam(request), { status });
    const back = field(request, 'back') === '/' ? '/' : `/monitors/${monitor.id}`;
    return seeOther(reply, `${back}?notice=${status === 'paused' ? 'monitor-paused' : 'monitor-resumed'}`);
  });
};
