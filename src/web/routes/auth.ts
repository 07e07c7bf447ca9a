import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { AppDeps } from '../../http/app-deps.ts';
import { passwordLinkEmail, passwordProblem, setPasswordWithLink, signIn } from '../../services/owner-auth.ts';
import { endSession, startSession } from '../../services/owner-sessions.ts';
import { clearCookie, PRE_SESSION_COOKIE, SESSION_COOKIE, setCookie } from '../cookies.ts';
import { field } from '../form.ts';
import { html } from '../html.ts';
import { PageError } from '../page-error.ts';
import { csrfField, layout, pageContext, seeOther, sendPage } from '../views/layout.ts';

// Sign-in, sign-out and setting a password from the operator's one-time link.

// A plain same-site path of printable ASCII: browsers strip a TAB, CR or LF
// from a Location ("/\t/host" becomes "//host", another site), and a CR or LF
// cannot be sent in a header at all.
const SAME_SITE_PATH = /^\/(?![/\\])[\x21-\x7e]*$/;

/** Only a local path is followed after sign-in, never another site. */
function safeNext(next: unknown): string {
  return typeof next === 'string' && SAME_SITE_PATH.test(next) ? next : '/';
}

function signInPage(request: FastifyRequest, reply: FastifyReply, options: { status?: number; error?: string; email?: string } = {}) {
  const ctx = pageContext(request);
  const next = safeNext((request.query as Record<string, unknown>).next ?? field(request, 'next'));
  const body = html`<div class="narrow">
<h1>Sign in</h1>
<form method="post" action="/sign-in" class="stack">
${csrfField(ctx)}<input type="hidden" name="next" value="${next}">
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" required value="${options.email ?? ''}">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">Sign in</button>
</form>
<p class="muted">No password yet? The operator of this pagewatch server can send you a link to set one.</p>
</div>`;
  return sendPage(reply, layout(ctx, 'Sign in', body, { error: options.error }), options.status);
}

function setPasswordPage(
  request: FastifyRequest,
  reply: FastifyReply,
  token: string,
  email: string,
  options: { status?: number; error?: string } = {},
) {
  const ctx = pageContext(request);
  const body = html`<div class="narrow">
<h1>Set your password</h1>
<p>For <strong>${email}</strong>. This link works once.</p>
<form method="post" action="/set-password" class="stack">
${csrfField(ctx)}<input type="hidden" name="token" value="${token}">
<input type="hidden" name="email" autocomplete="username" value="${email}">
<label for="password">New password</label>
<input id="password" name="password" type="password" autocomplete="new-password" minlength="10" required aria-describedby="password-help">
<p id="password-help" class="help">At least 10 characters.</p>
<label for="confirm">Repeat the password</label>
<input id="confirm" name="confirm" type="password" autocomplete="new-password" required>
<button type="submit">Set password</button>
</form>
</div>`;
  return sendPage(reply, layout(ctx, 'Set your password', body, { error: options.error }), options.status);
}

const linkGone = () =>
  new PageError(
    410,
    'Link no longer valid',
    'This set-password link was already used, has expired or was replaced by a newer one. Ask the operator for a new link.',
  );

export const authRoutes: FastifyPluginAsync<AppDeps> = async (app, deps) => {
  const signedOut = { config: { signedOut: true } };

  app.get('/sign-in', signedOut, async (request, reply) => {
    if (request.owner) return seeOther(reply, '/');
    return signInPage(request, reply);
  });

  app.post('/sign-in', signedOut, async (request, reply) => {
    const email = field(request, 'email');
    const result = await signIn(deps, { email, password: field(request, 'password'), address: request.ip });
    if (!result.ok && result.reason === 'throttled') {
      reply.header('retry-after', String(result.retryAfterMinutes * 60));
      const error = `Too many failed sign-in attempts. Try again in ${result.retryAfterMinutes} minute${result.retryAfterMinutes === 1 ? '' : 's'}.`;
      return signInPage(request, reply, { status: 429, error, email });
    }
    if (!result.ok) return signInPage(request, reply, { status: 401, error: 'The email or password is not correct.', email });
    const session = await startSession(deps, result.accountId);
    setCookie(reply, SESSION_COOKIE, session.secret, { secure: request.https, maxAgeSeconds: session.maxAgeSeconds });
    clearCookie(reply, PRE_SESSION_COOKIE, request.https);
    return seeOther(reply, safeNext(field(request, 'next')));
  });

  app.post('/sign-out', async (request, reply) => {
    await endSession(deps, request.csrfSecret);
    clearCookie(reply, SESSION_COOKIE, request.https);
    return seeOther(reply, '/sign-in?notice=signed-out');
  });

  app.get('/set-password', signedOut, async (request, reply) => {
    const token = (request.query as Record<string, unknown>).token;
    const email = typeof token === 'string' ? await passwordLinkEmail(deps, token) : null;
    if (typeof token !== 'string' || !email) throw linkGone();
    return setPasswordPage(request, reply, token, email);
  });

  app.post('/set-password', signedOut, async (request, reply) => {
    const token = field(request, 'token');
    const email = await passwordLinkEmail(deps, token);
    if (!email) throw linkGone();
    const password = field(request, 'password');
    const problem = passwordProblem(password) ?? (password === field(request, 'confirm') ? null : 'the two passwords differ');
    if (problem) return setPasswordPage(request, reply, token, email, { status: 422, error: `Choose another password: ${problem}.` });
    if (!(await setPasswordWithLink(deps, token, password))) throw linkGone();
    return seeOther(reply, '/sign-in?notice=password-set');
  });
};
