import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { AppError } from '../../errors.ts';
import type { LimitState } from '../../services/request-limits.ts';
import { ApiClosed, authenticate } from '../../services/tokens.ts';
import type { AppDeps } from '../../http/app-deps.ts';

// The /api/v1 request pipeline, before any handler runs: API open, bearer
// token, Pro access, scope, request limits, JSON content type. Afterwards:
// read bytes of successful GET bodies.

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

function setLimitHeaders(reply: FastifyReply, state: LimitState): void {
  reply.header('X-RateLimit-Limit', String(state.minuteLimit));
  reply.header('X-RateLimit-Remaining', String(state.minuteRemaining));
  reply.header('X-RateLimit-Reset', String(state.minuteReset));
  reply.header('X-RateLimit-Day-Limit', String(state.dayLimit));
  reply.header('X-RateLimit-Day-Remaining', String(state.dayRemaining));
  reply.header('X-Read-Bytes-Day-Limit', String(state.readBytesLimit));
  reply.header('X-Read-Bytes-Day-Remaining', String(state.readBytesRemaining));
}

function isJson(contentType: string | undefined): boolean {
  const mediaType = contentType?.split(';')[0]?.trim().toLowerCase() ?? '';
  return mediaType === 'application/json' || /^application\/[a-z0-9.+-]+\+json$/.test(mediaType);
}

export function requireJsonContentType(request: FastifyRequest): void {
  if (BODY_METHODS.has(request.method) && !isJson(request.headers['content-type'])) {
    throw new AppError('unsupported_media_type', 'the request body must be JSON (Content-Type: application/json)');
  }
}

async function gate(app: FastifyInstance, deps: AppDeps) {
  app.decorateRequest('principal', null);
  app.decorateRequest('limitState', null);

  app.addHook('onRequest', async (request, reply) => {
    reply.header('Cache-Control', 'no-store');
    const scope = request.routeOptions.config.scope;
    const isPublic = request.routeOptions.url !== undefined && scope === undefined;
    if (isPublic) return;
    // Also refuses every request while the API is closed; both from this process's cache, normally without a query.
    const principal = await authenticate(deps, request.headers.authorization).catch(async (err: unknown) => {
      // A closed API's 503 to a valid token is still an answer to that account.
      if (err instanceof ApiClosed && err.principal) setLimitHeaders(reply, (await deps.limiter.peek(err.principal)).state);
      throw err;
    });
    request.principal = principal;
    if (!principal.plan.api_access) {
      setLimitHeaders(reply, (await deps.limiter.peek(principal)).state);
      throw new AppError('pro_required', 'API access requires the Pro plan');
    }
    if (scope !== undefined && !principal.scopes.includes(scope)) {
      setLimitHeaders(reply, (await deps.limiter.peek(principal)).state);
      throw new AppError('insufficient_scope', `this token lacks the ${scope} scope`);
    }
    const admission = await deps.limiter.admit(principal, request.method === 'GET');
    request.limitState = admission.state;
    setLimitHeaders(reply, admission.state);
    if (admission.rejection) throw admission.rejection;
    if (request.routeOptions.url !== undefined) requireJsonContentType(request);
  });

  app.addHook('onSend', async (request, reply, payload) => {
    const principal = request.principal;
    if (!principal || request.method !== 'GET' || reply.statusCode >= 300 || !request.limitState) return payload;
    const bytes = typeof payload === 'string' || Buffer.isBuffer(payload) ? Buffer.byteLength(payload) : 0;
    const remaining = deps.limiter.chargeReadBytes(principal, bytes, request.limitState);
    reply.header('X-Read-Bytes-Day-Remaining', String(remaining));
    return payload;
  });
}

export const apiGate = fp(gate, { name: 'api-gate', encapsulate: false });
