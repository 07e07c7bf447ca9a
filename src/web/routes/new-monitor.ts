import type { Step, StepOutcome } from '../../domain/steps.ts';
import { parseStepLines } from '../step-lines.ts';
import { randomUUID } from 'node:crypto';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { AppDeps } from '../../http/app-deps.ts';
import { bodyValidator } from '../validate-body.ts';
import { CreateMonitorBody, UpdateMonitorBody } from '../../schemas/monitors.ts';
import { CreatePreviewBody, EvaluateBody } from '../../schemas/previews.ts';
import { AppError } from '../../errors.ts';
import type { LoadMode } from '../../domain/load-mode.ts';
import {
  changeMonitor,
  createMonitor,
  getMonitor,
  type CreateMonitorInput,
  type MonitorView,
  type UpdateMonitorInput,
} from '../../services/monitors.ts';
import { createPreview, evaluatePreview, findOwnPreview, type PreviewRow, type TargetResult } from '../../services/previews.ts';
import { previewAllowances } from '../preview-allowances.ts';
import type { PreviewElement } from '../../domain/extract/index.ts';
import type { Target } from '../../domain/targets.ts';
import { countValue, field, formEntries, labelList } from '../form.ts';
import { PageError } from '../page-error.ts';
import { formRefusal } from '../form-refusal.ts';
import { describeDetail, emptyTarget, readMonitorInput, targetInput, toTargets, type MonitorInput } from '../target-form.ts';
import { emptySchedule, scheduleInput, toSchedule } from '../schedule-form.ts';
import { layout, pageContext, seeOther, sendPage } from '../views/layout.ts';
import { expiredPreviewBody, previewBody, urlFormBody } from '../views/new-monitor.ts';
import { monitorTitle } from '../views/monitors.ts';
import { offeredProxies } from '../proxy-form.ts';
import { isUuid } from '../../domain/ids.ts';

// New monitor: URL → preview → targets → evaluate → create, through the same
// preview and monitor services as the API and validated by the API's own
// request schemas, so limits, rules and validation are identical.

const validatePreviewBody = bodyValidator(CreatePreviewBody);
const validateEvaluateBody = bodyValidator(EvaluateBody);
const validateCreateBody = bodyValidator(CreateMonitorBody);
const validateUpdateBody = bodyValidator(UpdateMonitorBody);

type Editing = { monitor: MonitorView; monitorId: string; title: string; expectedVersion: number };

/** The refusal in one sentence per problem: a detail the message already says is not said again. */
function problemText(err: AppError, targets: Target[]): string {
  const details = (err.details ?? []).filter((d) => !err.message.includes(d.message)).map((d) => describeDetail(d, targets));
  const unique = [...new Set(details)];
  return unique.length ? `${err.message}. ${unique.join('. ')}.` : err.message;
}

const previewGone = () =>
  new PageError(
    410,
    'Preview expired',
    'This preview is no longer valid: previews last 15 minutes and only the 3 most recent are kept. Load a new preview to continue.',
  );

export const newMonitorRoutes: FastifyPluginAsync<AppDeps> = async (app, deps) => {
  async function urlForm(
    request: FastifyRequest,
    reply: FastifyReply,
    input = { url: '', loadMode: 'html', steps: '' },
    error?: string,
    status = 200,
    outcomes: StepOutcome[] | null = null,
  ) {
    const allowances = await previewAllowances(deps, request.owner!.principal);
    const ctx = pageContext(request);
    return sendPage(reply, layout(ctx, 'New monitor', urlFormBody(ctx, input, allowances, outcomes), { error }), status);
  }

  async function findPreview(request: FastifyRequest<{ Params: { id: string } }>): Promise<PreviewRow | null> {
    const id = request.params.id;
    return isUuid(id) ? await findOwnPreview(deps, request.owner!.accountId, id) : null;
  }

  async function ownPreview(request: FastifyRequest<{ Params: { id: string } }>): Promise<PreviewRow> {
    const preview = await findPreview(request);
    if (!preview) throw previewGone();
    return preview;
  }

  /** A form posted to an expired preview: offered again on a fresh preview of the same page, as typed. */
  function expiredPage(request: FastifyRequest, reply: FastifyReply) {
    if (field(request, 'url') === '') throw previewGone();
    const carried = formEntries(request).filter(([name]) => name !== 'action' && name !== 'idempotency_key' && name !== 'carry');
    const ctx = pageContext(request);
    return sendPage(reply, layout(ctx, 'Preview expired', expiredPreviewBody(ctx, carried)), 410);
  }

  /** The monitor a preview reconfigures (`?monitor=` on the page, `monitor_id` in its form), or null when it creates one. */
  async function editedMonitor(
    request: FastifyRequest,
    preview: PreviewRow,
    monitorId: string,
    expectedVersion?: number,
  ): Promise<Editing | null> {
    if (monitorId === '') return null;
    if (!isUuid(monitorId)) throw new PageError(404, 'Not found', 'There is no such monitor in this account.');
    const monitor = await getMonitor(deps, request.owner!.principal, monitorId);
    if (monitor.url !== preview.url) {
      throw new PageError(
        409,
        'Another page',
        "This preview is of another address than the monitor. Load a fresh preview from the monitor's edit page.",
      );
    }
    return { monitor, monitorId, title: monitorTitle(monitor), expectedVersion: expectedVersion ?? monitor.config_version };
  }

  function previewPage(
    request: FastifyRequest,
    reply: FastifyReply,
    preview: PreviewRow,
    input: MonitorInput,
    extra: { results?: TargetResult[]; error?: string; status?: number; editing?: Editing | null } = {},
  ) {
    const ctx = pageContext(request);
    const minInterval = Math.max(1, request.owner!.principal.plan.min_interval_minutes[preview.load_mode]);
    const body = previewBody(ctx, {
      preview: {
        id: preview.id,
        url: preview.url,
        final_url: preview.final_url,
        title: preview.title,
        load_mode: preview.load_mode,
        format: preview.format,
        expires_at: preview.expires_at.toISOString(),
        elements: preview.elements as PreviewElement[],
        steps: preview.steps,
        step_outcomes: preview.step_outcomes,
      },
      input,
      // A fresh key per rendered form: submitting the same form twice creates one monitor.
      idempotencyKey: `dashboard-${randomUUID()}`,
      minInterval,
      proxies: offeredProxies(deps.loaders.proxyNames, request.owner!.principal.plan),
      results: extra.results ?? null,
      targets: toTargets(input),
      editing: extra.editing ?? null,
    });
    const title = extra.editing ? 'Change targets and schedule' : 'Choose what to watch';
    return sendPage(reply, layout(ctx, title, body, { error: extra.error, current: extra.editing ? '/' : undefined }), extra.status);
  }

  app.get('/monitors/new', async (request, reply) => urlForm(request, reply));

  app.post('/monitors/new', async (request, reply) => {
    const input = { url: field(request, 'url').trim(), load_mode: field(request, 'load_mode') };
    const stepLines = field(request, 'steps');
    const typed = { url: input.url, loadMode: input.load_mode, steps: stepLines };
    const { steps, errors } = parseStepLines(stepLines);
    if (errors.length > 0) return urlForm(request, reply, typed, `Some lines are not steps: ${errors.join('; ')}.`, 422);
    try {
      const body = steps.length > 0 ? { ...input, steps } : input;
      validatePreviewBody(body);
      const preview = await createPreview(deps, request.owner!.principal, body as { url: string; load_mode: LoadMode; steps?: Step[] });
      // A failed step is shown with every step's result; the steps are fixed and tried again on a fresh preview.
      const failed = preview.steps.find((o) => !o.ok);
      if (failed) return urlForm(request, reply, typed, `Step ${failed.index + 1} (${failed.action}) failed.`, 422, preview.steps);
      if (field(request, 'carry') !== '1') return seeOther(reply, `/monitors/new/${preview.id}`);
      const { principal, accountId } = request.owner!;
      const row = (await findOwnPreview(deps, accountId, preview.id))!;
      const editing = await editedMonitor(
        request,
        row,
        field(request, 'monitor_id'),
        Number(field(request, 'expected_version')) || undefined,
      );
      return previewPage(request, reply, row, readMonitorInput(request, principal.plan.targets_per_monitor), { editing });
    } catch (err) {
      // Refusals (limits, a page that cannot be loaded, a busy renderer) are shown on the form; anything else is an error page.
      const refusal = formRefusal(err);
      if (!refusal) throw err;
      if (refusal.retryAfter !== undefined) reply.header('retry-after', String(refusal.retryAfter));
      return urlForm(request, reply, typed, problemText(refusal, []), refusal.status);
    }
  });

  app.get<{ Params: { id: string }; Querystring: { monitor?: string } }>('/monitors/new/:id', async (request, reply) => {
    const preview = await ownPreview(request);
    const minInterval = Math.max(1, request.owner!.principal.plan.min_interval_minutes[preview.load_mode]);
    const editing = await editedMonitor(request, preview, typeof request.query.monitor === 'string' ? request.query.monitor : '');
    if (editing) {
      const { monitor } = editing;
      const targets = monitor.targets.map(targetInput);
      while (targets.length < request.owner!.principal.plan.targets_per_monitor) targets.push(emptyTarget(''));
      const interval = String(Math.max(minInterval, monitor.interval_minutes));
      const settings = {
        name: '',
        email: false,
        labels: '',
        webhook: false,
        failingAfter: '',
        schedule: scheduleInput(monitor.schedule),
        proxy: '',
      };
      return previewPage(request, reply, preview, { ...settings, interval, targets }, { editing });
    }
    const slots = request.owner!.principal.plan.targets_per_monitor;
    const targets = Array.from({ length: slots }, (_, i) => emptyTarget(i === 0 ? 'page' : ''));
    const input: MonitorInput = {
      name: '',
      interval: String(minInterval),
      email: true,
      labels: '',
      webhook: false,
      failingAfter: '',
      schedule: emptySchedule(),
      proxy: '',
      targets,
    };
    return previewPage(request, reply, preview, input);
  });

  app.post<{ Params: { id: string } }>('/monitors/new/:id', async (request, reply) => {
    const preview = await findPreview(request);
    if (!preview) return expiredPage(request, reply);
    const { principal } = request.owner!;
    const input = readMonitorInput(request, principal.plan.targets_per_monitor);
    const targets = toTargets(input);
    const editing = await editedMonitor(
      request,
      preview,
      field(request, 'monitor_id'),
      Number(field(request, 'expected_version')) || undefined,
    );
    try {
      if (targets.length === 0) throw new AppError('validation_failed', 'Choose at least one target');
      if (field(request, 'action') === 'evaluate') {
        validateEvaluateBody({ targets });
        const results = await evaluatePreview(deps, principal, preview.id, targets);
        return previewPage(request, reply, preview, input, { results, editing });
      }
      if (editing) {
        const change: UpdateMonitorInput = {
          preview_id: preview.id,
          targets,
          // The dashboard's steps are those its preview was loaded with.
          steps: preview.steps,
          interval_minutes: Number(input.interval),
          schedule: toSchedule(input.schedule),
          expected_version: editing.expectedVersion,
        };
        validateUpdateBody(change);
        await changeMonitor(deps, principal, editing.monitorId, change);
        return seeOther(reply, `/monitors/${editing.monitorId}?notice=monitor-reconfigured`);
      }
      const schedule = toSchedule(input.schedule);
      const body: CreateMonitorInput = {
        preview_id: preview.id,
        targets,
        steps: preview.steps,
        interval_minutes: Number(input.interval),
        ...(schedule === null ? {} : { schedule }),
        ...(input.proxy === '' ? {} : { proxy: input.proxy }),
        notifications: {
          email_enabled: input.email,
          webhook_enabled: input.webhook,
          ...(input.failingAfter === '' ? {} : { failing_after: countValue(input.failingAfter) }),
        },
        labels: labelList(input.labels),
        ...(input.name ? { name: input.name } : {}),
      };
      validateCreateBody(body);
      const outcome = await createMonitor(deps, principal, body, field(request, 'idempotency_key'));
      return seeOther(reply, `/monitors/${outcome.value.id}?notice=monitor-created`);
    } catch (err) {
      const refusal = formRefusal(err);
      if (!refusal) throw err;
      if (refusal.code === 'preview_invalid') return expiredPage(request, reply);
      if (refusal.retryAfter !== undefined) reply.header('retry-after', String(refusal.retryAfter));
      const error =
        refusal.code === 'version_conflict'
          ? 'The monitor was changed elsewhere since this form was opened. Open its edit page again to start from its current settings.'
          : problemText(refusal, targets);
      return previewPage(request, reply, preview, input, { error, status: refusal.status, editing });
    }
  });
};
