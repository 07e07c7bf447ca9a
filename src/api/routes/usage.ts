import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { getUsage } from '../../services/usage.ts';
import type { AppDeps } from '../../http/app-deps.ts';
import { Data, NoQuery } from '../../schemas/common.ts';
import { UsageSchema } from '../../schemas/usage.ts';

export const usageRoutes: FastifyPluginAsyncTypebox<AppDeps> = async (app, deps) => {
  app.get(
    '/usage',
    {
      config: { scope: 'usage:read' },
      schema: {
        operationId: 'getUsage',
        summary: 'Account allowances and current usage',
        description: 'Monthly monitoring, notification and preview allowances and the API counters, with their UTC period boundaries.',
        tags: ['usage'],
        querystring: NoQuery,
        response: { 200: Data(UsageSchema) },
      },
    },
    async (request) => ({ data: await getUsage(deps, request.principal!) }),
  );
};
