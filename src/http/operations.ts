import type { FastifyPluginAsync } from 'fastify';
import type { CoreDeps } from './app-deps.ts';

// Liveness, readiness and metrics for load balancers and Prometheus. They
// carry no account data, so they need no token. Probes arrive every few
// seconds: their request logs appear only at LOG_LEVEL debug or trace.
export const operationsRoutes: FastifyPluginAsync<CoreDeps> = async (app, deps) => {
  const verbose = deps.config.logLevel === 'debug' || deps.config.logLevel === 'trace';
  const probe = { logLevel: verbose ? (deps.config.logLevel as 'debug' | 'trace') : ('warn' as const) };

  app.get('/healthz', probe, async () => ({ data: { ok: true } }));

  app.get('/readyz', probe, async (_request, reply) => {
    try {
      await deps.db.query('SELECT 1');
      return { data: { ok: true, store: deps.db.kind } };
    } catch {
      return reply.status(503).send({ data: { ok: false, store: deps.db.kind } });
    }
  });

  app.get('/metrics', probe, async (_request, reply) => {
    reply.header('content-type', deps.metrics.registry.contentType);
    return deps.metrics.registry.metrics();
  });
};
