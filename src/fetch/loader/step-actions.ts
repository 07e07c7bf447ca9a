import type { Locator, Page } from 'playwright-core';
import { STEP_LIMITS, type Step, type StepIssueCode } from '../../domain/steps.ts';

// One step on a loaded page. Failures are values with fixed wording: a
// Playwright message can quote what was typed (a secret) or the page, and
// neither may reach an answer, a log or the store.

export type StepFailure = { code: StepIssueCode; message: string };

export interface StepContext {
  page: Page;
  /** ms this step may still take (the load's budget left, less the time to read the page) */
  budgetMs: number;
  /** values of the account's secrets the steps name */
  secrets: ReadonlyMap<string, string>;
}

const fail = (code: StepIssueCode, message: string): StepFailure => ({ code, message });

// playwright-core is imported with the first browser (chromium.ts), not at
// start (~80 MiB resident): a step runs on a page, so it is loaded by then.
async function timedOut(err: unknown): Promise<boolean> {
  const { errors } = await import('playwright-core');
  return err instanceof errors.TimeoutError;
}

/** Runs one step; null when it did what it says. */
export async function performStep(step: Step, ctx: StepContext): Promise<StepFailure | null> {
  const { page } = ctx;
  const elementMs = Math.min(STEP_LIMITS.elementMs, ctx.budgetMs);
  try {
    switch (step.action) {
      case 'wait':
        if ((step.ms ?? 0) > ctx.budgetMs) return fail('timeout', "the load's time budget ran out");
        await page.waitForTimeout(step.ms ?? 0);
        return null;
      case 'wait_for':
        return await waitFor(page, step, Math.min(step.timeout_ms ?? STEP_LIMITS.waitForMs, ctx.budgetMs));
      case 'scroll':
        if (step.to === 'bottom') {
          await page.evaluate('window.scrollTo(0, document.documentElement.scrollHeight)');
          return null;
        }
        return await onElement(page, step.selector!, elementMs, (el, timeout) => el.scrollIntoViewIfNeeded({ timeout }));
      case 'press':
        if (step.selector === undefined) {
          await page.keyboard.press(step.key!);
          return null;
        }
        return await onElement(page, step.selector, elementMs, (el, timeout) => el.press(step.key!, { timeout }));
      case 'click':
        return await onElement(page, step.selector!, elementMs, (el, timeout) => el.click({ timeout }));
      case 'check':
        return await onElement(page, step.selector!, elementMs, (el, timeout) => el.check({ timeout }));
      case 'uncheck':
        return await onElement(page, step.selector!, elementMs, (el, timeout) => el.uncheck({ timeout }));
      case 'select':
        return await selectOption(page, step, elementMs);
      case 'type': {
        const text = step.secret === undefined ? step.text : ctx.secrets.get(step.secret);
        if (text === undefined) return fail('secret_missing', `the secret ${step.secret} does not exist (any more)`);
        return await onElement(page, step.selector!, elementMs, (el, timeout) => el.fill(text, { timeout }));
      }
      case 'goto':
        // Its arrival is waited for by the settle after every step; off-site addresses are refused by the route guard.
        await page.goto(step.url!, { waitUntil: 'commit', timeout: Math.max(1, ctx.budgetMs) });
        return null;
    }
  } catch (err) {
    return unexpected(err);
  }
}

/** Finds the one element a selector names, then acts on it within what is left of `ms`. */
async function onElement(
  page: Page,
  selector: string,
  ms: number,
  act: (element: Locator, timeoutMs: number) => Promise<unknown>,
): Promise<StepFailure | null> {
  const started = Date.now();
  const found = await findOne(page, selector, ms);
  if ('code' in found) return found;
  try {
    await act(found, Math.max(1, ms - (Date.now() - started)));
    return null;
  } catch (err) {
    if (await timedOut(err)) {
      return fail('not_actionable', `the element ${selector} is there but could not be used (hidden, disabled or covered)`);
    }
    return unexpected(err);
  }
}

async function findOne(page: Page, selector: string, ms: number): Promise<Locator | StepFailure> {
  const all = page.locator(`css=${selector}`);
  try {
    await all.first().waitFor({ state: 'attached', timeout: Math.max(1, ms) });
  } catch (err) {
    if (await timedOut(err)) return fail('element_missing', `no element matches ${selector}`);
    return unexpected(err);
  }
  const count = await all.count();
  if (count > 1) return fail('element_ambiguous', `${count} elements match ${selector}; a step acts on exactly one`);
  return all;
}

async function waitFor(page: Page, step: Step, ms: number): Promise<StepFailure | null> {
  const target = step.selector !== undefined ? page.locator(`css=${step.selector}`) : page.getByText(step.text!);
  try {
    await target.first().waitFor({ state: 'visible', timeout: Math.max(1, ms) });
    return null;
  } catch (err) {
    if (!(await timedOut(err))) return unexpected(err);
    const what = step.selector !== undefined ? `an element matching ${step.selector}` : 'the text';
    return fail('timeout', `${what} did not appear within ${ms} ms`);
  }
}

// Runs in the page: no closures, which the TypeScript loader would wrap in helpers the page lacks.
function hasOption(element: Element, wanted: string): boolean | null {
  if (!(element instanceof HTMLSelectElement)) return null;
  for (const option of Array.from(element.options)) if (option.value === wanted || option.label === wanted) return true;
  return false;
}

async function selectOption(page: Page, step: Step, ms: number): Promise<StepFailure | null> {
  const found = await findOne(page, step.selector!, ms);
  if ('code' in found) return found;
  const known = await found.evaluate(hasOption, step.value);
  if (known === null) return fail('not_actionable', `the element ${step.selector} is not a select`);
  if (!known) return fail('option_missing', `the select ${step.selector} has no option ${step.value}`);
  try {
    await found.selectOption(step.value!, { timeout: Math.max(1, ms) });
    return null;
  } catch (err) {
    if (await timedOut(err)) return fail('not_actionable', `the select ${step.selector} could not be used (hidden or disabled)`);
    return unexpected(err);
  }
}

// The page navigated away or closed under the step, or the browser failed:
// said in fixed words, since the error's own text may quote typed text.
async function unexpected(err: unknown): Promise<StepFailure> {
  if (await timedOut(err)) return fail('timeout', "the step did not finish within the load's time budget");
  return fail('failed', 'the step could not be completed (the page changed or closed under it)');
}
