import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { AppError } from '../../errors.ts';
import { isPlanName } from '../../domain/plans.ts';
import { assertWebhookUrlAllowed, changeAccount, createAccount, getAccount, listAccountPage } from '../../services/accounts.ts';
import { createPasswordLink } from '../../services/owner-auth.ts';
import { createToken, listAccountTokens, revokeTokenById } from '../../services/tokens.ts';
import { sameSecret } from '../../services/token-secrets.ts';
import { getApiStatus, setApiStatus } from '../../services/api-status.ts';
import { takeBackup } from '../../services/store-backup.ts';
import type { AppDeps } from '../../http/app-deps.ts';
import type { Cursors } from '../../http/cursor.ts';
import { requireJsonContentType } from '../plugins/api-gate.ts';
import { Data, ListOf, NoQuery } from '../../schemas/common.ts';
import {
  AccountListItemSchema,
  AccountSchema,
  ApiStatusSchema,
  CreateAccountBody,
  CreatedTokenSchema,
  CreateTokenBody,
  EmptyBody,
  IdParams,
  ListAccountsQuery,
  PasswordLinkSchema,
  PatchAccountBody,
  PutApiStatusBody,
  TokenViewSchema,
} from '../../schemas/admin.ts';

const OPERATOR = ['operator'];

// What the account list's cursors are made for: a cursor of another list does not open here.
const ACCOUNT_LIST = { list: 'accounts' };

function cursorPosition(cursors: Cursors, raw: string | undefined) {
  if (raw === undefined) return null;
  const { c, i } = cursors.decode(raw, ACCOUNT_LIST, ['c', 'i']);
  const createdAt = new Date(c);
  if (Number.isNaN(createdAt.getTime()) || !/^[0-9a-f-]{36}$/.test(i)) throw new AppError('malformed_cursor', 'the cursor is malformed');
  return { created_at: createdAt, id: i };
}

// The operator API (DESIGN §6): accounts, tokens and the API's open/closed state.
export const adminRoutes: FastifyPluginAsyncTypebox<AppDeps> = async (app, deps) => {
  const adminToken = deps.config.adminToken!;
  app.addHook('onRequest', async (request, reply) => {
    reply.header('Cache-Control', 'no-store');
    const match = /^Bearer (.+)$/i.exec(request.headers.authorization?.trim() ?? '');
    if (!match || !sameSecret(match[1]!, adminToken)) throw new AppError('unauthorized', 'missing or invalid operator token');
    requireJsonContentType(request);
  });
  app.setNotFoundHandler(() => {
    throw new AppError('not_found', 'resource not found');
  });

  app.post(
    '/accounts',
    {
      schema: {
        operationId: 'operatorCreateAccount',
        summary: 'Create an account',
        tags: OPERATOR,
        querystring: NoQuery,
        body: CreateAccountBody,
        response: { 201: Data(AccountSchema) },
      },
    },
    async (request, reply) => {
      reply.status(201);
      return { data: await createAccount(deps, request.body) };
    },
  );

  app.get(
    '/accounts',
    {
      schema: {
        operationId: 'operatorListAccounts',
        summary: 'List accounts, newest first',
        tags: OPERATOR,
        description: 'Follow meta.next_cursor until it is null.',
        querystring: ListAccountsQuery,
        response: { 200: ListOf(AccountListItemSchema) },
      },
    },
    async (request) => {
      const page = await listAccountPage(deps, {
        limit: request.query.limit,
        after: cursorPosition(deps.cursors, request.query.cursor),
      });
      const next = page.next ? deps.cursors.encode({ c: page.next.created_at.toISOString(), i: page.next.id }, ACCOUNT_LIST) : null;
      return { data: page.rows, meta: { next_cursor: next } };
    },
  );

  app.get(
    '/accounts/:id',
    {
      schema: {
        operationId: 'operatorGetAccount',
        summary: 'Read an account',
        tags: OPERATOR,
        querystring: NoQuery,
        params: IdParams,
        response: { 200: Data(AccountSchema) },
      },
    },
    async (request) => ({
      data: await getAccount(deps, request.params.id),
    }),
  );

  app.patch(
    '/accounts/:id',
    {
      schema: {
        operationId: 'operatorChangeAccount',
        summary: "Change an account's email, plan, webhook or time zone",
        tags: OPERATOR,
        description: 'A move to a plan under which some of its active monitors are no longer checked emails the owner once.',
        querystring: NoQuery,
        params: IdParams,
        body: PatchAccountBody,
        response: { 200: Data(AccountSchema) },
      },
    },
    async (request) => {
      if (typeof request.body.webhook_url === 'string') assertWebhookUrlAllowed(request.body.webhook_url, deps.loaders.policy);
      const changed = await changeAccount(deps, request.params.id, request.body);
      // A plan change is effective at once in this process; others hear of it from the store (migration 010).
      if (request.body.plan !== undefined) deps.access.invalidateAccount(changed.id);
      return { data: changed };
    },
  );

  // A one-time link (24 h) with which the owner sets the dashboard password; a newer link replaces it.
  // The body is {} because every operator POST is JSON.
  app.post(
    '/accounts/:id/password-link',
    {
      schema: {
        operationId: 'operatorCreatePasswordLink',
        summary: "Make the owner's one-time dashboard set-password link",
        tags: OPERATOR,
        querystring: NoQuery,
        params: IdParams,
        body: EmptyBody,
        response: { 201: Data(PasswordLinkSchema) },
      },
    },
    async (request, reply) => {
      reply.status(201);
      return { data: await createPasswordLink(deps, request.params.id) };
    },
  );

  app.post(
    '/accounts/:id/tokens',
    {
      config: { errors: ['allowance_exhausted'] },
      schema: {
        operationId: 'operatorCreateToken',
        summary: 'Create an API token for an account (the secret is shown once)',
        tags: OPERATOR,
        querystring: NoQuery,
        params: IdParams,
        body: CreateTokenBody,
        response: { 201: Data(CreatedTokenSchema) },
      },
    },
    async (request, reply) => {
      reply.status(201);
      return { data: await createToken(deps, request.params.id, request.body) };
    },
  );

  app.get(
    '/accounts/:id/tokens',
    {
      schema: {
        operationId: 'operatorListTokens',
        summary: "List an account's tokens, without their secrets",
        tags: OPERATOR,
        querystring: NoQuery,
        params: IdParams,
        response: { 200: ListOf(TokenViewSchema) },
      },
    },
    async (request) => {
      const account = await getAccount(deps, request.params.id);
      if (!isPlanName(account.plan)) throw new AppError('internal_error', `account has unknown plan ${account.plan}`);
      return { data: await listAccountTokens(deps, account.id, account.plan), meta: { next_cursor: null } };
    },
  );

  app.delete(
    '/tokens/:id',
    {
      schema: {
        operationId: 'operatorRevokeToken',
        summary: 'Revoke a token',
        tags: OPERATOR,
        querystring: NoQuery,
        params: IdParams,
        response: { 204: Type.Null({ description: 'revoked' }) },
      },
    },
    async (request, reply) => {
      if (!(await revokeTokenById(deps, request.params.id))) throw new AppError('not_found', 'token not found');
      return reply.status(204).send(null);
    },
  );

  app.get(
    '/api-status',
    {
      schema: {
        operationId: 'operatorGetApiStatus',
        summary: 'Whether /api/v1 is open',
        tags: OPERATOR,
        querystring: NoQuery,
        response: { 200: Data(ApiStatusSchema) },
      },
    },
    async () => ({
      data: await getApiStatus(deps.db),
    }),
  );

  app.put(
    '/api-status',
    {
      schema: {
        operationId: 'operatorSetApiStatus',
        summary: 'Open or close /api/v1 for maintenance',
        tags: OPERATOR,
        querystring: NoQuery,
        body: PutApiStatusBody,
        response: { 200: Data(ApiStatusSchema) },
      },
    },
    async (request) => {
      const next = await setApiStatus(deps.db, request.body);
      deps.access.invalidateStatus();
      return { data: next };
    },
  );

  // The embedded store's data directory, copied while the server runs: `pagewatch backup` reads it here
  // because the running server holds the data directory's lock.
  app.get(
    '/backup',
    {
      config: { errors: ['backup_unsupported'] },
      schema: {
        operationId: 'operatorBackup',
        summary: 'A backup file of the embedded store, taken while the server runs',
        description:
          'The store is held still only while its files are copied (held_ms in the file header). PostgreSQL answers 409 backup_unsupported: use pg_dump.',
        tags: OPERATOR,
        querystring: NoQuery,
        response: { 200: Type.Unsafe<Buffer>({ type: 'string', format: 'binary', contentMediaType: 'application/octet-stream' }) },
      },
    },
    async (_request, reply) => {
      const file = await takeBackup(deps.db, deps.clock);
      return reply.type('application/octet-stream').send(file);
    },
  );

  app.get(
    '/health',
    {
      schema: {
        operationId: 'operatorHealth',
        summary: 'Whether the operator API answers',
        tags: OPERATOR,
        querystring: NoQuery,
        response: { 200: Data(Type.Object({ ok: Type.Boolean() })) },
      },
    },
    async () => ({
      data: { ok: true },
    }),
  );
};
