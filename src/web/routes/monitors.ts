import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { AppDeps } from '../../api/app-deps.ts';
import { decodeCursor, encodeCursor } from '../../api/cursor.ts';
import { changeMonitor, getMonitor, listMonitorPage } from '../../services/monitors.ts';
import { readBaselines } from '../../store/baselines-store.ts';
import { countMonitors } from '../../store/monitors-store.ts';
import { field } from '../form.ts';
import { PageError } from '../page-error.ts';
import { layout, pageContext, seeOther, sendPage } from '../views/layout.ts';
import { monitorBody, monitorListBody, monitorTitle } from '../views/monitors.ts';

// The monitor list (home page), one monitor's page, pause and resume — through
// the monitor service the API uses.

const PAGE_SIZE = 50;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function monitorIdParam(request: FastifyRequest<{ Params: { id: string } }>): string {
  if (!UUID.test(request.params.id)) throw new PageError(404, 'Not found', 'There is no such monitor in this account.');
  return request.params.id;
}

export const monitorRoutes: FastifyPluginAsync<AppDeps> = async (app, deps) => {
  app.get<{ Querystring: { cursor?: string } }>('/', async (request, reply) => {
    const { principal } = request.owner!;
    const cursor = typeof request.query.cursor === 'string' ? request.query.cursor : null;
    const position = cursor ? decodeCursor(cursor, {}, ['created_at', 'seq']) : null;
    const after = position ? { created_at: new Date(position.created_at), seq: Number(position.seq) } : null;
    const page = await listMonitorPage(deps, principal, { status: null, limit: PAGE_SIZE, after });
    const more = page.next ? encodeCursor({ created_at: page.next.created_at.toISOString(), seq: String(page.next.seq) }, {}) : null;
    const slots = { used: await countMonitors(deps.db, principal.accountId), limit: principal.plan.monitors };
    const ctx = pageContext(request);
    return sendPage(reply, layout(ctx, 'Monitors', monitorListBody(ctx, page.rows, more, slots)));
  });

  app.get<{ Params: { id: string } }>('/monitors/:id', async (request, reply) => {
    const monitor = await getMonitor(deps, request.owner!.principal, monitorIdParam(request));
    const baselines = await readBaselines(deps.db, monitor.id);
    const ctx = pageContext(request);
    return sendPage(reply, layout(ctx, monitorTitle(monitor), monitorBody(ctx, monitor, baselines, null)));
  });

  app.post<{ Params: { id: string } }>('/monitors/:id/status', async (request, reply) => {
    const status = field(request, 'status');
    if (status !== 'active' && status !== 'paused') throw new PageError(400, 'Bad request', 'Choose pause or resume.');
    const monitor = await changeMonitor(deps, request.owner!.principal, monitorIdParam(request), { status });
    const back = field(request, 'back') === '/' ? '/' : `/monitors/${monitor.id}`;
    return seeOther(reply, `${back}?notice=${status === 'paused' ? 'monitor-paused' : 'monitor-resumed'}`);
  });
};
