import type { FastifyRequest } from 'fastify';
import { TARGET_KINDS, type Selection, type Target, type TargetKind } from '../domain/targets.ts';
import type { FieldDetail } from '../errors.ts';
import { field } from './form.ts';
import { readScheduleInput, type ScheduleInput } from './schedule-form.ts';

// The new-monitor form's targets: what the owner typed, and the API's Target
// objects built from it (only the fields the kind and rule use, so a value
// left in a hidden field never makes a valid target invalid).

export interface TargetInput {
  /** the target's id when it is an existing monitor's; "" gives "t<n>" */
  id: string;
  /** "" = not used, "page" = the whole page, else one element of the preview: "sel:<CSS selector>", "json:<JSONPath>" (or a monitor's "xpath:<expression>") */
  element: string;
  /** the owner's own selector; when given it is used instead of `element` */
  selector: string;
  /** what `selector` is written in: "css" (also ""), "xpath" (XPath 1.0), "json" (a JSONPath) */
  selectorType: string;
  label: string;
  kind: string;
  rule: string;
  phrase: string;
  currency: string;
  decimal: string;
  threshold: string;
  match: string;
  /** one ignore pattern a line; /…/ is a regular expression */
  ignore: string;
  confirm: boolean;
}

export interface MonitorInput {
  name: string;
  interval: string;
  email: boolean;
  /** comma-separated, as typed */
  labels: string;
  webhook: boolean;
  /** "" = the default */
  failingAfter: string;
  schedule: ScheduleInput;
  /** the outbound proxy's name, "" = directly */
  proxy: string;
  targets: TargetInput[];
}

export function emptyTarget(element: string): TargetInput {
  return {
    id: '',
    element,
    selector: '',
    selectorType: '',
    label: '',
    kind: 'text',
    rule: 'changed',
    phrase: '',
    currency: '',
    decimal: '',
    threshold: '',
    match: '',
    ignore: '',
    confirm: false,
  };
}

const ELEMENT_PREFIXES = { selector: 'sel:', xpath: 'xpath:', json: 'json:' } as const;

/** The element list's value for a selection: "page", or the scope's prefix and its selector. */
export function elementValue(selection: Selection): string {
  switch (selection.scope) {
    case 'page':
      return 'page';
    case 'selector':
      return `${ELEMENT_PREFIXES.selector}${selection.selector}`;
    case 'xpath':
      return `${ELEMENT_PREFIXES.xpath}${selection.expression}`;
    case 'json':
      return `${ELEMENT_PREFIXES.json}${selection.path}`;
  }
}

/** The selection a target's fields name: the owner's own selector in its language, else the chosen element. */
function selectionOf(t: TargetInput): Selection {
  if (t.selector !== '') {
    if (t.selectorType === 'json') return { scope: 'json', path: t.selector };
    return t.selectorType === 'xpath' ? { scope: 'xpath', expression: t.selector } : { scope: 'selector', selector: t.selector };
  }
  if (t.element.startsWith(ELEMENT_PREFIXES.xpath)) return { scope: 'xpath', expression: t.element.slice(ELEMENT_PREFIXES.xpath.length) };
  if (t.element.startsWith(ELEMENT_PREFIXES.json)) return { scope: 'json', path: t.element.slice(ELEMENT_PREFIXES.json.length) };
  if (t.element.startsWith(ELEMENT_PREFIXES.selector))
    return { scope: 'selector', selector: t.element.slice(ELEMENT_PREFIXES.selector.length) };
  return { scope: 'page' };
}

/** An existing target as the form shows it, so editing starts from what the monitor watches. */
export function targetInput(t: Target): TargetInput {
  return {
    id: t.id,
    element: elementValue(t.selection),
    selector: '',
    selectorType: '',
    label: t.label ?? '',
    kind: t.kind,
    rule: t.rule ?? '',
    phrase: t.phrase ?? '',
    currency: t.currency ?? '',
    decimal: t.decimal ?? '',
    threshold: t.threshold ?? '',
    match: t.match ?? '',
    ignore: (t.ignore ?? []).map((p) => ('regex' in p ? `/${p.regex}/` : p.text)).join('\n'),
    confirm: t.confirm === true,
  };
}

/**
 * The API's threshold is dot-decimal; the form accepts it as the page writes
 * prices: with "," as the decimal separator "1.299,50" is 1299.50, and with
 * automatic reading a lone "," before one or two digits is a decimal comma.
 */
export function dotDecimal(threshold: string, decimal: string): string {
  const text = threshold.replace(/\s/g, '');
  if (decimal === ',') return text.replace(/\./g, '').replace(',', '.');
  if (decimal === '' && /^\d+,\d{1,2}$/.test(text)) return text.replace(',', '.');
  return decimal === '.' || decimal === '' ? text.replace(/,(?=\d{3}(\D|$))/g, '') : text;
}

/** The form's ignore lines as patterns: "/…/" is a regular expression, anything else literal text. */
function ignorePatterns(lines: string): Target['ignore'] {
  const patterns = lines
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .map((line) => (line.length > 2 && line.startsWith('/') && line.endsWith('/') ? { regex: line.slice(1, -1) } : { text: line }));
  return patterns.length ? patterns : undefined;
}

/** The form's fields; `targetCount` is the plan's targets_per_monitor, one fieldset each. */
export function readMonitorInput(request: FastifyRequest, targetCount: number): MonitorInput {
  const targets: TargetInput[] = [];
  for (let n = 1; n <= targetCount; n++) {
    const get = (name: string) => field(request, `t${n}_${name}`).trim();
    targets.push({
      id: get('id'),
      element: get('element'),
      selector: get('selector'),
      selectorType: get('selector_type'),
      label: get('label'),
      kind: get('kind'),
      rule: get('rule'),
      phrase: get('phrase'),
      currency: get('currency').toUpperCase(),
      decimal: get('decimal'),
      threshold: get('threshold'),
      match: get('match'),
      ignore: field(request, `t${n}_ignore`),
      confirm: get('confirm') === 'on',
    });
  }
  return {
    name: field(request, 'name').trim(),
    interval: field(request, 'interval').trim(),
    email: field(request, 'email') === 'on',
    labels: field(request, 'labels'),
    webhook: field(request, 'webhook') === 'on',
    failingAfter: field(request, 'failing_after').trim(),
    schedule: readScheduleInput(request),
    proxy: field(request, 'proxy'),
    targets,
  };
}

function isKind(kind: string): kind is TargetKind {
  return (TARGET_KINDS as readonly string[]).includes(kind);
}

/** The targets in use, as the API would receive them; form position n becomes target id "t<n>". */
export function toTargets(input: MonitorInput): Target[] {
  const targets: Record<string, unknown>[] = [];
  input.targets.forEach((t, i) => {
    if (t.element === '' && t.selector === '') return;
    const target: Record<string, unknown> = { id: t.id || `t${i + 1}`, kind: t.kind, selection: selectionOf(t) };
    if (t.label) target.label = t.label;
    if (t.rule) target.rule = t.rule;
    if (isKind(t.kind)) {
      if (t.kind === 'text' && (t.rule === 'appears' || t.rule === 'disappears')) target.phrase = t.phrase || undefined;
      if (t.kind === 'price') {
        target.currency = t.currency || undefined;
        // empty: the automatic reading
        if (t.decimal === '.' || t.decimal === ',') target.decimal = t.decimal;
        if (t.rule === 'below') target.threshold = dotDecimal(t.threshold, t.decimal) || undefined;
      }
      if (t.kind === 'links' && t.match) target.match = t.match;
      if (t.kind === 'text' || t.kind === 'links') target.ignore = ignorePatterns(t.ignore);
    }
    if (t.confirm) target.confirm = true;
    for (const key of Object.keys(target)) if (target[key] === undefined) delete target[key];
    targets.push(target);
  });
  return targets as Target[];
}

/** How the page names a target: its label, else "Target <n>" for the form's own ids ("t<n>"), else its id. */
export function targetName(target: Pick<Target, 'id' | 'label'>): string {
  if (target.label) return target.label;
  const position = /^t(\d+)$/.exec(target.id)?.[1];
  return position ? `Target ${position}` : target.id;
}

/** "targets[1].rule" → "Price rule": field names the owner can match to the form. */
export function describeDetail(detail: FieldDetail, targets: Target[]): string {
  const match = /^targets\[(\d+)\]\.?(.*)$/.exec(detail.field);
  if (!match) return `${detail.field}: ${detail.message}`;
  const target = targets[Number(match[1])];
  const name = target ? targetName(target) : `Target ${Number(match[1]) + 1}`;
  return `${name}${match[2] ? ` ${match[2]}` : ''}: ${detail.message}`;
}

export const RULE_LABELS: Record<string, string> = {
  changed: 'any change of the value',
  appears: 'the phrase appears',
  disappears: 'the phrase disappears',
  dropped: 'the price drops',
  below: 'the price falls below a threshold',
  available: 'it becomes available',
  unavailable: 'it becomes unavailable',
  new_links: 'new links appear',
};
