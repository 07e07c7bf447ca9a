import { Type, type Static } from '@sinclair/typebox';

// The one definition of a browser step (issue #42): actions run on a
// browser-mode page after it has loaded and before it is read. One object
// with an `action` and the fields the action uses, like a target; which
// fields an action allows or requires is checked by validateSteps
// (src/domain/step-rules.ts), because a union's validation errors name no field.

export const STEP_ACTIONS = ['click', 'type', 'press', 'select', 'check', 'uncheck', 'wait_for', 'wait', 'scroll', 'goto'] as const;
export type StepAction = (typeof STEP_ACTIONS)[number];

/** Step limits on every plan; how many steps a monitor may have is plan data (steps_per_monitor). */
export const STEP_LIMITS = {
  /** a `wait` step's pause, at most */
  waitMs: 5_000,
  /** a `wait_for` step's timeout, at most (and its default) */
  waitForMs: 15_000,
  /** how long an element step waits for its element to be there and usable */
  elementMs: 5_000,
  /** the pauses and wait_for timeouts of one list together, at most: the rest of the load's 60 s is the page's */
  totalWaitMs: 30_000,
} as const;

/** Keys `press` may send: named keys and single characters, with modifiers (Playwright's syntax, e.g. Control+A). */
export const KEY_PATTERN =
  '^((Shift|Control|Alt|Meta)\\+){0,3}([A-Za-z0-9]|Enter|Tab|Escape|Backspace|Delete|Space|ArrowUp|ArrowDown|ArrowLeft|ArrowRight|PageUp|PageDown|Home|End)$';

export const SECRET_NAME_PATTERN = '^[a-z0-9_]{1,64}$';

const Selector = Type.String({
  minLength: 1,
  maxLength: 500,
  description: 'a CSS selector (the rules and cost limits of target selectors)',
});

export const SecretRefSchema = Type.Object(
  { secret: Type.String({ pattern: SECRET_NAME_PATTERN, description: "the name of one of the account's secrets (/secrets)" }) },
  { additionalProperties: false },
);

export const StepSchema = Type.Object(
  {
    action: Type.Union(
      STEP_ACTIONS.map((a) => Type.Literal(a)),
      {
        description:
          'click (selector), type (selector and text or secret), press (key, optional selector), select (selector, value), ' +
          'check/uncheck (selector), wait_for (selector or text, optional timeout_ms), wait (ms), scroll (to "bottom" or selector), ' +
          "goto (url on the monitor's site)",
      },
    ),
    selector: Type.Optional(Selector),
    text: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 500,
        description: 'type: the text to type; wait_for: text the page must show (instead of a selector)',
      }),
    ),
    secret: Type.Optional(
      Type.String({ pattern: SECRET_NAME_PATTERN, description: 'type: the name of an account secret whose value is typed (never shown)' }),
    ),
    key: Type.Optional(
      Type.String({ pattern: KEY_PATTERN, description: 'press: a key such as Enter, Tab, Escape, ArrowDown, a, Control+A' }),
    ),
    value: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'select: the option value (or its label) to choose' })),
    timeout_ms: Type.Optional(
      Type.Integer({
        minimum: 100,
        maximum: STEP_LIMITS.waitForMs,
        description: `wait_for: how long to wait; default ${STEP_LIMITS.waitForMs}`,
      }),
    ),
    ms: Type.Optional(
      Type.Integer({ minimum: 1, maximum: STEP_LIMITS.waitMs, description: `wait: the pause in ms, at most ${STEP_LIMITS.waitMs}` }),
    ),
    to: Type.Optional(Type.Literal('bottom', { description: 'scroll: to the bottom of the page (or give selector)' })),
    url: Type.Optional(
      Type.String({ minLength: 1, maxLength: 2048, description: "goto: an http(s) URL on the monitor's site (the same host, www. aside)" }),
    ),
  },
  { additionalProperties: false },
);
export type Step = Static<typeof StepSchema>;

// The effective limit is the plan's steps_per_monitor (20 on Pro); this bound only keeps requests sane.
export const MAX_STEPS_PER_REQUEST = 50;
export const StepListSchema = Type.Array(StepSchema, {
  maxItems: MAX_STEPS_PER_REQUEST,
  description:
    'browser mode only: actions run in order after the page has loaded and before it is read (cookie walls, logins, choices, "load more"); ' +
    "at most the plan's steps_per_monitor (20 on Pro). The whole load, steps included, keeps the 60 s load budget",
});

/** The secret names a step list types, each once. */
export function secretNames(steps: readonly Step[]): string[] {
  return [...new Set(steps.flatMap((s) => (s.secret === undefined ? [] : [s.secret])))];
}

/** Whether two step lists are the same actions with the same fields (the order of fields aside). */
export function sameSteps(a: readonly Step[], b: readonly Step[]): boolean {
  return a.length === b.length && a.every((step, i) => canonical(step) === canonical(b[i]!));
}

function canonical(step: Step): string {
  return JSON.stringify(Object.entries(step).sort(([x], [y]) => (x < y ? -1 : 1)));
}

/** The same site: the same host name, a leading www. aside; the port and scheme may differ. */
export function sameSite(a: URL, b: URL): boolean {
  const host = (u: URL) => u.hostname.toLowerCase().replace(/^www\./, '');
  return host(a) === host(b);
}

/** Why a step failed; `ok` steps have none. */
export const STEP_ISSUES = [
  'element_missing',
  'element_ambiguous',
  'not_actionable',
  'option_missing',
  'timeout',
  'navigation_refused',
  'secret_missing',
  'failed',
] as const;
export type StepIssueCode = (typeof STEP_ISSUES)[number];

/** What one step did: ok, or its issue, and where the page was after it. */
export interface StepOutcome {
  index: number;
  action: StepAction;
  ok: boolean;
  issue: { code: StepIssueCode; message: string } | null;
  /** the page's URL after the step */
  url: string;
  /** the page's title after the step, null when it has none */
  title: string | null;
}

/** The check issue of a failed step: it names the step's index and action, and why. */
export function stepFailedMessage(outcome: StepOutcome): string {
  return `step ${outcome.index + 1} (${outcome.action}) failed: ${outcome.issue?.message ?? 'it did not complete'}`;
}
