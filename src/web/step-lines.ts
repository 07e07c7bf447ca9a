import type { Step } from '../domain/steps.ts';

// The dashboard's step editor is a list of lines, one step each, so that
// adding a step is adding a line and reordering is moving one; the API's
// rules (domain/step-rules.ts) then judge the steps like any request's.
//
//   click #accept                  check #terms / uncheck #news
//   type #user = buyer@example.com type #password = secret:supplier_password
//   select #size = L               press Enter  /  press Enter on #postcode
//   wait_for .price                wait_for "In stock"  (optionally: within 5000)
//   wait 500                       scroll bottom  /  scroll #reviews
//   goto https://shop.example/basket

export const STEP_LINE_HELP = [
  'click #accept',
  'type #password = secret:supplier_password',
  'select #size = L',
  'press Enter on #postcode',
  'wait_for .price within 5000',
  'wait 500',
  'scroll bottom',
  'goto https://same.site/page',
];

type Parsed = { step: Step } | { error: string };

/** "selector = value": the selector before the first " = ", the value after it. */
function withValue(rest: string): { selector: string; value: string } | null {
  const at = rest.indexOf(' = ');
  if (at <= 0) return null;
  return { selector: rest.slice(0, at).trim(), value: rest.slice(at + 3) };
}

function parseLine(line: string): Parsed {
  const space = line.indexOf(' ');
  const action = space < 0 ? line : line.slice(0, space);
  const rest = space < 0 ? '' : line.slice(space + 1).trim();
  switch (action) {
    case 'click':
    case 'check':
    case 'uncheck':
      return rest ? { step: { action, selector: rest } } : { error: `${action} needs a selector` };
    case 'type': {
      const parts = withValue(rest);
      if (!parts) return { error: 'type needs "selector = text" (or = secret:name)' };
      return parts.value.startsWith('secret:')
        ? { step: { action, selector: parts.selector, secret: parts.value.slice('secret:'.length) } }
        : { step: { action, selector: parts.selector, text: parts.value } };
    }
    case 'select': {
      const parts = withValue(rest);
      return parts ? { step: { action, selector: parts.selector, value: parts.value } } : { error: 'select needs "selector = value"' };
    }
    case 'press': {
      const [key, on] = rest.split(/ on (.+)/);
      if (!key) return { error: 'press needs a key such as Enter' };
      return { step: on ? { action, key: key.trim(), selector: on.trim() } : { action, key: key.trim() } };
    }
    case 'wait_for': {
      const [what, within] = rest.split(/ within (\d+)$/);
      const timeout = within === undefined ? {} : { timeout_ms: Number(within) };
      if (!what) return { error: 'wait_for needs a selector or "text"' };
      const quoted = /^"(.*)"$/.exec(what.trim());
      return { step: quoted ? { action, text: quoted[1]!, ...timeout } : { action, selector: what.trim(), ...timeout } };
    }
    case 'wait':
      return /^\d+$/.test(rest) ? { step: { action, ms: Number(rest) } } : { error: 'wait needs milliseconds, such as wait 500' };
    case 'scroll':
      if (!rest) return { error: 'scroll needs bottom or a selector' };
      return { step: rest === 'bottom' ? { action, to: 'bottom' } : { action, selector: rest } };
    case 'goto':
      return rest ? { step: { action, url: rest } } : { error: 'goto needs an address' };
    default:
      return { error: `unknown action "${action}"` };
  }
}

/** The steps of the editor's lines (blank lines skipped), or the lines that are not steps. */
export function parseStepLines(text: string): { steps: Step[]; errors: string[] } {
  const steps: Step[] = [];
  const errors: string[] = [];
  text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .forEach((line, index) => {
      if (line === '') return;
      const parsed = parseLine(line);
      if ('step' in parsed) steps.push(parsed.step);
      else errors.push(`line ${index + 1}: ${parsed.error}`);
    });
  return { steps, errors };
}

/** The editor's lines of a step list (parseStepLines reads them back). */
export function formatStepLines(steps: readonly Step[]): string {
  return steps
    .map((s) => {
      switch (s.action) {
        case 'type':
          return `type ${s.selector} = ${s.secret !== undefined ? `secret:${s.secret}` : s.text}`;
        case 'select':
          return `select ${s.selector} = ${s.value}`;
        case 'press':
          return s.selector === undefined ? `press ${s.key}` : `press ${s.key} on ${s.selector}`;
        case 'wait_for': {
          const within = s.timeout_ms === undefined ? '' : ` within ${s.timeout_ms}`;
          return `wait_for ${s.text !== undefined ? `"${s.text}"` : s.selector}${within}`;
        }
        case 'wait':
          return `wait ${s.ms}`;
        case 'scroll':
          return `scroll ${s.to ?? s.selector}`;
        case 'goto':
          return `goto ${s.url}`;
        default:
          return `${s.action} ${s.selector}`;
      }
    })
    .join('\n');
}
