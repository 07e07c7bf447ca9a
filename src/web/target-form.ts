import type { FastifyRequest } from 'fastify';
import { TARGET_KINDS, type Target, type TargetKind } from '../domain/targets.ts';
import type { FieldDetail } from '../errors.ts';
import { field } from './form.ts';

// The new-monitor form's targets: what the owner typed, and the API's Target
// objects built from it (only the fields the kind and rule use, so a value
// left in a hidden field never makes a valid target invalid).

export const MAX_FORM_TARGETS = 3;

export interface TargetInput {
  /** "" = not used, "page" = the whole page, "sel:<selector>" = one element of the preview */
  element: string;
  label: string;
  kind: string;
  rule: string;
  phrase: string;
  currency: string;
  decimal: string;
  threshold: string;
  match: string;
}

export interface MonitorInput {
  name: string;
  interval: string;
  email: boolean;
  targets: TargetInput[];
}

export function emptyTarget(element: string): TargetInput {
  return { element, label: '', kind: 'text', rule: 'changed', phrase: '', currency: '', decimal: '', threshold: '', match: '' };
}

export function readMonitorInput(request: FastifyRequest): MonitorInput {
  const targets: TargetInput[] = [];
  for (let n = 1; n <= MAX_FORM_TARGETS; n++) {
    const get = (name: string) => field(request, `t${n}_${name}`).trim();
    targets.push({
      element: get('element'), label: get('label'), kind: get('kind'), rule: get('rule'), phrase: get('phrase'),
      currency: get('currency').toUpperCase(), decimal: get('decimal'), threshold: get('threshold'), match: get('match'),
    });
  }
  return { name: field(request, 'name').trim(), interval: field(request, 'interval').trim(), email: field(request, 'email') === 'on', targets };
}

function isKind(kind: string): kind is TargetKind {
  return (TARGET_KINDS as readonly string[]).includes(kind);
}

/** The targets in use, as the API would receive them; form position n becomes target id "t<n>". */
export function toTargets(input: MonitorInput): Target[] {
  const targets: Record<string, unknown>[] = [];
  input.targets.forEach((t, i) => {
    if (t.element === '') return;
    const target: Record<string, unknown> = {
      id: `t${i + 1}`,
      kind: t.kind,
      selection: t.element === 'page' ? { scope: 'page' } : { scope: 'selector', selector: t.element.replace(/^sel:/, '') },
    };
    if (t.label) target.label = t.label;
    if (t.rule) target.rule = t.rule;
    if (isKind(t.kind)) {
      if (t.kind === 'text' && (t.rule === 'appears' || t.rule === 'disappears')) target.phrase = t.phrase || undefined;
      if (t.kind === 'price') {
        target.currency = t.currency || undefined;
        // empty: the automatic reading
        if (t.decimal === '.' || t.decimal === ',') target.decimal = t.decimal;
        if (t.rule === 'below') target.threshold = t.threshold || undefined;
      }
      if (t.kind === 'links' && t.match) target.match = t.match;
    }
    for (const key of Object.keys(target)) if (target[key] === undefined) delete target[key];
    targets.push(target);
  });
  return targets as Target[];
}

/** "targets[1].rule" → "Target 2 rule": field names the owner can match to the form. */
export function describeDetail(detail: FieldDetail, targets: Target[]): string {
  const match = /^targets\[(\d+)\]\.?(.*)$/.exec(detail.field);
  if (!match) return `${detail.field}: ${detail.message}`;
  const position = targets[Number(match[1])]?.id.slice(1) ?? String(Number(match[1]) + 1);
  return `Target ${position}${match[2] ? ` ${match[2]}` : ''}: ${detail.message}`;
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

