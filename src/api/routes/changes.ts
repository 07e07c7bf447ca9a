import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { isUuid } from '../../domain/ids.ts';
import { AppError } from '../../errors.ts';
import { getChangeDetail, listChangePage } from '../../services/changes.ts';
import type { AppDeps } from '../../http/app-deps.ts';
import type { Cursors } from '../../http/cursor.ts';
import { Data, ListOf, NoQuery } from '../../schemas/common.ts';
import { ChangeDetailSchema, ChangeParams, ChangeSchema, ListChangesQuery } from '../../schemas/changes.ts';

const read = { scope: 'changes:read' } as const;

function cursorPosition(cursors: Cursors, raw: string | undefined, filters: Record<string, unknown>) {
  if (raw === undefined) return null;
  const { d, i } = cursors.decode(raw, filters, ['d', 'i']);
  const detectedAt = new Date(d);
  if (Number.isNaN(detectedAt.getTime()) || !isUuid(i)) throw new AppError('malformed_cursor', 'the cursor is malformed');
  return { detectedAt, id: i };
}

const instant = (text: string | undefined) => (text === undefined ? undefined : new Date(text));

export const changeRoutes: FastifyPluginAsyncTypebox<AppDeps> = async (app, deps) => {
  app.get(
    '/changes',
    {
      config: read,
      schema: {
        operationId: 'listChanges',
        summary: 'List retained changes, newest first',
        description:
          'Includes value changes that matched no alert rule (rule_matches []). Filters: monitor_id, target_id, since (inclusive), until (exclusive), ' +
          'matched. Follow meta.next_cursor with the same filters until it is null (400 malformed_cursor otherwise); the traversal is not a snapshot, ' +
          "so deduplicate change ids. Changes older than the plan's retention (90 days on Pro) are not returned.",
        tags: ['changes'],
        querystring: ListChangesQuery,
        response: { 200: ListOf(ChangeSchema) },
      },
    },
    async (request) => {
      const q = request.query;
      const since = instant(q.since);
      const until = instant(q.until);
      // Instants are compared, not their spelling: "…Z" and "…+00:00" make the same cursor.
      const filters = {
        monitor_id: q.monitor_id ?? null,
        target_id: q.target_id ?? null,
        since: since?.toISOString() ?? null,
        until: until?.toISOString() ?? null,
        matched: q.matched ?? null,
      };
      const page = await listChangePage(deps, request.principal!, {
        monitorId: q.monitor_id,
        targetId: q.target_id,
        since,
        until,
        matched: q.matched,
        limit: q.limit,
        after: cursorPosition(deps.cursors, q.cursor, filters),
      });
      const next = page.next ? deps.cursors.encode({ d: page.next.detectedAt.toISOString(), i: page.next.id }, filters) : null;
      return { data: page.rows, meta: { next_cursor: next } };
    },
  );

  app.get(
    '/changes/:change_id',
    {
      config: read,
      schema: {
        operationId: 'getChange',
        summary: 'Read a change with its captured texts and diff',
        description:
          'before_text and after_text are the captured plain text of the target on both sides (untrusted; never render as HTML), null when the ' +
          'snapshot is unavailable; diff is their unified diff. A change of another account or past retention is 404.',
        tags: ['changes'],
        querystring: NoQuery,
        params: ChangeParams,
        response: { 200: Data(ChangeDetailSchema) },
      },
    },
    async (request) => ({ data: await getChangeDetail(deps, request.principal!, request.params.change_id) }),
  );
};
