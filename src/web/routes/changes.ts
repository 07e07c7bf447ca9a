import type { FastifyPluginAsync } from 'fastify';
import { isUuid } from '../../domain/ids.ts';
import type { AppDeps } from '../../http/app-deps.ts';
import { getChangeDetail, listChangePage } from '../../services/changes.ts';
import { getMonitor } from '../../services/monitors.ts';
import { html, type SafeHtml } from '../html.ts';
import { PageError } from '../page-error.ts';
import { availabilityTimeline, historyOf, priceChart } from '../views/charts.ts';
import { changeDetailBody, changeListBody } from '../views/changes.ts';
import { layout, pageContext, sendPage } from '../views/layout.ts';
import { monitorIdParam } from './monitors.ts';

// Change history through the change service the API uses (retention applied on every read).

const PAGE_SIZE = 50;
/** How many of a target's most recent changes its chart or timeline shows. */
const HISTORY_SIZE = 100;

export const changeRoutes: FastifyPluginAsync<AppDeps> = async (app, deps) => {
  app.get<{ Params: { id: string }; Querystring: { cursor?: string } }>('/monitors/:id/changes', async (request, reply) => {
    const { principal } = request.owner!;
    const monitor = await getMonitor(deps, principal, monitorIdParam(request));
    const filters = { monitor_id: monitor.id };
    const cursor = typeof request.query.cursor === 'string' ? request.query.cursor : null;
    const position = cursor ? deps.cursors.decode(cursor, filters, ['detected_at', 'id']) : null;
    const after = position ? { detectedAt: new Date(position.detected_at), id: position.id } : null;
    const page = await listChangePage(deps, principal, { monitorId: monitor.id, limit: PAGE_SIZE, after });
    const more = page.next ? deps.cursors.encode({ detected_at: page.next.detectedAt.toISOString(), id: page.next.id }, filters) : null;

    const history: SafeHtml[] = [];
    for (const target of monitor.targets.filter((t) => t.kind === 'price' || t.kind === 'availability')) {
      const changes = await listChangePage(deps, principal, {
        monitorId: monitor.id,
        targetId: target.id,
        limit: HISTORY_SIZE,
        after: null,
      });
      const points = historyOf(changes.rows, new Date(monitor.created_at));
      const label = target.label ?? target.id;
      history.push(html`<section aria-labelledby="history-${target.id}"><h2 id="history-${target.id}">${label}: ${target.kind === 'price' ? 'price history' : 'availability'}</h2>
${target.kind === 'price' ? priceChart(target.id, label, points, deps.clock.now()) : availabilityTimeline(points)}</section>`);
    }
    const ctx = pageContext(request);
    return sendPage(reply, layout(ctx, 'Changes', changeListBody(monitor, page.rows, more, history)));
  });

  app.get<{ Params: { id: string } }>('/changes/:id', async (request, reply) => {
    if (!isUuid(request.params.id)) throw new PageError(404, 'Not found', 'There is no such change in this account.');
    const { principal } = request.owner!;
    const change = await getChangeDetail(deps, principal, request.params.id);
    const monitor = await getMonitor(deps, principal, change.monitor_id);
    const ctx = pageContext(request);
    return sendPage(reply, layout(ctx, 'Change', changeDetailBody(monitor, change)));
  });
};
