import type { FastifyPluginAsync } from 'fastify';
import type { CoreDeps } from '../app-deps.ts';

// Liveness, readiness and metrics for load balancers and Prometheus. They
// carry no account data, so they need no token.
export const operationsRoutes: FastifyPluginAsync<CoreDeps> = async (app, deps) => {
  app.get('/healthz', async () => ({ data: { ok: true } }));

  app.get('/readyz', async (_request, reply) => {
    try {
      await deps.db.query('SELECT 1');
      return { data: { ok: true, store: deps.db.kind } };
    } catch {
      return reply.status(503).send({ data: { ok: false, store: deps.db.kind } });
    }
  });

  app.get('/metrics', async (_request, reply) => {
    reply.header('content-type', deps.metrics.registry.contentType);
    return deps.metrics.registry.metrics();
  });
};
