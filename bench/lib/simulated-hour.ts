import { randomUUID } from 'node:crypto';
import { extractTarget, parsePage } from '../../src/domain/extract/index.ts';
import type { ObservedValue } from '../../src/domain/observed-value.ts';
import { detectChange } from '../../src/domain/rules.ts';
import { targetFingerprint } from '../../src/domain/target-fingerprint.ts';
import type { Target } from '../../src/domain/targets.ts';
import type { Plan } from '../../src/domain/plans.ts';
import type { Database, Queryable } from '../../src/store/database.ts';
import { readBaselinesOf, writeBaselines, type BaselineRow } from '../../src/store/baselines-store.ts';
import { insertChanges, type ChangeRow } from '../../src/store/changes-store.ts';
import { saveTexts, textHash, type TextRow } from '../../src/store/texts-store.ts';
import { recordChecksInBulk } from './bulk-checks.ts';
import { smallPage, smallPageVersion } from './pages.ts';

// An hour of history written in bulk, for the store size the scale benchmark
// reports: running 1,200,000 real checks would take longer than this machine
// has. Every monitor is "checked" once per interval; what each check writes is
// decided by the product's own domain code on the page the fixture site would
// have served then (extraction, change detection, fingerprints, text hashes).
// Every row is written with the engine's own statements: texts, baselines and
// changes here, each check's claim and commit (allowance, lease, check state,
// history row) in bench/lib/bulk-checks.ts. Not simulated: loads, per-batch
// transactions and their WAL.

export interface SimulatedMonitor {
  id: string;
  /** the page number of /small/<n>.html */
  n: number;
  url: string;
  host: string;
  /** the monitor's first simulated check: one of its own slots (src/domain/schedule.ts); the others follow one interval apart */
  firstAt: Date;
}

interface SlotRows {
  texts: TextRow[];
  baselines: BaselineRow[];
  changes: ChangeRow[];
}

/** Rows per statement: a slot of 100,000 monitors writes tens of thousands of each. */
const BATCH = 5000;

async function inBatches<T>(rows: T[], write: (db: Queryable, batch: T[]) => Promise<void>, db: Queryable): Promise<void> {
  for (let i = 0; i < rows.length; i += BATCH) await write(db, rows.slice(i, i + BATCH));
}

/** What one slot's checks of every monitor would record, decided by the domain code. */
function decideSlot(
  monitors: SimulatedMonitor[],
  targets: Target[],
  /** by monitor and target, as the store holds them; updated with what each slot writes */
  baselines: Map<string, Map<string, BaselineRow>>,
  served: Map<string, number>,
  options: { accountId: string; atOf: (monitor: SimulatedMonitor) => Date; changeSeconds: number; fingerprints: Map<string, string> },
): SlotRows {
  const { accountId } = options;
  const rows: SlotRows = { texts: [], baselines: [], changes: [] };
  for (const monitor of monitors) {
    const at = options.atOf(monitor);
    const version = smallPageVersion(monitor.n, at.getTime(), options.changeSeconds);
    // The same page as last time: every value is unchanged, the check writes only its claim and commit (bulk-checks.ts).
    if (served.get(monitor.id) === version) continue;
    served.set(monitor.id, version);
    const page = parsePage(smallPage(monitor.n, version), monitor.url);
    const stored = baselines.get(monitor.id)!;
    for (const target of targets) {
      const extraction = extractTarget(page, target);
      if (!extraction.ok) continue;
      const before = stored.get(target.id);
      const decision = detectChange(target, (before?.value as ObservedValue | undefined) ?? null, extraction.value);
      if (decision.outcome !== 'seeded' && decision.outcome !== 'changed') continue;
      const hash = extraction.text === null ? null : textHash(extraction.text);
      if (hash !== null && extraction.text !== null) rows.texts.push({ hash, content: extraction.text, used_at: at });
      const baseline: BaselineRow = {
        monitor_id: monitor.id,
        target_id: target.id,
        fingerprint: options.fingerprints.get(target.id)!,
        value: decision.baseline,
        display: extraction.display,
        text_hash: hash,
        seen_links: [],
        updated_at: at,
        pending_value: null,
        pending_since: null,
      };
      stored.set(target.id, baseline);
      rows.baselines.push(baseline);
      if (decision.outcome !== 'changed') continue;
      rows.changes.push({
        id: randomUUID(),
        account_id: accountId,
        monitor_id: monitor.id,
        target_id: target.id,
        kind: target.kind,
        detected_at: at,
        rule_matches: decision.ruleMatches,
        matched: decision.ruleMatches === null || decision.ruleMatches.length > 0,
        before_value: decision.before,
        before_display: before?.display ?? null,
        after_value: decision.after,
        after_display: extraction.display,
        before_text_hash: before?.text_hash ?? null,
        after_text_hash: hash,
      });
    }
  }
  return rows;
}

/** The ids of the changes each monitor's check found. */
function changeIdsByMonitor(changes: ChangeRow[]): Map<string, string[]> {
  const byMonitor = new Map<string, string[]>();
  for (const change of changes) byMonitor.set(change.monitor_id, [...(byMonitor.get(change.monitor_id) ?? []), change.id]);
  return byMonitor;
}

/** A slot's texts, baselines and changes, with the statements the engine's commit writes them with. */
async function writeSlot(db: Queryable, rows: SlotRows): Promise<void> {
  await inBatches(rows.texts, saveTexts, db);
  await inBatches(rows.baselines, writeBaselines, db);
  await inBatches(rows.changes, insertChanges, db);
}

/**
 * Writes `slots` checks of every monitor, each at its own slots from its
 * `firstAt` on, one interval apart, continuing from the baselines the store
 * holds. Each monitor at its own slots, as the engine checks it: since #33 a
 * slot less than an interval after the previous capture waits, so captures
 * stamped at one instant for all would make the next real slots wait.
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
    slots: number;
  },
): Promise<void> {
  const baselines = await readBaselinesOf(
    db,
    options.monitors.map((m) => m.id),
  );
  const fingerprints = new Map(options.targets.map((t) => [t.id, targetFingerprint(t, 'html')]));
  const served = new Map<string, number>();
  // In order of their slots, so that the monitors of a batch share few instants (bulk-checks.ts).
  const monitors = [...options.monitors].sort((a, b) => a.firstAt.getTime() - b.firstAt.getTime());
  const checked = monitors.map((m) => ({ id: m.id, accountId: options.accountId, host: m.host, firstAt: m.firstAt }));
  const periodMs = options.intervalMinutes * 60_000;
  for (let slot = 0; slot < options.slots; slot++) {
    const atOf = (monitor: { firstAt: Date }) => new Date(monitor.firstAt.getTime() + slot * periodMs);
    const rows = decideSlot(monitors, options.targets, baselines, served, { ...options, atOf, fingerprints });
    await writeSlot(db, rows);
    await recordChecksInBulk(db, checked, {
      atOf,
      intervalMinutes: options.intervalMinutes,
      plan: options.plan,
      changes: changeIdsByMonitor(rows.changes),
    });
  }
}
