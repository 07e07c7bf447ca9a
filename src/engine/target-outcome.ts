import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { currencyExponent } from '../domain/extract/index.ts';
import type { TargetExtraction } from '../domain/extract/index.ts';
import { isObservedValue, valuesEqual, type ObservedValue } from '../domain/observed-value.ts';
import { detectChange } from '../domain/rules.ts';
import { targetFingerprint } from '../domain/target-fingerprint.ts';
import type { Target } from '../domain/targets.ts';
import type { Queryable } from '../store/database.ts';
import { setPendingValue, writeBaseline, type BaselineRow } from '../store/baselines-store.ts';
import { insertChange } from '../store/changes-store.ts';
import { saveText, textHash } from '../store/texts-store.ts';
import type { LoadMode } from '../domain/load-mode.ts';

// One target of one capture: compare with the baseline, record the change (if
// any) and move the baseline. An undetermined value touches nothing: the
// check issue explains it and the old baseline stays. A baseline equal to the
// stored row is not rewritten, so its updated_at is when it last changed.

/** Captured texts longer than this are not kept (the change's text is then null). */
export const MAX_STORED_TEXT_CHARS = 1_000_000;
/** Links remembered per target for new_links; the oldest are forgotten first. */
export const MAX_SEEN_LINKS = 1000;

export interface TargetContext {
  monitorId: string;
  accountId: string;
  loadMode: LoadMode;
  at: Date;
}

export interface RecordedChange {
  id: string;
  notify: boolean;
}

export interface TargetRecord {
  change: RecordedChange | null;
  /** a confirm target saw a new value for the first time: it becomes a change only if the re-check sees it again */
  awaitingConfirmation: boolean;
}

const NOTHING: TargetRecord = { change: null, awaitingConfirmation: false };

/** Whether the re-check of a confirm target sees the value its previous check saw first. */
function confirms(target: Target, stored: BaselineRow, value: ObservedValue): boolean {
  return (
    stored.pending_value !== null &&
    isObservedValue(target.kind, stored.pending_value) &&
    valuesEqual(target.kind, stored.pending_value, value)
  );
}

/** The stored baseline if it still applies to the target as configured now. */
function applicableBaseline(
  target: Target,
  row: BaselineRow | undefined,
  fingerprint: string,
): { value: ObservedValue; row: BaselineRow } | null {
  if (!row || row.fingerprint !== fingerprint || !isObservedValue(target.kind, row.value)) return null;
  return { value: row.value, row };
}

/** Whether writing `next` would leave the stored row as it is (updated_at aside). */
function sameBaseline(stored: BaselineRow | undefined, next: Omit<BaselineRow, 'updated_at'>): boolean {
  if (!stored) return false;
  // The stored value went through jsonb: compare with what the new one will read back as.
  const value = JSON.parse(JSON.stringify(next.value)) as unknown;
  return (
    stored.pending_value === null &&
    stored.fingerprint === next.fingerprint &&
    stored.display === next.display &&
    stored.text_hash === next.text_hash &&
    isDeepStrictEqual(stored.value, value) &&
    isDeepStrictEqual(stored.seen_links, next.seen_links)
  );
}

async function storeText(tx: Queryable, text: string | null, previousHash: string | null, at: Date): Promise<string | null> {
  if (text === null || text.length > MAX_STORED_TEXT_CHARS) return null;
  // The baseline already refers to this very text: nothing to write.
  if (previousHash !== null && textHash(text) === previousHash) return previousHash;
  return saveText(tx, text, at);
}

export async function recordTarget(
  tx: Queryable,
  context: TargetContext,
  target: Target,
  extraction: TargetExtraction | null,
  stored: BaselineRow | undefined,
): Promise<TargetRecord> {
  const fingerprint = targetFingerprint(target, context.loadMode);
  const baseline = applicableBaseline(target, stored, fingerprint);
  const current = extraction?.ok ? (extraction.value as ObservedValue) : null;
  const decision = detectChange(target, baseline?.value ?? null, current, {
    seenLinks: new Set(baseline?.row.seen_links ?? []),
    currencyExponent: target.currency ? (currencyExponent(target.currency) ?? undefined) : undefined,
  });
  if (decision.outcome === 'undetermined' || extraction === null) return NOTHING;
  if (target.confirm && decision.outcome === 'changed' && baseline && !confirms(target, baseline.row, decision.after)) {
    await setPendingValue(tx, context.monitorId, target.id, { value: decision.after, since: context.at });
    return { change: null, awaitingConfirmation: true };
  }

  const previousHash = baseline?.row.text_hash ?? null;
  const afterHash = await storeText(tx, extraction.text, previousHash, context.at);
  const seen = [...(baseline?.row.seen_links ?? []), ...decision.newlySeenLinks].slice(-MAX_SEEN_LINKS);
  const next = {
    monitor_id: context.monitorId,
    target_id: target.id,
    fingerprint,
    value: decision.baseline,
    display: extraction.display,
    text_hash: afterHash,
    seen_links: seen,
    pending_value: null,
    pending_since: null,
  };
  if (!sameBaseline(stored, next)) {
    // Dropping a value that flipped back is no change of the baseline: it keeps its time.
    const onlyPendingDropped = stored !== undefined && sameBaseline({ ...stored, pending_value: null }, next);
    await writeBaseline(tx, { ...next, updated_at: onlyPendingDropped ? stored.updated_at : context.at });
  }
  if (decision.outcome !== 'changed') return NOTHING;

  const id = randomUUID();
  const notify = decision.ruleMatches === null || decision.ruleMatches.length > 0;
  await insertChange(tx, {
    id,
    account_id: context.accountId,
    monitor_id: context.monitorId,
    target_id: target.id,
    kind: target.kind,
    detected_at: context.at,
    rule_matches: decision.ruleMatches,
    matched: notify,
    before_value: decision.before,
    before_display: baseline?.row.display ?? null,
    after_value: decision.after,
    after_display: extraction.display,
    before_text_hash: previousHash,
    after_text_hash: afterHash,
  });
  return { change: { id, notify }, awaitingConfirmation: false };
}
