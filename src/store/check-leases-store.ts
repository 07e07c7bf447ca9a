import type { Queryable } from './database.ts';
import type { MonitorSchedule } from '../domain/monitor-schedule.ts';

// Claiming work. Claims are serialised across every process sharing the
// database by one transaction-scoped advisory lock (a claim takes
// milliseconds), which makes the per-host concurrency count exact; the rows
// themselves are taken FOR UPDATE SKIP LOCKED so a claim never waits for an
// API transaction that is editing a monitor.

const CLAIM_LOCK_KEY = 7_426_105;

/**
 * Takes the claim lock, and fixes how the claim's statements are planned for
 * the rest of its transaction. Join order as written: the candidate query
 * joins six relations, and searching their orders was most of a claim's cost
 * on PGlite (docs/decisions/0019-claims-the-candidate-querys-join-order.md).
 * Nested loops only: a claim's candidates are always few (at most its limit, plus queued
 * manual checks and expired leases), but the planner cannot know that of the
 * expired leases, and with `check_leases` full of dead rows between vacuums it
 * expected thousands and hash-joined them with a scan of every monitor
 * (docs/decisions/0047-claims-dead-leases-turned-the-candidate-query-into.md).
 */
export async function lockClaims(db: Queryable): Promise<void> {
  await db.query(
    `SELECT pg_advisory_xact_lock($1), set_config('join_collapse_limit', '1', true), set_config('from_collapse_limit', '1', true),
       set_config('enable_hashjoin', 'off', true), set_config('enable_mergejoin', 'off', true)`,
    [CLAIM_LOCK_KEY],
  );
}

export interface ClaimCandidate {
  id: string;
  account_id: string;
  plan: string;
  url: string;
  load_mode: 'html' | 'browser';
  proxy: string | null;
  interval_minutes: number;
  schedule: MonitorSchedule | null;
  targets: unknown[];
  steps: unknown[];
  config_version: number;
  next_check_at: Date | null;
  last_checked_at: Date | null;
  email_enabled: boolean;
  webhook_enabled: boolean;
  /** the monitor's queued manual check (not expired), if any */
  queued_check_id: string | null;
  /** an expired lease of a worker that died: its fields, to take it over */
  lease_attempt: number | null;
  lease_scheduled: boolean | null;
  lease_manual_check_id: string | null;
  lease_reserved_metric: string | null;
  lease_reserved_period: Date | null;
  /**
   * the validators of the page's last full answer (migration 029), when they
   * were read under the current configuration and no target waits for a
   * confirming re-check (which must read the page)
   */
  validator_etag: string | null;
  validator_last_modified: string | null;
}

/**
 * Active monitors of accounts on `plans` that nobody is checking and that
 * have something to do at `at`: due, a queued manual check, or an expired
 * lease to take over. Most overdue first.
 *
 * Each reason is looked up on its own index and limited before the join, so
 * a claim reads a few rows however many monitors there are (one query with
 * the three reasons OR-ed sorted every active monitor: docs/decisions/0007-claims-every-claim-sorted-all-active-monitors.md).
 */
export async function findClaimCandidates(db: Queryable, at: Date, plans: string[], limit: number): Promise<ClaimCandidate[]> {
  return db.query<ClaimCandidate>(
    `WITH due AS (
       SELECT s.monitor_id AS id FROM check_state s JOIN monitors m ON m.id = s.monitor_id JOIN accounts a ON a.id = m.account_id
       WHERE s.active AND s.next_check_at <= $1::timestamptz AND a.plan = ANY($2::text[])
         AND NOT EXISTS (SELECT 1 FROM check_leases l WHERE l.monitor_id = s.monitor_id AND l.lease_expires_at > $1::timestamptz)
       ORDER BY s.next_check_at
       LIMIT $3
     ), wanted AS (
       SELECT id FROM due
       UNION SELECT monitor_id FROM manual_checks WHERE status = 'queued' AND expires_at > $1::timestamptz
       UNION SELECT monitor_id FROM check_leases WHERE lease_expires_at <= $1::timestamptz
     )
     SELECT m.id, m.account_id, a.plan, m.url, m.load_mode, m.proxy, m.interval_minutes, m.schedule, m.targets, m.steps, m.config_version,
            s.next_check_at, s.last_checked_at, m.email_enabled, m.webhook_enabled,
            q.id AS queued_check_id,
            l.attempt AS lease_attempt, l.scheduled AS lease_scheduled, l.manual_check_id AS lease_manual_check_id,
            l.reserved_metric AS lease_reserved_metric, l.reserved_period AS lease_reserved_period,
            v.etag AS validator_etag, v.last_modified AS validator_last_modified
     FROM wanted w
     JOIN monitors m ON m.id = w.id
     JOIN check_state s ON s.monitor_id = m.id
     JOIN accounts a ON a.id = m.account_id
     LEFT JOIN check_leases l ON l.monitor_id = m.id
     LEFT JOIN manual_checks q ON q.monitor_id = m.id AND q.status = 'queued' AND q.expires_at > $1::timestamptz
     LEFT JOIN page_validators v ON v.monitor_id = m.id AND v.config_version = m.config_version
       AND NOT EXISTS (SELECT 1 FROM baselines b WHERE b.monitor_id = m.id AND b.pending_value IS NOT NULL)
     WHERE m.status = 'active' AND a.plan = ANY($2::text[])
       AND (l.monitor_id IS NULL OR l.lease_expires_at <= $1::timestamptz)
       AND (s.next_check_at <= $1::timestamptz OR q.id IS NOT NULL OR l.monitor_id IS NOT NULL)
     ORDER BY s.next_check_at NULLS FIRST, m.id
     LIMIT $3
     FOR UPDATE OF m SKIP LOCKED`,
    [at, plans, limit],
  );
}

/** Live leases per host (checks under way right now). */
export async function countLiveLeasesByHost(db: Queryable, at: Date): Promise<Map<string, number>> {
  const rows = await db.query<{ host: string; n: number }>(
    'SELECT host, count(*)::int AS n FROM check_leases WHERE lease_expires_at > $1::timestamptz GROUP BY host',
    [at],
  );
  return new Map(rows.map((r) => [r.host, r.n]));
}

export interface LeaseRow {
  monitor_id: string;
  token: string;
  host: string;
  lease_expires_at: Date;
  attempt: number;
  scheduled: boolean;
  manual_check_id: string | null;
  reserved_metric: string | null;
  reserved_period: Date | null;
  claimed_at: Date;
}

/** Takes (or takes over) the leases of several monitors (distinct ones), in one statement. */
export async function writeLeases(db: Queryable, leases: LeaseRow[]): Promise<void> {
  if (leases.length === 0) return;
  const column = <K extends keyof LeaseRow>(key: K) => leases.map((l) => l[key]);
  await db.query(
    `INSERT INTO check_leases (monitor_id, token, host, lease_expires_at, attempt, scheduled, manual_check_id, reserved_metric, reserved_period, claimed_at)
     SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::timestamptz[], $5::int[], $6::boolean[], $7::uuid[], $8::text[], $9::timestamptz[], $10::timestamptz[])
     ON CONFLICT (monitor_id) DO UPDATE SET token = EXCLUDED.token, host = EXCLUDED.host, lease_expires_at = EXCLUDED.lease_expires_at,
       attempt = EXCLUDED.attempt, scheduled = EXCLUDED.scheduled, manual_check_id = EXCLUDED.manual_check_id,
       reserved_metric = EXCLUDED.reserved_metric, reserved_period = EXCLUDED.reserved_period, claimed_at = EXCLUDED.claimed_at`,
    [
      column('monitor_id'),
      column('token'),
      column('host'),
      column('lease_expires_at'),
      column('attempt'),
      column('scheduled'),
      column('manual_check_id'),
      column('reserved_metric'),
      column('reserved_period'),
      column('claimed_at'),
    ],
  );
}

/** The lease if this worker still holds it (same token), locked for the transaction. */
export async function lockHeldLease(db: Queryable, monitorId: string, token: string): Promise<LeaseRow | null> {
  const rows = await db.query<LeaseRow>('SELECT * FROM check_leases WHERE monitor_id = $1 AND token = $2 FOR UPDATE', [monitorId, token]);
  return rows[0] ?? null;
}

/** What a check's commit needs of its monitor. */
export interface MonitorState {
  id: string;
  status: string;
  config_version: number;
  email_enabled: boolean;
  webhook_enabled: boolean;
  /** the channels its alerts go to */
  channel_ids: string[];
  failing_after: number;
}

/** The monitor's check state as the commit found it (locked). */
export interface HeldCheckState {
  next_check_at: Date | null;
  consecutive_failures: number;
  failing_since: Date | null;
}

export interface HeldCheck {
  lease: LeaseRow;
  monitor: MonitorState;
  state: HeldCheckState;
  /** whether the lease's host has a backoff row (active or expired) */
  hostHasBackoff: boolean;
}

/**
 * The leases these workers still hold (same token), with their monitors and
 * check states, all locked for the transaction in one statement; keyed by
 * monitor id. A check whose lease or monitor is gone is absent.
 */
export async function lockHeldChecks(db: Queryable, checks: { monitorId: string; token: string }[]): Promise<Map<string, HeldCheck>> {
  if (checks.length === 0) return new Map();
  const rows = await db.query<LeaseRow & Omit<MonitorState, 'id'> & HeldCheckState & { host_has_backoff: boolean }>(
    `SELECT l.*, m.status, m.config_version, m.email_enabled, m.webhook_enabled, m.channel_ids::text[] AS channel_ids, m.failing_after,
            s.next_check_at, s.consecutive_failures, s.failing_since,
            EXISTS (SELECT 1 FROM host_backoff b WHERE b.host = l.host) AS host_has_backoff
     FROM unnest($1::uuid[], $2::uuid[]) AS h(monitor_id, token)
     JOIN check_leases l ON l.monitor_id = h.monitor_id AND l.token = h.token
     JOIN monitors m ON m.id = l.monitor_id
     JOIN check_state s ON s.monitor_id = l.monitor_id
     ORDER BY l.monitor_id
     FOR UPDATE OF l, m, s`,
    [checks.map((c) => c.monitorId), checks.map((c) => c.token)],
  );
  return new Map(
    rows.map((row) => {
      const {
        status,
        config_version,
        email_enabled,
        webhook_enabled,
        channel_ids,
        failing_after,
        next_check_at,
        consecutive_failures,
        failing_since,
        host_has_backoff,
        ...lease
      } = row;
      const monitor = { id: lease.monitor_id, status, config_version, email_enabled, webhook_enabled, channel_ids, failing_after };
      const state = { next_check_at, consecutive_failures, failing_since };
      return [lease.monitor_id, { lease, monitor, state, hostHasBackoff: host_has_backoff }];
    }),
  );
}

export async function deleteLease(db: Queryable, monitorId: string, token: string): Promise<void> {
  await db.query('DELETE FROM check_leases WHERE monitor_id = $1 AND token = $2', [monitorId, token]);
}

/** Deletes the monitor's lease whoever holds it (settling an expired one). */
export async function deleteLeaseOf(db: Queryable, monitorId: string): Promise<void> {
  await db.query('DELETE FROM check_leases WHERE monitor_id = $1', [monitorId]);
}

/**
 * The heartbeat of a worker: the leases it still holds (same token) run until
 * `until`, in one statement. A lease taken over or given back meanwhile has
 * another token and is left alone.
 */
export async function renewLeases(db: Queryable, held: { monitorId: string; token: string }[], until: Date): Promise<void> {
  if (held.length === 0) return;
  await db.query(
    `UPDATE check_leases l SET lease_expires_at = $3::timestamptz
     FROM unnest($1::uuid[], $2::uuid[]) AS h(monitor_id, token)
     WHERE l.monitor_id = h.monitor_id AND l.token = h.token`,
    [held.map((h) => h.monitorId), held.map((h) => h.token), until],
  );
}

/**
 * Gives a held lease back for a later attempt: it expires at once (the next
 * cycle takes it over), carries no reservation any more (it was refunded) and
 * gets a token of its own, so that a late heartbeat of the worker that gave it
 * back does not renew it.
 */
export async function deferLease(db: Queryable, monitorId: string, token: string, at: Date): Promise<void> {
  await db.query(
    `UPDATE check_leases SET lease_expires_at = $3::timestamptz, reserved_metric = NULL, reserved_period = NULL, token = gen_random_uuid()
     WHERE monitor_id = $1 AND token = $2`,
    [monitorId, token, at],
  );
}

/**
 * Expired leases of monitors that will not be claimed again (paused, or the
 * account lost Pro): their dead worker's reservation must be given back.
 * Locked and returned; the caller settles and deletes them.
 */
export async function lockAbandonedLeases(db: Queryable, at: Date, plans: string[]): Promise<(LeaseRow & { account_id: string })[]> {
  return db.query<LeaseRow & { account_id: string }>(
    `SELECT l.*, m.account_id FROM check_leases l JOIN monitors m ON m.id = l.monitor_id JOIN accounts a ON a.id = m.account_id
     WHERE l.lease_expires_at <= $1::timestamptz AND (m.status <> 'active' OR NOT (a.plan = ANY($2::text[])))
     FOR UPDATE OF l SKIP LOCKED`,
    [at, plans],
  );
}
