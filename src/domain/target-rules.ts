import type { FieldDetail } from '../errors.ts';
import { currencyExponent, isPriceCurrency } from './extract/money.ts';
import { jsonPathProblem } from './extract/json-path.ts';
import { selectorProblem } from './extract/select.ts';
import { xpathProblem } from './extract/xpath.ts';
import { ignorePatternProblems } from './noise.ts';
import { RULES_BY_KIND, type Target, type TargetKind } from './targets.ts';

// Per-kind rules of a target that its schema cannot express because they
// cross fields (DESIGN §4). The schema has already checked each field's own
// shape; these checks say which fields a kind and rule allow or require.
// Field paths name the request's fields: targets[1].currency.

const FIELDS_BY_KIND: Readonly<Record<TargetKind, readonly string[]>> = {
  text: ['phrase', 'ignore'],
  price: ['currency', 'decimal', 'threshold'],
  availability: [],
  links: ['match', 'ignore'],
};

const KIND_FIELDS = ['phrase', 'currency', 'decimal', 'threshold', 'match', 'ignore'] as const;

export function validateTarget(target: Target, index: number): FieldDetail[] {
  const at = (field: string) => `targets[${index}].${field}`;
  const details: FieldDetail[] = [];
  const allowedRules: readonly string[] = RULES_BY_KIND[target.kind];

  if (target.rule !== undefined && !allowedRules.includes(target.rule)) {
    details.push({
      field: at('rule'),
      message: `rule ${target.rule} is not available for ${target.kind} targets (allowed: ${allowedRules.join(', ')})`,
    });
  }
  for (const field of KIND_FIELDS) {
    if (target[field] !== undefined && !FIELDS_BY_KIND[target.kind].includes(field)) {
      details.push({ field: at(field), message: `${field} is not a field of ${target.kind} targets` });
    }
  }

  if (target.kind === 'text') {
    const needsPhrase = target.rule === 'appears' || target.rule === 'disappears';
    if (needsPhrase && target.phrase === undefined) {
      details.push({ field: at('phrase'), message: `phrase is required for the ${target.rule} rule` });
    } else if (!needsPhrase && target.phrase !== undefined) {
      details.push({ field: at('phrase'), message: 'phrase is only used by the appears and disappears rules' });
    }
  }

  const selection = target.selection;
  if (selection.scope === 'selector') {
    const problem = selectorProblem(selection.selector);
    if (problem) details.push({ field: at('selection.selector'), message: `${problem.code}: ${problem.message}` });
  } else if (selection.scope === 'xpath') {
    const problem = xpathProblem(selection.expression);
    if (problem) details.push({ field: at('selection.expression'), message: `${problem.code}: ${problem.message}` });
  } else if (selection.scope === 'json') {
    const problem = jsonPathProblem(selection.path);
    if (problem) details.push({ field: at('selection.path'), message: `${problem.code}: ${problem.message}` });
  }

  if (target.ignore !== undefined && FIELDS_BY_KIND[target.kind].includes('ignore'))
    details.push(...ignorePatternProblems(target.ignore, at('ignore')));

  if (target.kind === 'price') {
    if (target.currency === undefined) {
      details.push({ field: at('currency'), message: 'currency (an ISO 4217 code) is required for price targets' });
    } else if (!isPriceCurrency(target.currency)) {
      details.push({ field: at('currency'), message: `${target.currency} is not an ISO 4217 currency code` });
    }
    if (target.rule === 'below' && target.threshold === undefined) {
      details.push({ field: at('threshold'), message: 'threshold is required for the below rule' });
    } else if (target.rule !== 'below' && target.threshold !== undefined) {
      details.push({ field: at('threshold'), message: 'threshold is only used by the below rule' });
    } else if (target.threshold !== undefined && target.currency !== undefined) {
      const exponent = currencyExponent(target.currency);
      const decimals = target.threshold.split('.')[1]?.length ?? 0;
      if (exponent !== null && decimals > exponent) {
        details.push({
          field: at('threshold'),
          message: `${target.currency} has ${exponent} decimal places; the threshold has ${decimals}`,
        });
      }
    }
  }

  return details;
}

/** The whole targets list: 1 to `maxTargets` (the plan's targets_per_monitor), ids unique, each target valid. */
export function validateTargetList(targets: readonly Target[], maxTargets: number): FieldDetail[] {
  const details: FieldDetail[] = [];
  if (targets.length < 1 || targets.length > maxTargets) {
    details.push({ field: 'targets', message: `a monitor has 1 to ${maxTargets} targets on this plan, not ${targets.length}` });
  }
  const seen = new Set<string>();
  targets.forEach((target, index) => {
    if (seen.has(target.id)) details.push({ field: `targets[${index}].id`, message: `the id ${target.id} is used by an earlier target` });
    seen.add(target.id);
    details.push(...validateTarget(target, index));
  });
  return details;
}
