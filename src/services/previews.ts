import type { Static } from '@sinclair/typebox';
import type { PreviewSchema } from '../schemas/previews.ts';
import { randomUUID } from 'node:crypto';
import type { Clock } from '../clock.ts';
import { AppError } from '../errors.ts';
import { PAGE_READ_ANYWAY, type CheckIssue } from '../domain/issues.ts';
import type { Target } from '../domain/targets.ts';
import { validateTargetList } from '../domain/target-rules.ts';
import type { Plan } from '../domain/plans.ts';
import { evaluationAnswer, type PreviewElement, type TargetExtraction } from '../domain/extract/index.ts';
import { ExtractionTimeout } from '../extraction/queue-errors.ts';
import { extractWithin } from '../extraction/timed-extraction.ts';
import type { Loaders } from '../fetch/loaders.ts';
import { vetUrl } from '../fetch/ssrf/guard.ts';
import type { LoadMode } from '../domain/load-mode.ts';
import { pageText, sourceFormat } from '../domain/page-source.ts';
import type { Database } from '../store/database.ts';
import { lockAccount } from '../store/accounts-store.ts';
import { discardOlderPreviews, findValidPreview, insertPreview, previewSource, type PreviewRow } from '../store/previews-store.ts';
import { refundPreviewCredit, spendPreviewCredit } from './preview-credits.ts';
import { screenLoad } from './blocked-pages.ts';
import { chooseProxy } from './proxy-choice.ts';
import type { Principal } from './tokens.ts';
import { sameSteps, type Step } from '../domain/steps.ts';
import { assertStepsConfigured } from './step-config.ts';
import { assertSecretsExist, openStepSecrets } from './secrets.ts';

export type { PreviewRow };

export const PREVIEW_VALID_MINUTES = 15;
export const PREVIEWS_KEPT = 3;

export interface PreviewDeps {
  db: Database;
  clock: Clock;
  loaders: Loaders;
  /** the key that opens the secrets a type step names */
  config: { secretsKey: Buffer | null };
}

export type PreviewView = Static<typeof PreviewSchema>;

export type TargetResult = Omit<TargetExtraction, 'text'>;

function view(row: PreviewRow, issues: CheckIssue[]): PreviewView {
  return {
    id: row.id,
    url: row.url,
    final_url: row.final_url,
    load_mode: row.load_mode,
    format: row.format,
    title: row.title,
    created_at: row.created_at.toISOString(),
    expires_at: row.expires_at.toISOString(),
    elements: row.elements as PreviewElement[],
    issues,
    steps: row.step_outcomes,
  };
}

function loadFailure(issues: CheckIssue[]): AppError {
  const message = issues.map((i) => i.message).join('; ') || 'the page could not be loaded';
  return new AppError('validation_failed', `the page could not be loaded: ${message}`, {
    details: issues.map((i) => ({ field: 'url', message: `${i.code}: ${i.message}` })),
  });
}

/**
 * POST /previews: loads the page now (up to 60 s), keeps its capture on the
 * server and returns the element list. A URL the SSRF guard refuses, and a
 * renderer without room, cost no credit; any other load failure does.
 */
export async function createPreview(
  deps: PreviewDeps,
  principal: Principal,
  input: { url: string; load_mode: LoadMode; proxy?: string; steps?: Step[] },
  signal?: AbortSignal,
): Promise<PreviewView> {
  const vetted = vetUrl(input.url, deps.loaders.policy);
  if (!vetted.ok) {
    throw new AppError('validation_failed', `url is not a public web address: ${vetted.reason}`, {
      details: [{ field: 'url', message: vetted.reason }],
    });
  }
  const proxy = chooseProxy(deps.loaders.proxyNames, principal.plan, input.proxy);
  const steps = input.steps ?? [];
  assertStepsConfigured(steps, { loadMode: input.load_mode, url: vetted.url.href, plan: principal.plan, policy: deps.loaders.policy });
  await assertSecretsExist(deps.db, principal.accountId, steps, { lock: false });
  const secrets = await openStepSecrets(deps, principal.accountId, steps);
  const credit = await spendPreviewCredit(deps, principal);
  let loaded;
  try {
    loaded = await deps.loaders.byMode[input.load_mode].load({
      url: vetted.url.href,
      mode: input.load_mode,
      ...(proxy === null ? {} : { proxy }),
      turn: { account: principal.accountId, lane: 'interactive' },
      signal,
      steps,
      secrets,
    });
  } catch (err) {
    await refundPreviewCredit(deps, principal, credit);
    throw err;
  }
  const refused = loaded.issues.find((i) => i.code === 'address_refused');
  if (refused !== undefined) {
    await refundPreviewCredit(deps, principal, credit);
    throw new AppError('validation_failed', `url is not a public web address: ${refused.message}`, {
      details: [{ field: 'url', message: refused.message }],
    });
  }
  const ticket = { account: principal.accountId, lane: 'interactive', signal } as const;
  // A wall answers as the issue `blocked`, like any other page that could not be loaded.
  const result = await screenLoad(deps.loaders.extraction, loaded, ticket);
  // A failed step is shown with the page as it stood, so the user can see why; such a preview makes no monitor.
  const warnings = result.issues.filter((i) => PAGE_READ_ANYWAY.has(i.code) || i.code === 'step_failed');
  if (result.html === null || warnings.length < result.issues.length) throw loadFailure(result.issues);
  // An HTML page is decoded here, once: the preview keeps the page's text for later evaluations. Other documents keep their bytes.
  const format = sourceFormat(result.html);
  const html = format === 'html' ? pageText(result.html) : '';
  const body = typeof result.html === 'string' || format === 'html' ? null : result.html.bytes;
  const outline = await deps.loaders.extraction
    .preview(body === null ? html : result.html, result.finalUrl, ticket)
    .catch((error: unknown) => {
      if (error instanceof ExtractionTimeout)
        throw loadFailure([{ target_id: null, code: 'extraction_timeout', message: `${error.message}; the page is too large to preview` }]);
      throw error;
    });
  if (outline.unreadable) throw loadFailure([{ target_id: null, ...outline.unreadable }]);
  const now = deps.clock.now();
  const row: PreviewRow = {
    id: randomUUID(),
    account_id: principal.accountId,
    url: vetted.url.href,
    final_url: result.finalUrl,
    load_mode: input.load_mode,
    title: outline.title,
    html,
    format,
    body,
    elements: outline.elements,
    steps,
    step_failed: result.issues.some((i) => i.code === 'step_failed'),
    step_outcomes: result.steps ?? [],
    created_at: now,
    expires_at: new Date(now.getTime() + PREVIEW_VALID_MINUTES * 60_000),
  };
  await deps.db.transaction(async (tx) => {
    // One account's previews are stored in turn: concurrent ones (over several
    // API nodes) would each miss the others' rows and keep more than three.
    await lockAccount(tx, principal.accountId);
    await insertPreview(tx, row);
    await discardOlderPreviews(tx, principal.accountId, PREVIEWS_KEPT);
  });
  return view(row, warnings);
}

/** How many targets, and per-kind rules of each (unique ids, rule fits kind, required fields): 422 target_invalid. */
export function assertTargetsConfigured(targets: Target[], plan: Plan): void {
  const details = validateTargetList(targets, plan.targets_per_monitor);
  if (details.length > 0) throw new AppError('target_invalid', 'one or more targets are not configured correctly', { details });
}

/** Extracts every target from a preview's capture, without loading anything, in its account's turn; `signal` drops the work when the requester is gone. */
export async function evaluateTargets(
  loaders: Loaders,
  preview: PreviewRow,
  targets: Target[],
  signal?: AbortSignal,
): Promise<TargetExtraction[]> {
  const ticket = { account: preview.account_id, lane: 'interactive', signal } as const;
  return extractWithin(loaders.extraction, previewSource(preview), preview.final_url, targets, ticket);
}

/** The account's preview with this id while it is valid, or null (unknown, expired, discarded or foreign). */
export function findOwnPreview(deps: PreviewDeps, accountId: string, previewId: string): Promise<PreviewRow | null> {
  return findValidPreview(deps.db, accountId, previewId, deps.clock.now());
}

/** POST /previews/{id}/evaluate: 404 for an unknown, expired, discarded or foreign preview. */
export async function evaluatePreview(
  deps: PreviewDeps,
  principal: Principal,
  previewId: string,
  targets: Target[],
  signal?: AbortSignal,
  steps?: Step[],
): Promise<TargetResult[]> {
  const preview = await findOwnPreview(deps, principal.accountId, previewId);
  if (!preview) throw new AppError('not_found', 'preview not found, expired or discarded');
  if (steps !== undefined && !sameSteps(preview.steps, steps)) {
    throw new AppError('preview_invalid', 'the preview was loaded with other steps; load a fresh preview with these steps', {
      details: [{ field: 'steps', message: `the preview ran ${preview.steps.length} other steps` }],
    });
  }
  assertTargetsConfigured(targets, principal.plan);
  return (await evaluateTargets(deps.loaders, preview, targets, signal)).map(evaluationAnswer);
}
