import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { AppDeps } from '../../http/app-deps.ts';
import { listAccountSecrets, putSecret, removeSecret } from '../../services/secrets.ts';
import { Data, NoQuery } from '../../schemas/common.ts';
import { PutSecretBody, SecretParams, SecretSchema } from '../../schemas/secrets.ts';

const write = { scope: 'secrets:write' } as const;

export const secretRoutes: FastifyPluginAsyncTypebox<AppDeps> = async (app, deps) => {
  app.put(
    '/secrets/:name',
    {
      config: { ...write, errors: ['allowance_exhausted', 'unavailable'] },
      schema: {
        operationId: 'putSecret',
        summary: 'Store a secret (or replace its value) for type steps to name',
        description:
          "The value is encrypted at rest with the operator's key and never returned, logged or shown in a capture, diff or error; " +
          'a type step names it with {"secret": name}. 201 when new, 200 when replaced. At most the plan\'s secrets (20 on Pro). ' +
          '503 unavailable when the server has no PAGEWATCH_SECRETS_KEY.',
        tags: ['secrets'],
        querystring: NoQuery,
        params: SecretParams,
        body: PutSecretBody,
        response: { 200: Data(SecretSchema), 201: Data(SecretSchema) },
      },
    },
    async (request, reply) => {
      const { created, secret } = await putSecret(deps, request.principal!, request.params.name, request.body.value);
      return reply.status(created ? 201 : 200).send({ data: secret });
    },
  );

  app.get(
    '/secrets',
    {
      config: write,
      schema: {
        operationId: 'listSecrets',
        summary: "List the account's secrets by name (never their values)",
        tags: ['secrets'],
        querystring: NoQuery,
        response: { 200: Data(Type.Array(SecretSchema)) },
      },
    },
    async (request) => ({ data: await listAccountSecrets(deps, request.principal!) }),
  );

  app.delete(
    '/secrets/:name',
    {
      config: { ...write, errors: ['secret_in_use'] },
      schema: {
        operationId: 'deleteSecret',
        summary: 'Delete a secret no monitor types',
        description: "409 secret_in_use while a monitor's steps type it; the message and details name those monitors.",
        tags: ['secrets'],
        querystring: NoQuery,
        params: SecretParams,
        response: { 204: Type.Null() },
      },
    },
    async (request, reply) => {
      await removeSecret(deps, request.principal!, request.params.name);
      return reply.status(204).send(null);
    },
  );
};
