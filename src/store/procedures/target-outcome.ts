import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { currencyExponent } from '../../domain/extract/money.ts';
import type { TargetExtraction } from '../../domain/extract/index.ts';
import { isObservedValue, valuesEqual, type ObservedValue } from '../../domain/observed-value.ts';
import { detectChange } from '../../domain/rules.ts';
import { targetFingerprint } from '../../domain/target-fingerprint.ts';
import type { Target } from '../../domain/targets.ts';
import type { BaselineRow } from '../baselines-store.ts';
import type { ChangeRow } from '../changes-store.ts';
import { textHash, type TextRow } from '../texts-store.ts';
import type { LoadMode } from '../../domain/load-mode.ts';

// One target of one capture: compare with the baseline, and decide the change
// (if any) and the baseline's move. An undetermined value touches nothing: the
// check issue explains it and the old baseline stays. A baseline equal to the
// stored row is not rewritten, so its updated_at is when it last changed.
// Only decided here, without a statement: the commit writes the texts and the
// baselines of a whole batch of checks in one statement each (commit-checks.ts).

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

/** What one target of a capture writes. */
export interface TargetDecision {
  /** the change to insert; its texts are in `text` or stored already */
  change: (RecordedChange & { row: ChangeRow }) | null;
  /** a confirm target saw a new value for the first time: it becomes a change only if the re-check sees it again */
  awaitingConfirmation: boolean;
  /** the value the confirm target waits to see again (the baseline itself does not move) */
  pending: { value: ObservedValue; since: Date } | null;
  /** the captured text to store before the baseline or change that refers to it */
  text: TextRow | null;
  /** the baseline to write; null when the stored one stays as it is */
  baseline: BaselineRow | null;
}

const NOTHING: TargetDecision = { change: null, awaitingConfirmation: false, pending: null, text: null, baseline: null };

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

/** The text to store (and its key), null when it is not kept, or the baseline's own key when it refers to this very text. */
function textToStore(text: string | null, previousHash: string | null, at: Date): { hash: string | null; row: TextRow | null } {
  if (text === null || text.length > MAX_STORED_TEXT_CHARS) return { hash: null, row: null };
  const hash = textHash(text);
  // The baseline already refers to this very text: nothing to write.
  if (hash === previousHash) return { hash, row: null };
  return { hash, row: { hash, content: text, used_at: at } };
}

export function decideTarget(
  context: TargetContext,
  target: Target,
  extraction: TargetExtraction | null,
  stored: BaselineRow | undefined,
): TargetDecision {
  const fingerprint = targetFingerprint(target, context.loadMode);
  const baseline = applicableBaseline(target, stored, fingerprint);
  const current = extraction?.ok ? (extraction.value as ObservedValue) : null;
  const decision = detectChange(target, baseline?.value ?? null, current, {
    seenLinks: new Set(baseline?.row.seen_links ?? []),
    currencyExponent: target.currency ? (currencyExponent(target.currency) ?? undefined) : undefined,
  });
  if (decision.outcome === 'undetermined' || extraction === null) return NOTHING;
  if (target.confirm && decision.outcome === 'changed' && baseline && !confirms(target, baseline.row, decision.after)) {
    return { ...NOTHING, awaitingConfirmation: true, pending: { value: decision.after, since: context.at } };
  }

  const previousHash = baseline?.row.text_hash ?? null;
  const text = textToStore(extraction.text, previousHash, context.at);
  const afterHash = text.hash;
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
  let written: BaselineRow | null = null;
  if (!sameBaseline(stored, next)) {
    // Dropping a value that flipped back is no change of the baseline: it keeps its time.
    const onlyPendingDropped = stored !== undefined && sameBaseline({ ...stored, pending_value: null }, next);
    written = { ...next, updated_at: onlyPendingDropped ? stored.updated_at : context.at };
  }
  const kept = { ...NOTHING, text: text.row, baseline: written };
  if (decision.outcome !== 'changed') return kept;

  const id = randomUUID();
  const notify = decision.ruleMatches === null || decision.ruleMatches.length > 0;
  const row: ChangeRow = {
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
  };
  return { ...kept, change: { id, notify, row } };
}
