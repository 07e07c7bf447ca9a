import { randomUUID } from 'node:crypto';
import { PassThrough } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { AppDeps } from '../../http/app-deps.ts';
import { CreateMonitorBody } from '../../schemas/monitors.ts';
import { CreatePreviewBody } from '../../schemas/previews.ts';
import { IMPORT_LIMITS, ImportSourceError } from '../../domain/imports/import-source.ts';
import type { ImportPlan } from '../../domain/imports/monitor-draft.ts';
import { monitorExport } from '../../domain/imports/pagewatch-export.ts';
import { readUploadedImport } from '../../services/import-reading.ts';
import { knownError } from '../../services/known-errors.ts';
import { runImport, type ImportPort, type ImportRefusal } from '../../services/monitor-import.ts';
import { createMonitor, listMonitorPage, type CreateMonitorInput, type MonitorView } from '../../services/monitors.ts';
import { createPreview } from '../../services/previews.ts';
import type { Principal } from '../../services/tokens.ts';
import { previewAllowances } from '../preview-allowances.ts';
import { formRefusal } from '../form-refusal.ts';
import { SafeHtml } from '../html.ts';
import { uploadedFile } from '../multipart.ts';
import { bodyValidator } from '../validate-body.ts';
import { layout, pageContext, sendPage } from '../views/layout.ts';
import { importFormBody, importLineItem, importResultBody, importStartBody, importStoppedBody } from '../views/monitor-transfer.ts';

// Export and import of an account's monitors: the same JSON as `pagewatch
// export`, and the same import (services/monitor-import.ts) as `pagewatch
// import`, here through the services the API uses, validated by its schemas.
// The result page is streamed as the import goes (one line per monitor), so
// the upload is never stored and no job outlives the request; closing the page
// stops the import after the monitor in hand, and a re-run skips what exists.

const validatePreviewBody = bodyValidator(CreatePreviewBody);
const validateCreateBody = bodyValidator(CreateMonitorBody);

/** The upload: the largest archive the reader takes, plus the form's own parts. */
const UPLOAD_LIMIT_BYTES = IMPORT_LIMITS.maxArchiveBytes + 64 * 1024;
const LIST_PAGE = 100;

async function accountMonitors(deps: AppDeps, principal: Principal): Promise<MonitorView[]> {
  const monitors: MonitorView[] = [];
  const all = { status: null, label: null, search: null, failing: null };
  let after: { created_at: Date; seq: number } | null = null;
  do {
    const page = await listMonitorPage(deps, principal, { ...all, limit: LIST_PAGE, after });
    monitors.push(...page.rows);
    after = page.next;
  } while (after !== null);
  return monitors;
}

/** The import's way to the account from the dashboard: the services, each refusal as the API would answer it. */
function servicePort(deps: AppDeps, principal: Principal, signal: AbortSignal): ImportPort {
  const refused = (err: unknown): ImportRefusal => {
    const known = formRefusal(err);
    if (!known) throw err;
    return {
      status: known.status,
      code: known.code,
      message: known.message,
      details: known.details ?? [],
      retryAfter: known.retryAfter ?? null,
    };
  };
  return {
    existingUrls: async () => new Set((await accountMonitors(deps, principal)).map((m) => m.url)),
    preview: async (body) => {
      try {
        validatePreviewBody(body);
        return { id: (await createPreview(deps, principal, body, signal)).id };
      } catch (err) {
        return refused(err);
      }
    },
    create: async (body) => {
      try {
        validateCreateBody(body);
        return (await createMonitor(deps, principal, body as CreateMonitorInput, `import-${randomUUID()}`)).value;
      } catch (err) {
        return refused(err);
      }
    },
    wait: (seconds) => sleep(seconds * 1000, undefined, { signal }),
  };
}

export const monitorTransferRoutes: FastifyPluginAsync<AppDeps> = async (app, deps) => {
  app.get('/monitors/export', async (request, reply) => {
    const document = monitorExport(await accountMonitors(deps, request.owner!.principal), deps.clock.now());
    const day = document.exported_at.slice(0, 10);
    return reply
      .type('application/json; charset=utf-8')
      .header('content-disposition', `attachment; filename="pagewatch-monitors-${day}.json"`)
      .send(`${JSON.stringify(document, null, 2)}\n`);
  });

  async function importForm(request: FastifyRequest, reply: FastifyReply, error?: string, status = 200) {
    const allowances = await previewAllowances(deps, request.owner!.principal);
    const ctx = pageContext(request);
    const body = importFormBody(ctx, allowances, Math.floor(IMPORT_LIMITS.maxArchiveBytes / (1024 * 1024)));
    return sendPage(reply, layout(ctx, 'Import monitors', body, { error, current: '/' }), status);
  }

  app.get('/monitors/import', async (request, reply) => importForm(request, reply));

  app.post('/monitors/import', { bodyLimit: UPLOAD_LIMIT_BYTES }, async (request, reply) => {
    const file = uploadedFile(request, 'file');
    if (!file) return importForm(request, reply, 'Choose a file to import.', 422);
    const abandoned = new AbortController();
    reply.raw.on('close', () => {
      if (!reply.raw.writableFinished) abandoned.abort();
    });
    let plan: ImportPlan;
    try {
      plan = await readUploadedImport(deps, request.owner!.principal, file.content, abandoned.signal);
    } catch (err) {
      if (err instanceof ImportSourceError)
        return importForm(request, reply, `${file.filename || 'The file'} cannot be imported: ${err.message}.`, 422);
      // No room in the extraction threads now: the form again, with when to try again.
      const refusal = formRefusal(err);
      if (!refusal) throw err;
      if (refusal.retryAfter !== undefined) reply.header('retry-after', String(refusal.retryAfter));
      return importForm(request, reply, refusal.message, refusal.status);
    }
    const mark = '<!--import-->';
    const [head, tail] = layout(pageContext(request), 'Import monitors', new SafeHtml(mark), { current: '/' }).value.split(mark);
    const out = new PassThrough();
    out.write(head + importStartBody(file.filename, plan.drafts.length, plan.skipped.length).value);
    // A buffering reverse proxy (nginx) would hold the lines back until the end.
    void reply.type('text/html; charset=utf-8').header('x-accel-buffering', 'no').send(out);
    const created = new Set<string>();
    try {
      const summary = await runImport(
        plan,
        servicePort(deps, request.owner!.principal, abandoned.signal),
        (line) => {
          if (line.kind === 'created') created.add(line.url);
          out.write(importLineItem(line).value);
        },
        abandoned.signal,
      );
      out.write(importResultBody(summary, plan.drafts, created).value);
    } catch (err) {
      const known = knownError(err);
      if (!known && !abandoned.signal.aborted) request.log.error({ err }, 'dashboard import');
      out.write(importStoppedBody(known ? `${known.message}.` : `an internal error occurred (request id ${request.id}).`).value);
    }
    out.end(tail);
    return reply;
  });
};
