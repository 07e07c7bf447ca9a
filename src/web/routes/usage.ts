import type { FastifyPluginAsync } from 'fastify';
import type { AppDeps } from '../../http/app-deps.ts';
import { getUsage } from '../../services/usage.ts';
import { layout, pageContext, sendPage } from '../views/layout.ts';
import { usageBody } from '../views/usage.ts';

// Usage: the same figures as GET /usage. Viewing it costs no API request.
export const usageRoutes: FastifyPluginAsync<AppDeps> = async (app, deps) => {
  app.get('/usage', async (request, reply) => {
    const { principal } = request.owner!;
    const usage = await getUsage(deps, principal);
    const ctx = pageContext(request);
    return sendPage(reply, layout(ctx, 'Usage', usageBody(usage, principal.planName, principal.plan.api_access)));
  });
};
