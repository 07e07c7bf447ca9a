import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { AppDeps } from '../../http/app-deps.ts';
import { AppError } from '../../errors.ts';
import { isScope, type Scope } from '../../domain/scopes.ts';
import { createToken, listAccountTokens, revokeTokenById, type TokenView } from '../../services/tokens.ts';
import type { Owner } from '../../services/owner-sessions.ts';
import { field, fields } from '../form.ts';
import { PageError } from '../page-error.ts';
import { layout, pageContext, seeOther, sendPage } from '../views/layout.ts';
import { EMPTY_TOKEN_FORM, EXPIRY_DAYS, revokeBody, tokensBody, type TokenForm } from '../views/tokens.ts';

// API access: the owner's tokens, through the same token service as the operator API.

function validate(form: TokenForm): string | null {
  if (form.name.length < 1 || form.name.length > 100) return 'Give the token a name of 1 to 100 characters.';
  if (form.scopes.length === 0 || !form.scopes.every(isScope)) return 'Choose at least one scope.';
  if (!(EXPIRY_DAYS as readonly number[]).includes(form.days)) return 'Choose an expiry of 30, 90 or 365 days.';
  return null;
}

export const tokenRoutes: FastifyPluginAsync<AppDeps> = async (app, deps) => {
  const ownerOf = (request: FastifyRequest): Owner => request.owner!;

  async function render(
    request: FastifyRequest,
    reply: FastifyReply,
    extra: { form?: TokenForm; created?: { name: string; token: string; expires_at: string }; error?: string; status?: number } = {},
  ) {
    const { principal } = ownerOf(request);
    const tokens = await listAccountTokens(deps, principal.accountId, principal.planName);
    const ctx = pageContext(request);
    const body = tokensBody(ctx, {
      plan: principal.plan,
      planName: principal.planName,
      tokens,
      form: extra.form ?? EMPTY_TOKEN_FORM,
      created: extra.created,
    });
    return sendPage(reply, layout(ctx, 'API access', body, { error: extra.error }), extra.status);
  }

  async function ownToken(request: FastifyRequest, id: string): Promise<TokenView> {
    const { principal } = ownerOf(request);
    const token = (await listAccountTokens(deps, principal.accountId, principal.planName)).find((t) => t.id === id);
    if (!token) throw new PageError(404, 'Not found', 'There is no such token in this account.');
    return token;
  }

  app.get('/api-access', async (request, reply) => render(request, reply));

  app.post('/api-access/tokens', async (request, reply) => {
    const form: TokenForm = {
      name: field(request, 'name').trim(),
      scopes: fields(request, 'scopes'),
      days: Number(field(request, 'days')),
    };
    const problem = validate(form);
    if (problem) return render(request, reply, { form, error: problem, status: 422 });
    try {
      const created = await createToken(deps, ownerOf(request).accountId, {
        name: form.name,
        scopes: form.scopes as Scope[],
        expires_in_days: form.days,
      });
      return render(request, reply, { created: { name: form.name, token: created.token, expires_at: created.expires_at }, status: 201 });
    } catch (err) {
      if (err instanceof AppError && (err.code === 'allowance_exhausted' || err.code === 'pro_required')) {
        return render(request, reply, { form, error: err.message, status: err.status });
      }
      throw err;
    }
  });

  app.get<{ Params: { id: string } }>('/api-access/tokens/:id/revoke', async (request, reply) => {
    const token = await ownToken(request, request.params.id);
    const ctx = pageContext(request);
    return sendPage(reply, layout(ctx, 'Revoke token', revokeBody(ctx, token)));
  });

  app.post<{ Params: { id: string } }>('/api-access/tokens/:id/revoke', async (request, reply) => {
    const token = await ownToken(request, request.params.id);
    await revokeTokenById(deps, token.id);
    return seeOther(reply, '/api-access?notice=token-revoked');
  });
};
