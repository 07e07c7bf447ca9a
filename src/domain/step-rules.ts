import type { FieldDetail } from '../errors.ts';
import { selectorProblem } from './extract/select.ts';
import type { LoadMode } from './load-mode.ts';
import { STEP_LIMITS, sameSite, type Step, type StepAction } from './steps.ts';

// Per-action rules of a step that its schema cannot express because they
// cross fields, and the limits of a whole list (issue #42). Field paths name
// the request's fields: steps[2].selector.

const FIELDS_BY_ACTION: Readonly<Record<StepAction, readonly (keyof Step)[]>> = {
  click: ['selector'],
  type: ['selector', 'text', 'secret'],
  press: ['key', 'selector'],
  select: ['selector', 'value'],
  check: ['selector'],
  uncheck: ['selector'],
  wait_for: ['selector', 'text', 'timeout_ms'],
  wait: ['ms'],
  scroll: ['to', 'selector'],
  goto: ['url'],
};

const STEP_FIELDS = ['selector', 'text', 'secret', 'key', 'value', 'timeout_ms', 'ms', 'to', 'url'] as const;

/** How long a step may pause the load: its own pause, or how long it may wait for its condition. */
export function stepWaitMs(step: Step): number {
  if (step.action === 'wait') return step.ms ?? 0;
  if (step.action === 'wait_for') return step.timeout_ms ?? STEP_LIMITS.waitForMs;
  return 0;
}

function exactlyOne(step: Step, fields: readonly (keyof Step)[]): boolean {
  return fields.filter((f) => step[f] !== undefined).length === 1;
}

export function validateStep(step: Step, index: number, pageUrl: URL): FieldDetail[] {
  const at = (field: string) => `steps[${index}].${field}`;
  const details: FieldDetail[] = [];
  const allowed = FIELDS_BY_ACTION[step.action];
  for (const field of STEP_FIELDS) {
    if (step[field] !== undefined && !allowed.includes(field)) {
      details.push({ field: at(field), message: `${field} is not a field of ${step.action} steps` });
    }
  }
  const require = (field: keyof Step) => {
    if (step[field] === undefined) details.push({ field: at(field), message: `${field} is required for ${step.action} steps` });
  };
  switch (step.action) {
    case 'click':
    case 'check':
    case 'uncheck':
      require('selector');
      break;
    case 'select':
      require('selector');
      require('value');
      break;
    case 'type':
      require('selector');
      if (!exactlyOne(step, ['text', 'secret']))
        details.push({ field: at('text'), message: 'a type step has text or secret, one of them' });
      break;
    case 'press':
      require('key');
      break;
    case 'wait':
      require('ms');
      break;
    case 'wait_for':
      if (!exactlyOne(step, ['selector', 'text'])) {
        details.push({ field: at('selector'), message: 'a wait_for step waits for a selector or a text, one of them' });
      }
      break;
    case 'scroll':
      if (!exactlyOne(step, ['to', 'selector'])) details.push({ field: at('to'), message: 'a scroll step has to: "bottom" or a selector' });
      break;
    case 'goto':
      require('url');
      if (step.url !== undefined) {
        const problem = gotoProblem(step.url, pageUrl);
        if (problem) details.push({ field: at('url'), message: problem });
      }
      break;
  }
  if (step.selector !== undefined && allowed.includes('selector')) {
    const problem = selectorProblem(step.selector);
    if (problem) details.push({ field: at('selector'), message: `${problem.code}: ${problem.message}` });
  }
  return details;
}

function gotoProblem(raw: string, pageUrl: URL): string | null {
  if (!URL.canParse(raw)) return 'not a valid absolute URL';
  const url = new URL(raw);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `scheme ${url.protocol} is not allowed (only http and https)`;
  if (!sameSite(url, pageUrl)) return `${url.hostname} is not the monitor's site (${pageUrl.hostname}); goto stays on the site`;
  return null;
}

/**
 * The whole list: browser mode only, at most `maxSteps` (the plan's
 * steps_per_monitor), each step valid, and pauses within STEP_LIMITS.totalWaitMs.
 */
export function validateStepList(steps: readonly Step[], options: { loadMode: LoadMode; pageUrl: URL; maxSteps: number }): FieldDetail[] {
  if (steps.length === 0) return [];
  if (options.loadMode !== 'browser') {
    return [{ field: 'steps', message: 'steps run in browser mode only; load the preview with load_mode browser' }];
  }
  const details: FieldDetail[] = [];
  if (steps.length > options.maxSteps) {
    details.push({ field: 'steps', message: `at most ${options.maxSteps} steps on this plan, not ${steps.length}` });
  }
  steps.forEach((step, index) => details.push(...validateStep(step, index, options.pageUrl)));
  const waits = steps.reduce((sum, step) => sum + stepWaitMs(step), 0);
  if (waits > STEP_LIMITS.totalWaitMs) {
    details.push({
      field: 'steps',
      message: `the steps' pauses and wait_for timeouts add up to ${waits} ms; at most ${STEP_LIMITS.totalWaitMs} ms (the load's budget is 60 s)`,
    });
  }
  return details;
}
