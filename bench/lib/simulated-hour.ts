import { randomUUID } from 'node:crypto';
import { extractTarget, parsePage } from '../../src/domain/extract/index.ts';
import type { ObservedValue } from '../../src/domain/observed-value.ts';
import { detectChange } from '../../src/domain/rules.ts';
import { targetFingerprint } from '../../src/domain/target-fingerprint.ts';
import type { Target } from '../../src/domain/targets.ts';
import type { Plan } from '../../src/domain/plans.ts';
import type { Database, Queryable } from '../../src/store/database.ts';
import { textHash } from '../../src/store/texts-store.ts';
import { recordChecksInBulk } from './bulk-checks.ts';
import { smallPage, smallPageVersion } from './pages.ts';

// An hour of history written in bulk, for the store size the scale benchmark
// reports: running 1,200,000 real checks would take longer than this machine
// has. Every monitor is "checked" once per interval; what each check writes is
// decided by the product's own domain code on the page the fixture site would
// have served then (extraction, change detection, fingerprints, text hashes).
// Texts, baselines and changes are written here; each check's claim and
// commit (allowance, lease, check state, history row) with the engine's own
// statements (bench/lib/bulk-checks.ts). Not simulated: loads, per-batch
// transactions and their WAL.

export interface SimulatedMonitor {
  id: string;
  /** the page number of /small/<n>.html */
  n: number;
  url: string;
  host: string;
}

interface Baseline {
  value: ObservedValue;
  display: string | null;
  textHash: string | null;
}

interface SlotRows {
  texts: Map<string, string>;
  baselines: { monitorId: string; targetId: string; value: string; display: string | null; textHash: string | null }[];
  changes: unknown[][];
  /** the ids of the changes each monitor's check found */
  changeIds: Map<string, string[]>;
}

const BATCH = 5000;
/** What the history rows record as each simulated check's duration. */
const SIMULATED_DURATION_MS = 40;

async function inBatches<T>(rows: T[], write: (batch: T[]) => Promise<void>): Promise<void> {
  for (let i = 0; i < rows.length; i += BATCH) await write(rows.slice(i, i + BATCH));
}

async function readStoredBaselines(db: Queryable, accountId: string): Promise<Map<string, Baseline>> {
  const rows = await db.query<{
    monitor_id: string;
    target_id: string;
    value: ObservedValue;
    display: string | null;
    text_hash: string | null;
  }>(
    'SELECT b.monitor_id, b.target_id, b.value, b.display, b.text_hash FROM baselines b JOIN monitors m ON m.id = b.monitor_id WHERE m.account_id = $1',
    [accountId],
  );
  return new Map(rows.map((r) => [`${r.monitor_id}/${r.target_id}`, { value: r.value, display: r.display, textHash: r.text_hash }]));
}

/** What one slot's checks of every monitor would record, decided by the domain code. */
function decideSlot(
  monitors: SimulatedMonitor[],
  targets: Target[],
  baselines: Map<string, Baseline>,
  served: Map<string, number>,
  options: { accountId: string; at: Date; changeSeconds: number },
): SlotRows {
  const rows: SlotRows = { texts: new Map(), baselines: [], changes: [], changeIds: new Map() };
  for (const monitor of monitors) {
    const version = smallPageVersion(monitor.n, options.at.getTime(), options.changeSeconds);
    // The same page as last time: every value is unchanged, the check writes only its claim and commit (bulk-checks.ts).
    if (served.get(monitor.id) === version) continue;
    served.set(monitor.id, version);
    const page = parsePage(smallPage(monitor.n, version), monitor.url);
    const changeIds: string[] = [];
    for (const target of targets) {
      const extraction = extractTarget(page, target);
      if (!extraction.ok) continue;
      const key = `${monitor.id}/${target.id}`;
      const stored = baselines.get(key) ?? null;
      const decision = detectChange(target, stored?.value ?? null, extraction.value);
      if (decision.outcome !== 'seeded' && decision.outcome !== 'changed') continue;
      const hash = extraction.text === null ? null : textHash(extraction.text);
      if (hash !== null && extraction.text !== null) rows.texts.set(hash, extraction.text);
      baselines.set(key, { value: decision.baseline, display: extraction.display, textHash: hash });
      rows.baselines.push({
        monitorId: monitor.id,
        targetId: target.id,
        value: JSON.stringify(decision.baseline),
        display: extraction.display,
        textHash: hash,
      });
      if (decision.outcome !== 'changed') continue;
      const changeId = randomUUID();
      changeIds.push(changeId);
      rows.changes.push([
        changeId,
        monitor.id,
        target.id,
        target.kind,
        JSON.stringify(decision.ruleMatches),
        decision.ruleMatches === null || decision.ruleMatches.length > 0,
        JSON.stringify(decision.before),
        stored?.display ?? null,
        JSON.stringify(decision.after),
        extraction.display,
        stored?.textHash ?? null,
        hash,
      ]);
    }
    if (changeIds.length > 0) rows.changeIds.set(monitor.id, changeIds);
  }
  return rows;
}

async function writeSlot(
  db: Queryable,
  rows: SlotRows,
  options: { accountId: string; at: Date; fingerprints: Map<string, string> },
): Promise<void> {
  const { accountId, at } = options;
  await inBatches([...rows.texts], (batch) =>
    db
      .query(
        `INSERT INTO texts (hash, content, last_used_at) SELECT h, c, $3::timestamptz FROM unnest($1::text[], $2::text[]) AS t(h, c)
       ON CONFLICT (hash) DO UPDATE SET last_used_at = EXCLUDED.last_used_at`,
        [batch.map(([hash]) => hash), batch.map(([, content]) => content), at],
      )
      .then(() => undefined),
  );
  await inBatches(rows.baselines, (batch) =>
    db
      .query(
        `INSERT INTO baselines (monitor_id, target_id, fingerprint, value, display, text_hash, seen_links, updated_at)
       SELECT m, t, f, v::jsonb, d, h, '[]'::jsonb, $7::timestamptz FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[]) AS b(m, t, f, v, d, h)
       ON CONFLICT (monitor_id, target_id) DO UPDATE SET
         value = EXCLUDED.value, display = EXCLUDED.display, text_hash = EXCLUDED.text_hash, updated_at = EXCLUDED.updated_at`,
        [
          batch.map((b) => b.monitorId),
          batch.map((b) => b.targetId),
          batch.map((b) => options.fingerprints.get(b.targetId)),
          batch.map((b) => b.value),
          batch.map((b) => b.display),
          batch.map((b) => b.textHash),
          at,
        ],
      )
      .then(() => undefined),
  );
  await inBatches(rows.changes, (batch) => {
    const column = (i: number) => batch.map((row) => row[i]);
    return db
      .query(
        `INSERT INTO changes (id, account_id, monitor_id, target_id, kind, detected_at, rule_matches, matched,
         before_value, before_display, after_value, after_display, before_text_hash, after_text_hash)
       SELECT id, $13, m, t, k, $14::timestamptz, r::jsonb, ok, bv::jsonb, bd, av::jsonb, ad, bh, ah
       FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[], $5::text[], $6::boolean[], $7::text[], $8::text[], $9::text[], $10::text[], $11::text[], $12::text[])
         AS c(id, m, t, k, r, ok, bv, bd, av, ad, bh, ah)`,
        [...Array.from({ length: 12 }, (_, i) => column(i)), accountId, at],
      )
      .then(() => undefined);
  });
}

/**
 * Writes `slots` checks of every monitor, one interval apart from `from`,
 * continuing from the baselines the real run left.
 */
export async function simulateHistory(
  db: Database,
  options: {
    accountId: string;
    /** the account's plan (its allowance is reserved as the engine's claims do) */
    plan: Plan;
    monitors: SimulatedMonitor[];
    targets: Target[];
    intervalMinutes: number;
    changeSeconds: number;
    from: Date;
    slots: number;
  },
): Promise<void> {
  const baselines = await readStoredBaselines(db, options.accountId);
  const fingerprints = new Map(options.targets.map((t) => [t.id, targetFingerprint(t, 'html')]));
  const served = new Map<string, number>();
  for (let slot = 1; slot <= options.slots; slot++) {
    const at = new Date(options.from.getTime() + slot * options.intervalMinutes * 60_000);
    const rows = decideSlot(options.monitors, options.targets, baselines, served, { ...options, at });
    await writeSlot(db, rows, { ...options, at, fingerprints });
    await recordChecksInBulk(
      db,
      options.monitors.map((m) => ({ id: m.id, accountId: options.accountId, host: m.host })),
      { at, intervalMinutes: options.intervalMinutes, plan: options.plan, durationMs: SIMULATED_DURATION_MS, changes: rows.changeIds },
    );
  }
}
