import type { Static } from '@sinclair/typebox';
import type { CheckRunSchema } from '../schemas/checks.ts';
import { listCheckRuns, type CheckRunRow } from '../store/check-runs-store.ts';
import { getMonitor, type MonitorDeps } from './monitors.ts';
import type { Principal } from './tokens.ts';

// A monitor's check history: every recorded check, newest first, within the
// plan's retention (applied on read, before the periodic cleanup deletes it).

const DAY_MS = 86_400_000;

export type CheckRunView = Static<typeof CheckRunSchema>;

export function checkRunView(row: CheckRunRow): CheckRunView {
  return {
    checked_at: row.checked_at.toISOString(),
    duration_ms: row.duration_ms,
    outcome: row.outcome,
    http_status: row.http_status,
    manual_check_id: row.manual_check_id,
    issues: row.issues ?? [],
    changes: row.changes ?? [],
  };
}

export async function listCheckHistory(
  deps: MonitorDeps,
  principal: Principal,
  monitorId: string,
  query: { limit: number; beforeSeq: string | null },
): Promise<{ rows: CheckRunView[]; next: string | null }> {
  await getMonitor(deps, principal, monitorId);
  const retainedAfter = new Date(deps.clock.now().getTime() - principal.plan.retention_days * DAY_MS);
  const rows = await listCheckRuns(deps.db, { monitorId, retainedAfter, beforeSeq: query.beforeSeq, limit: query.limit + 1 });
  const page = rows.slice(0, query.limit);
  return { rows: page.map(checkRunView), next: rows.length > query.limit ? (page.at(-1)?.seq ?? null) : null };
}
