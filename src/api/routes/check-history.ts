import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { AppError } from '../../errors.ts';
import { listCheckHistory } from '../../services/check-history.ts';
import type { AppDeps } from '../../http/app-deps.ts';
import { ListOf, MAX_CURSOR_LENGTH } from '../../schemas/common.ts';
import { MonitorParams } from '../../schemas/monitors.ts';
import { CheckRunSchema } from '../../schemas/checks.ts';

const HistoryQuery = Type.Object(
  {
    limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
    cursor: Type.Optional(
      Type.String({ minLength: 1, maxLength: MAX_CURSOR_LENGTH, description: 'meta.next_cursor of the previous page' }),
    ),
  },
  { additionalProperties: false },
);

export const checkHistoryRoutes: FastifyPluginAsyncTypebox<AppDeps> = async (app, deps) => {
  app.get(
    '/monitors/:monitor_id/checks',
    {
      config: { scope: 'monitors:read' },
      schema: {
        operationId: 'listMonitorChecks',
        summary: "A monitor's check history, newest first",
        description:
          "Every check the engine recorded (scheduled and manual), with its outcome, issues and the changes it made, kept for the plan's " +
          "retention (90 days on Pro). Checks skipped for the site's backoff or an exhausted allowance are not checks and are not listed.",
        tags: ['monitors'],
        params: MonitorParams,
        querystring: HistoryQuery,
        response: { 200: ListOf(CheckRunSchema) },
      },
    },
    async (request) => {
      const filters = { monitor_id: request.params.monitor_id };
      const cursor = request.query.cursor;
      const beforeSeq = cursor === undefined ? null : deps.cursors.decode(cursor, filters, ['s']).s;
      if (beforeSeq !== null && !/^\d{1,18}$/.test(beforeSeq)) throw new AppError('malformed_cursor', 'the cursor is malformed');
      const page = await listCheckHistory(deps, request.principal!, request.params.monitor_id, { limit: request.query.limit, beforeSeq });
      return { data: page.rows, meta: { next_cursor: page.next === null ? null : deps.cursors.encode({ s: page.next }, filters) } };
    },
  );
};
