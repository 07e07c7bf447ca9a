import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { AppError } from '../../errors.ts';
import { changeMonitor, createMonitor, getMonitorDetail, listMonitorPage, removeMonitor } from '../../services/monitors.ts';
import { API_PREFIX } from '../../http/openapi.ts';
import type { AppDeps } from '../../http/app-deps.ts';
import type { Cursors } from '../../http/cursor.ts';
import { Data, ListOf, NoQuery } from '../../schemas/common.ts';
import {
  CreateMonitorBody,
  IdempotencyHeaders,
  ListMonitorsQuery,
  MonitorDetailSchema,
  MonitorParams,
  MonitorSchema,
  UpdateMonitorBody,
} from '../../schemas/monitors.ts';

const read = { scope: 'monitors:read' } as const;
const write = { scope: 'monitors:write' } as const;

function cursorPosition(cursors: Cursors, raw: string | undefined, filters: Record<string, unknown>) {
  if (raw === undefined) return null;
  const { c, s } = cursors.decode(raw, filters, ['c', 's']);
  const createdAt = new Date(c);
  if (Number.isNaN(createdAt.getTime()) || !/^\d+$/.test(s)) throw new AppError('malformed_cursor', 'the cursor is malformed');
  return { created_at: createdAt, seq: Number(s) };
}

export const monitorRoutes: FastifyPluginAsyncTypebox<AppDeps> = async (app, deps) => {
  app.get(
    '/monitors',
    {
      config: read,
      schema: {
        operationId: 'listMonitors',
        summary: 'List monitors, newest first',
        description:
          'Follow meta.next_cursor (with the same filters) until it is null. Filters: status, label (exact match of one of the labels).',
        tags: ['monitors'],
        querystring: ListMonitorsQuery,
        response: { 200: ListOf(MonitorSchema) },
      },
    },
    async (request) => {
      const filters = { status: request.query.status ?? null, label: request.query.label ?? null, failing: request.query.failing ?? null };
      const page = await listMonitorPage(deps, request.principal!, {
        ...filters,
        search: null,
        limit: request.query.limit,
        after: cursorPosition(deps.cursors, request.query.cursor, filters),
      });
      const next = page.next ? deps.cursors.encode({ c: page.next.created_at.toISOString(), s: String(page.next.seq) }, filters) : null;
      return { data: page.rows, meta: { next_cursor: next } };
    },
  );

  app.post(
    '/monitors',
    {
      config: {
        ...write,
        errors: [
          'preview_invalid',
          'target_invalid',
          'monitor_exists',
          'allowance_exhausted',
          'busy',
          'proxy_unknown',
          'proxy_not_allowed',
        ],
      },
      schema: {
        operationId: 'createMonitor',
        summary: 'Create a monitor from a confirmed preview',
        description:
          'Requires a valid preview of this account; repeats target validation against its capture (422 target_invalid). ' +
          "The URL and load mode are the preview's; one monitor per URL (409 monitor_exists); the plan's monitor slots (409 allowance_exhausted). " +
          'The first capture seeds the baseline and sends no alert. Same Idempotency-Key and body replays the result with Idempotency-Replayed: true.',
        tags: ['monitors'],
        querystring: NoQuery,
        headers: IdempotencyHeaders,
        body: CreateMonitorBody,
        response: { 201: Data(Type.Object({ id: Type.String({ format: 'uuid' }) })) },
      },
    },
    async (request, reply) => {
      const outcome = await createMonitor(deps, request.principal!, request.body, request.headers['idempotency-key']);
      reply.header('Location', `${API_PREFIX}/monitors/${outcome.value.id}`);
      if (outcome.replayed) reply.header('Idempotency-Replayed', 'true');
      return reply.status(201).send({ data: outcome.value });
    },
  );

  app.get(
    '/monitors/:monitor_id',
    {
      config: read,
      schema: {
        operationId: 'getMonitor',
        summary: 'Read a monitor with its current values',
        description:
          "observations: per target, the value the next capture is compared with, since when it holds, and the latest check's issues.",
        tags: ['monitors'],
        querystring: NoQuery,
        params: MonitorParams,
        response: { 200: Data(MonitorDetailSchema) },
      },
    },
    async (request) => ({ data: await getMonitorDetail(deps, request.principal!, request.params.monitor_id) }),
  );

  app.patch(
    '/monitors/:monitor_id',
    {
      config: { ...write, errors: ['version_conflict', 'preview_invalid', 'target_invalid', 'busy', 'proxy_unknown', 'proxy_not_allowed'] },
      schema: {
        operationId: 'updateMonitor',
        summary: 'Update, pause or resume a monitor',
        description:
          'name, labels, status, proxy and the notification flags change directly. Targets, steps, load method (through the preview), interval and schedule need a fresh ' +
          'preview_id of the same URL and expected_version equal to config_version (stale: 409 version_conflict); success increments config_version. ' +
          'Pausing cancels pending manual checks and keeps the slot and history.',
        tags: ['monitors'],
        querystring: NoQuery,
        params: MonitorParams,
        body: UpdateMonitorBody,
        response: { 200: Data(MonitorSchema) },
      },
    },
    async (request) => ({ data: await changeMonitor(deps, request.principal!, request.params.monitor_id, request.body) }),
  );

  app.delete(
    '/monitors/:monitor_id',
    {
      config: write,
      schema: {
        operationId: 'deleteMonitor',
        summary: 'Delete a monitor and its history',
        tags: ['monitors'],
        querystring: NoQuery,
        params: MonitorParams,
        response: { 204: Type.Null({ description: 'deleted' }) },
      },
    },
    async (request, reply) => {
      await removeMonitor(deps, request.principal!, request.params.monitor_id);
      return reply.status(204).send(null);
    },
  );
};
