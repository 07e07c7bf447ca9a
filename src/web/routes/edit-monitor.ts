import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { AppDeps } from '../../http/app-deps.ts';
import type { EmailMode } from '../../domain/digest-periods.ts';
import { UpdateMonitorBody } from '../../schemas/monitors.ts';
import { AppError } from '../../errors.ts';
import type { LoadMode } from '../../domain/load-mode.ts';
import { changeMonitor, getMonitor, removeMonitor, type MonitorView, type UpdateMonitorInput } from '../../services/monitors.ts';
import { createPreview } from '../../services/previews.ts';
import { listAccountChannels } from '../../services/channels.ts';
import { countValue, field, fields, labelList } from '../form.ts';
import { bodyValidator } from '../validate-body.ts';
import { formRefusal } from '../form-refusal.ts';
import { deleteMonitorBody, editMonitorBody, settingsInput, type SettingsInput } from '../views/edit-monitor.ts';
import { layout, pageContext, seeOther, sendPage } from '../views/layout.ts';
import { monitorTitle } from '../views/monitors.ts';
import { monitorIdParam } from './monitors.ts';
import { offeredProxies } from '../proxy-form.ts';

// Managing a monitor from the dashboard: settings, a fresh preview for new
// targets or schedule, and deletion — through the monitor and preview
// services the API uses, validated by the API's own update schema.

const validateUpdateBody = bodyValidator(UpdateMonitorBody);

function readSettings(request: FastifyRequest): SettingsInput {
  return {
    name: field(request, 'name').trim(),
    labels: field(request, 'labels'),
    email: field(request, 'email') === 'on',
    emailMode: field(request, 'email_mode'),
    webhook: field(request, 'webhook') === 'on',
    failingAfter: field(request, 'failing_after').trim(),
    channels: fields(request, 'channels'),
    proxy: field(request, 'proxy'),
  };
}

/** The refusal in the API's words; a detail the message already says is not said again. */
function problemText(err: AppError): string {
  const details =
    err.details
      ?.filter((d) => !err.message.includes(d.message))
      .map((d) => `${d.field.replace(/^labels\[\d+\]/, 'labels')}: ${d.message}`) ?? [];
  return [err.message, ...new Set(details)].join('. ');
}

export const editMonitorRoutes: FastifyPluginAsync<AppDeps> = async (app, deps) => {
  async function editPage(
    request: FastifyRequest,
    reply: FastifyReply,
    monitor: MonitorView,
    input: SettingsInput,
    extra: { error?: string; status?: number } = {},
  ) {
    const { principal } = request.owner!;
    const ctx = pageContext(request);
    const body = editMonitorBody(ctx, monitor, input, {
      spacingSeconds: principal.plan.preview_spacing_seconds,
      channels: await listAccountChannels(deps, principal),
      proxies: offeredProxies(deps.loaders.proxyNames, principal.plan),
    });
    return sendPage(reply, layout(ctx, `Edit ${monitorTitle(monitor)}`, body, { error: extra.error }), extra.status);
  }

  app.get<{ Params: { id: string } }>('/monitors/:id/edit', async (request, reply) => {
    const monitor = await getMonitor(deps, request.owner!.principal, monitorIdParam(request));
    return editPage(request, reply, monitor, settingsInput(monitor));
  });

  app.post<{ Params: { id: string } }>('/monitors/:id/edit', async (request, reply) => {
    const { principal } = request.owner!;
    const id = monitorIdParam(request);
    const input = readSettings(request);
    const change: UpdateMonitorInput = {
      name: input.name === '' ? null : input.name,
      labels: labelList(input.labels),
      notifications: {
        email_enabled: input.email,
        // Checked by the API's schema below: a value not offered is refused like any invalid setting.
        email_mode: input.emailMode === '' ? null : (input.emailMode as EmailMode),
        webhook_enabled: input.webhook,
        ...(input.failingAfter === '' ? {} : { failing_after: countValue(input.failingAfter) }),
        // The checkboxes list every channel of the account: none ticked chooses none.
        channels: input.channels,
      },
      // Only a form that offered the choice changes it: without one, a stored proxy stays as it is.
      ...(offeredProxies(deps.loaders.proxyNames, principal.plan).length === 0 ? {} : { proxy: input.proxy === '' ? null : input.proxy }),
    };
    try {
      validateUpdateBody(change);
      await changeMonitor(deps, principal, id, change);
      return seeOther(reply, `/monitors/${id}?notice=monitor-saved`);
    } catch (err) {
      if (!(err instanceof AppError) || err.status >= 500 || err.code === 'not_found') throw err;
      return editPage(request, reply, await getMonitor(deps, principal, id), input, { error: problemText(err), status: err.status });
    }
  });

  app.post<{ Params: { id: string } }>('/monitors/:id/reconfigure', async (request, reply) => {
    const { principal } = request.owner!;
    const monitor = await getMonitor(deps, principal, monitorIdParam(request));
    const loadMode: LoadMode = field(request, 'load_mode') === 'browser' ? 'browser' : 'html';
    try {
      // The monitor's steps go with a browser preview, so that the change keeps them.
      const steps = loadMode === 'browser' ? monitor.steps : [];
      const preview = await createPreview(deps, principal, { url: monitor.url, load_mode: loadMode, steps });
      return seeOther(reply, `/monitors/new/${preview.id}?monitor=${monitor.id}`);
    } catch (err) {
      // Refusals (limits, a page that cannot be loaded now, a busy renderer) are shown on the edit page.
      const refusal = formRefusal(err);
      if (!refusal) throw err;
      if (refusal.retryAfter !== undefined) reply.header('retry-after', String(refusal.retryAfter));
      return editPage(request, reply, monitor, settingsInput(monitor), { error: problemText(refusal), status: refusal.status });
    }
  });

  app.get<{ Params: { id: string } }>('/monitors/:id/delete', async (request, reply) => {
    const monitor = await getMonitor(deps, request.owner!.principal, monitorIdParam(request));
    const ctx = pageContext(request);
    return sendPage(reply, layout(ctx, `Delete ${monitorTitle(monitor)}`, deleteMonitorBody(ctx, monitor)));
  });

  app.post<{ Params: { id: string } }>('/monitors/:id/delete', async (request, reply) => {
    await removeMonitor(deps, request.owner!.principal, monitorIdParam(request));
    return seeOther(reply, '/?notice=monitor-deleted');
  });
};
