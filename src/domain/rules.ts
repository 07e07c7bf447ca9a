import type { Target, TargetRule } from './targets.ts';
import { containsPhrase } from './extract/phrase.ts';
import { valueOfKind, valuesEqual, type ObservedValue } from './observed-value.ts';

// Change detection and alert rules for one target (DESIGN §4). A change is a
// later capture whose value differs from the baseline; rules then say whether
// the change is worth an alert. Rules fire on transitions: `appears`,
// `available`, `below` and friends fire when their condition becomes true, not
// on every check while it stays true.

/** One element of a change's `rule_matches`. */
export interface RuleMatch {
  target_id: string;
  rule: TargetRule;
}

/** What the caller knows beyond the two values, needed by some rules only. */
export interface DetectionContext {
  /**
   * Links targets: every URL observed for this target in earlier captures
   * (the caller keeps this set and adds `newlySeenLinks` of each decision to
   * it). The baseline's links always count as seen, so callers that keep no
   * history still get correct answers for links that were never removed.
   */
  seenLinks?: ReadonlySet<string>;
  /**
   * Price targets with rule `below`: the number of minor-unit digits of the
   * target's currency (2 for EUR, 0 for JPY), to read the threshold.
   */
  currencyExponent?: number;
}

interface DecisionBase {
  /** the baseline to keep after this capture */
  baseline: ObservedValue | null;
  /** links targets: URLs of this capture absent from seenLinks and the baseline */
  newlySeenLinks: string[];
}

export type ChangeDecision =
  /** first value of a monitor or of a new target: becomes the baseline, no alert */
  | (DecisionBase & { outcome: 'seeded'; baseline: ObservedValue })
  /** the value could not be determined (a check issue records why): nothing moves */
  | (DecisionBase & { outcome: 'undetermined' })
  | (DecisionBase & { outcome: 'unchanged'; baseline: ObservedValue })
  /**
   * A change to record; the new value becomes the baseline. `ruleMatches` is
   * null for a target without a rule (legacy any-change, always notifies),
   * else [] or the one matching rule.
   */
  | (DecisionBase & {
      outcome: 'changed';
      baseline: ObservedValue;
      before: ObservedValue;
      after: ObservedValue;
      ruleMatches: RuleMatch[] | null;
    });

/**
 * Compares a target's current value with its baseline. `baseline` is null on
 * the first capture of a monitor or of a new target, and also when a target's
 * definition changed in a way that makes old values incomparable (kind,
 * selection, currency): the caller passes null to reseed. `current` is null
 * when the value could not be determined; it never becomes the baseline.
 */
export function detectChange(
  target: Target,
  baseline: ObservedValue | null,
  current: ObservedValue | null,
  context: DetectionContext = {},
): ChangeDecision {
  if (current === null) return { outcome: 'undetermined', baseline, newlySeenLinks: [] };
  // Checked here too so that a value of the wrong shape cannot seed a baseline.
  const after = valueOfKind(target.kind, current);
  const newlySeenLinks = linksNotSeen(target, baseline, after, context);
  if (baseline === null) return { outcome: 'seeded', baseline: after, newlySeenLinks };
  if (valuesEqual(target.kind, baseline, after)) return { outcome: 'unchanged', baseline, newlySeenLinks };
  const ruleMatches =
    target.rule === undefined ? null : ruleFires(target, baseline, after, context) ? [{ target_id: target.id, rule: target.rule }] : [];
  return { outcome: 'changed', baseline: after, before: baseline, after, ruleMatches, newlySeenLinks };
}

/**
 * A dot-decimal threshold ("30.00") in minor units of a currency with
 * `exponent` digits. Digits beyond the exponent round up, which keeps
 * comparisons with integer prices exact: for a whole number p of minor units,
 * p < 30.005 EUR exactly when p < 3001. Throws RangeError on a malformed
 * threshold or exponent, or an amount beyond safe integers.
 */
export function thresholdToMinor(threshold: string, exponent: number): number {
  if (!Number.isInteger(exponent) || exponent < 0 || exponent > 6) {
    throw new RangeError(`invalid currency exponent: ${exponent}`);
  }
  const parts = /^([0-9]+)(?:\.([0-9]+))?$/.exec(threshold);
  if (parts === null) throw new RangeError(`invalid threshold: ${JSON.stringify(threshold)}`);
  const whole = parts[1];
  const fraction = parts[2] ?? '';
  let minor = BigInt(whole + fraction.slice(0, exponent).padEnd(exponent, '0'));
  if (/[1-9]/.test(fraction.slice(exponent))) minor += 1n;
  if (minor > BigInt(Number.MAX_SAFE_INTEGER)) throw new RangeError(`threshold too large: ${threshold}`);
  return Number(minor);
}

function ruleFires(target: Target, before: ObservedValue, after: ObservedValue, context: DetectionContext): boolean {
  const rule = target.rule;
  if (rule === 'changed') return true;
  switch (target.kind) {
    case 'text': {
      const was = containsPhrase(valueOfKind('text', before), requirePhrase(target));
      const is = containsPhrase(valueOfKind('text', after), requirePhrase(target));
      if (rule === 'appears') return !was && is;
      if (rule === 'disappears') return was && !is;
      break;
    }
    case 'price': {
      const was = valueOfKind('price', before);
      const is = valueOfKind('price', after);
      if (rule === 'dropped') return is < was;
      if (rule === 'below') {
        const threshold = thresholdToMinor(requireThreshold(target), requireExponent(target, context));
        return is < threshold && was >= threshold;
      }
      break;
    }
    case 'availability': {
      const was = valueOfKind('availability', before);
      const is = valueOfKind('availability', after);
      if (rule === 'available') return was === 'out_of_stock' && is === 'in_stock';
      if (rule === 'unavailable') return was === 'in_stock' && is === 'out_of_stock';
      break;
    }
    case 'links':
      if (rule === 'new_links') return linksNotSeen(target, before, after, context).some((url) => matchesFilter(target, url));
      break;
  }
  throw new TypeError(`target ${target.id}: rule ${String(rule)} does not apply to kind ${target.kind}`);
}

function linksNotSeen(target: Target, baseline: ObservedValue | null, current: ObservedValue, context: DetectionContext): string[] {
  if (target.kind !== 'links') return [];
  const before = new Set(baseline === null ? [] : valueOfKind('links', baseline));
  const seen = context.seenLinks ?? new Set<string>();
  return [...new Set(valueOfKind('links', current))].filter((url) => !before.has(url) && !seen.has(url)).sort();
}

// Extraction may already keep only matching links; filtering again is harmless
// and keeps `new_links` about "new matching links" whatever the value holds.
function matchesFilter(target: Target, url: string): boolean {
  return target.match === undefined || url.includes(target.match);
}

// Targets are validated on the way in (validateTarget); a missing field here
// is a programming error, not a page condition, so it throws.
function requirePhrase(target: Target): string {
  if (target.phrase === undefined) throw new TypeError(`target ${target.id}: rule ${target.rule} needs a phrase`);
  return target.phrase;
}

function requireThreshold(target: Target): string {
  if (target.threshold === undefined) throw new TypeError(`target ${target.id}: rule below needs a threshold`);
  return target.threshold;
}

function requireExponent(target: Target, context: DetectionContext): number {
  if (context.currencyExponent === undefined) {
    throw new TypeError(`target ${target.id}: rule below needs the currency exponent in the detection context`);
  }
  return context.currencyExponent;
}
