import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import type { AppDeps } from '../http/app-deps.ts';
import { csrfTokenFor, csrfTokenMatches, newSecret, resolveSession, type Owner } from '../services/owner-sessions.ts';
import { clearCookie, isHttps, parseCookies, PRE_SESSION_COOKIE, SESSION_COOKIE, setCookie } from './cookies.ts';
import { renderErrorPage } from './error-page.ts';
import { field, parseForm } from './form.ts';
import { multipartBoundary, parseMultipart } from './multipart.ts';
import { PageError } from './page-error.ts';
import { seeOther } from './views/layout.ts';
import { assetRoutes } from './routes/assets.ts';
import { authRoutes } from './routes/auth.ts';
import { tokenRoutes } from './routes/tokens.ts';
import { feedTokenPages } from './routes/feed-tokens.ts';
import { channelPages } from './routes/channels.ts';
import { monitorRoutes } from './routes/monitors.ts';
import { usageRoutes } from './routes/usage.ts';
import { newMonitorRoutes } from './routes/new-monitor.ts';
import { changeRoutes } from './routes/changes.ts';
import { editMonitorRoutes } from './routes/edit-monitor.ts';
import { settingsRoutes } from './routes/settings.ts';
import { monitorTransferRoutes } from './routes/monitor-transfer.ts';

// The account dashboard at "/": server-rendered pages for the account owner,
// signed in with a password and a session cookie. Nothing here touches the
// /api/v1 gate, which reads only Authorization: Bearer and ignores cookies.

declare module 'fastify' {
  interface FastifyContextConfig {
    /** a dashboard page reachable without signing in */
    signedOut?: boolean;
  }
  interface FastifyRequest {
    owner: Owner | null;
    /** the secret the CSRF token derives from: the session's, or the signed-out visitor's */
    csrfSecret: string;
    csrfToken: string;
    https: boolean;
  }
}

const SECURITY_HEADERS = {
  'cache-control': 'no-store',
  // Scripts and styles come only from /assets; inline SVG charts need nothing more.
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
};

async function pages(app: FastifyInstance, deps: AppDeps): Promise<void> {
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
    done(null, parseForm(body as string));
  });
  // Only the import's upload is a file; every route's body limit still applies.
  app.addContentTypeParser('multipart/form-data', { parseAs: 'buffer' }, (request, body, done) => {
    const boundary = multipartBoundary(request.headers['content-type'] ?? '');
    try {
      if (boundary === null) throw new PageError(400, 'Bad request', 'The uploaded form could not be read.');
      done(null, parseMultipart(body as Buffer, boundary));
    } catch (err) {
      done(err as Error);
    }
  });
  app.decorateRequest('owner', null);
  app.decorateRequest('csrfSecret', '');
  app.decorateRequest('csrfToken', '');
  app.decorateRequest('https', false);
  app.setErrorHandler(renderErrorPage);

  app.addHook('onRequest', async (request, reply) => {
    reply.headers(SECURITY_HEADERS);
    request.https = isHttps(request, deps.config.publicUrl);
    const cookies = parseCookies(request.headers.cookie);
    const sessionSecret = cookies.get(SESSION_COOKIE);
    if (sessionSecret) {
      request.owner = await resolveSession(deps, sessionSecret);
      if (request.owner) request.csrfSecret = sessionSecret;
      else clearCookie(reply, SESSION_COOKIE, request.https);
    }
    if (!request.owner) {
      const pre = cookies.get(PRE_SESSION_COOKIE);
      request.csrfSecret = pre ?? newSecret();
      if (!pre) setCookie(reply, PRE_SESSION_COOKIE, request.csrfSecret, { secure: request.https });
    }
    request.csrfToken = csrfTokenFor(request.csrfSecret);
    if (!request.owner && !request.routeOptions.config.signedOut) {
      const next = request.method === 'GET' ? `&next=${encodeURIComponent(request.url)}` : '';
      return seeOther(reply, `/sign-in?notice=signed-in-required${next}`);
    }
  });

  // Every POST carries the synchronizer token of the session it was rendered for.
  app.addHook('preHandler', async (request) => {
    if (request.method !== 'POST') return;
    if (!csrfTokenMatches(request.csrfSecret, field(request, '_csrf'))) {
      throw new PageError(
        403,
        'Form expired',
        'This form is no longer valid (it was opened in another session, or the session ended). Reload the page and try again.',
      );
    }
  });

  await app.register(authRoutes, deps);
  await app.register(tokenRoutes, deps);
  await app.register(feedTokenPages, deps);
  await app.register(channelPages, deps);
  await app.register(monitorRoutes, deps);
  await app.register(usageRoutes, deps);
  await app.register(newMonitorRoutes, deps);
  await app.register(changeRoutes, deps);
  await app.register(editMonitorRoutes, deps);
  await app.register(settingsRoutes, deps);
  await app.register(monitorTransferRoutes, deps);
}

export const dashboard: FastifyPluginAsync<AppDeps> = async (app, deps) => {
  await app.register(assetRoutes);
  await app.register(pages, deps);
};
