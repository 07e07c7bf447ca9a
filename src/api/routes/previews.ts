import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { createPreview, evaluatePreview } from '../../services/previews.ts';
import type { AppDeps } from '../../http/app-deps.ts';
import { clientGoneSignal } from '../../http/client-gone.ts';
import { Data, NoQuery } from '../../schemas/common.ts';
import { CreatePreviewBody, EvaluateBody, EvaluateResultSchema, PreviewParams, PreviewSchema } from '../../schemas/previews.ts';

export const previewRoutes: FastifyPluginAsyncTypebox<AppDeps> = async (app, deps) => {
  app.post(
    '/previews',
    {
      config: { scope: 'monitors:write', errors: ['preview_limited', 'renderer_busy', 'busy', 'proxy_unknown', 'proxy_not_allowed'] },
      schema: {
        operationId: 'createPreview',
        summary: 'Load a cloud text preview of a page',
        description:
          'Synchronous (allow up to 60 seconds). Returns the element list used to choose stable selectors; never HTML, screenshots or cookies. ' +
          'Idempotency-Key is not supported and a retry may consume another preview credit. Limits: 150 a month, 40 a day, 35 s apart (429 preview_limited). ' +
          'A URL refused by the SSRF guard is 422 and costs no credit; a page that cannot be loaded is 422 validation_failed, ' +
          'an anti-bot wall among them (details: blocked with the reason), and so is a document that cannot be read (details: json_invalid, ' +
          'pdf_unreadable, too_large, extraction_timeout). JSON (application/json, +json) and PDF documents are previewed too (format). ' +
          "proxy: load through one of the operator's proxies. " +
          'The preview is valid for 15 minutes and only the 3 most recent are kept.',
        tags: ['previews'],
        querystring: NoQuery,
        body: CreatePreviewBody,
        response: { 201: Data(PreviewSchema) },
      },
    },
    async (request, reply) => {
      reply.status(201);
      return { data: await createPreview(deps, request.principal!, request.body, clientGoneSignal(reply)) };
    },
  );

  app.post(
    '/previews/:preview_id/evaluate',
    {
      config: { scope: 'monitors:write', errors: ['target_invalid', 'busy'] },
      schema: {
        operationId: 'evaluatePreview',
        summary: 'Extract targets from a saved preview',
        description:
          'Loads no page and uses no preview credit. Missing, ambiguous, blocked or unknown content is reported as issues of each target. ' +
          'Strings are capped at 1,500 characters and links at 10. An unknown, expired, discarded or foreign preview is 404.',
        tags: ['previews'],
        querystring: NoQuery,
        params: PreviewParams,
        body: EvaluateBody,
        response: { 200: Data(EvaluateResultSchema) },
      },
    },
    async (request, reply) => ({
      data: {
        targets: await evaluatePreview(
          deps,
          request.principal!,
          request.params.preview_id,
          request.body.targets,
          clientGoneSignal(reply),
          request.body.steps,
        ),
      },
    }),
  );
};
