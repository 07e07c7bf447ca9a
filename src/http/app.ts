import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type RouteOptions } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { AppError } from '../errors.ts';
import type { AppDeps, CoreDeps } from './app-deps.ts';
import { sendError, sendFrameworkError } from './error-handler.ts';
import { nulError, nulField, validatorCompiler } from './validation.ts';
import { serializerCompiler } from './serialization.ts';
import { jsonNestsDeeperThan, MAX_JSON_DEPTH } from './json-depth.ts';
import { apiGate } from '../api/plugins/api-gate.ts';
import { ADMIN_PREFIX, API_PREFIX, FEEDS_PREFIX, buildOpenApiDocument } from './openapi.ts';
import { ErrorEnvelopeSchema, NoQuery } from '../schemas/common.ts';
import { requireQueryDeclaration } from './query-declaration.ts';
import { usageRoutes } from '../api/routes/usage.ts';
import { previewRoutes } from '../api/routes/previews.ts';
import { monitorRoutes } from '../api/routes/monitors.ts';
import { changeRoutes } from '../api/routes/changes.ts';
import { checkRoutes } from '../api/routes/checks.ts';
import { checkHistoryRoutes } from '../api/routes/check-history.ts';
import { feedTokenRoutes } from '../api/routes/feed-tokens.ts';
import { channelRoutes } from '../api/routes/channels.ts';
import { secretRoutes } from '../api/routes/secrets.ts';
import { feedRoutes } from '../api/feeds/feed-routes.ts';
import { adminRoutes } from '../api/admin/admin-routes.ts';
import { dashboard } from '../web/dashboard.ts';
import { renderNotFoundPage } from '../web/error-page.ts';
import { operationsRoutes } from './operations.ts';
import { createLogger } from './logger.ts';
import { Cursors } from './cursor.ts';
import { serverSecret } from '../store/server-secrets-store.ts';
import { capConnectionsPerAddress, serverTimeouts } from './connection-limits.ts';
import { ApiAccess } from '../services/api-access.ts';
import { createRequestLimiter } from '../services/request-limiter.ts';
import { createMonitorReads } from '../services/monitor-reads.ts';

export const BODY_LIMIT_BYTES = 16 * 1024;

export interface BuildAppOptions {
  /** a pino logger; default: one at config.logLevel */
  logger?: FastifyBaseLogger;
}

/** Builds the HTTP application without listening, so tests can use inject(). */
export async function buildApp(core: CoreDeps, options: BuildAppOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: options.logger ?? createLogger(core.config.logLevel),
    genReqId: () => randomUUID(),
    bodyLimit: BODY_LIMIT_BYTES,
    frameworkErrors: sendFrameworkError,
    ...serverTimeouts(core.config),
    return503OnClosing: true,
    forceCloseConnections: 'idle',
  }).withTypeProvider<TypeBoxTypeProvider>();
  capConnectionsPerAddress(app.server, core.config.maxConnectionsPerAddress);
  const deps = await hotPath(app, core);

  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (jsonNestsDeeperThan(body as string, MAX_JSON_DEPTH)) {
      return done(
        new AppError('malformed_json', `the request body nests objects or arrays deeper than ${MAX_JSON_DEPTH} levels`),
        undefined,
      );
    }
    return parseJson(request, body as string, done);
  });
  app.setErrorHandler(sendError);
  app.setNotFoundHandler((request, reply) => {
    // Outside the APIs every path is the dashboard's, which answers in HTML.
    if (!/^\/(api|admin)\//.test(request.url)) return renderNotFoundPage(request, reply);
    throw new AppError('not_found', 'resource not found');
  });
  app.addHook('onRequest', async (request, reply) => {
    reply.header('X-Request-Id', request.id);
  });
  // No stored text may hold NUL: refused before any schema or store sees it, on every route (the dashboard's forms too).
  app.addHook('preValidation', async (request) => {
    for (const part of ['params', 'querystring', 'body'] as const) {
      const field = nulField(part === 'querystring' ? request.query : request[part]);
      if (field) throw nulError(part, field);
    }
  });
  // A request still running when shutdown begins ends its connection, so the
  // drain does not wait for that socket's keep-alive timeout.
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onSend', async (_request, reply, payload) => {
    if (closing) reply.header('Connection', 'close');
    return payload;
  });
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    deps.metrics.httpRequests.inc({ method: request.method, route, status: String(reply.statusCode) });
    deps.metrics.httpDuration.observe({ method: request.method, route }, reply.elapsedTime / 1000);
  });

  app.addHook('onRoute', requireQueryDeclaration([API_PREFIX, ADMIN_PREFIX]));
  const apiRoutes: RouteOptions[] = [];
  // The document describes the feeds too (their readers send no token but the URL's); they take any query.
  app.addHook('onRoute', (route) => {
    if ([API_PREFIX, ADMIN_PREFIX, FEEDS_PREFIX].some((prefix) => route.url.startsWith(prefix))) apiRoutes.push(route);
  });

  await app.register(
    async (api) => {
      await api.register(apiGate, deps);
      api.setNotFoundHandler(() => {
        throw new AppError('not_found', 'resource not found');
      });
      await api.register(usageRoutes, deps);
      await api.register(previewRoutes, deps);
      await api.register(monitorRoutes, deps);
      await api.register(changeRoutes, deps);
      await api.register(checkRoutes, deps);
      await api.register(checkHistoryRoutes, deps);
      await api.register(feedTokenRoutes, deps);
      await api.register(channelRoutes, deps);
      await api.register(secretRoutes, deps);
      let document: object | null = null;
      api.get(
        '/openapi.json',
        { schema: { querystring: NoQuery } },
        async () => (document ??= buildOpenApiDocument(apiRoutes, ErrorEnvelopeSchema)),
      );
    },
    { prefix: API_PREFIX },
  );

  await app.register(operationsRoutes, deps);
  await app.register(feedRoutes, deps);

  // The account dashboard at "/" (src/web): cookie sessions of its own, never the API's bearer gate.
  await app.register(dashboard, deps);

  // The operator API exists only when the operator set a secret for it.
  if (deps.config.adminToken) await app.register(adminRoutes, { ...deps, prefix: ADMIN_PREFIX });
  return app;
}

/**
 * The API hot path's state: the token cache listens for changes from the
 * start; at close (after the last request), counts kept in memory are written.
 */
async function hotPath(app: FastifyInstance, core: CoreDeps): Promise<AppDeps> {
  const access = new ApiAccess(core.db);
  await access.start();
  const limiter = createRequestLimiter(core.db, core, app.log);
  app.addHook('onClose', async () => {
    await Promise.all([access.stop(), limiter.stop()]);
  });
  const cursors = new Cursors(await serverSecret(core.db, 'cursor_seal'));
  return { ...core, access, limiter, cursors, monitorReads: createMonitorReads(core.db) };
}
