import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Owner } from '../../services/owner-sessions.ts';
import { html, type HtmlValue, type SafeHtml } from '../html.ts';

// The page shell every dashboard page shares: skip link, header with
// navigation and sign-out, one notice line, the page's own content.

export interface PageContext {
  owner: Owner | null;
  csrf: string;
  path: string;
  notice: string | null;
}

export function pageContext(request: FastifyRequest): PageContext {
  const notice = (request.query as Record<string, unknown> | undefined)?.notice;
  return {
    // Outside the dashboard's routes (the app-wide 404) these were never set.
    owner: request.owner ?? null,
    csrf: request.csrfToken ?? '',
    path: request.url.split('?')[0]!,
    notice: typeof notice === 'string' && Object.hasOwn(NOTICES, notice) ? (NOTICES[notice] ?? null) : null,
  };
}

// Notices after a redirect are chosen by key, so a link can never put arbitrary text on a page.
const NOTICES: Record<string, string> = {
  'signed-out': 'You have signed out.',
  'password-set': 'Your password is set. Sign in with it.',
  'signed-in-required': 'Please sign in to continue.',
  'token-revoked': 'The token is revoked. API requests that use it are refused from now on.',
  'feed-revoked': 'The feed is revoked. Its address answers 404 from now on.',
  'channel-created': 'The channel is added. Choose it on a monitor’s edit page; a test message shows whether the service takes it.',
  'channel-deleted': 'The channel is deleted and has left every monitor that chose it.',
  'monitor-created': 'The monitor is created. Its first check records the baseline and sends no alert.',
  'monitor-paused': 'The monitor is paused.',
  'monitor-resumed': 'The monitor is active again.',
  'monitor-saved': 'The settings are saved.',
  'monitor-reconfigured': 'The targets and schedule are saved. Changed targets record a new baseline at the next check, with no alert.',
  'monitor-deleted': 'The monitor and its history are deleted.',
  'time-zone-saved': 'The time zone is saved. Alert emails show times in it from now on.',
  'email-mode-saved': 'The change email settings are saved.',
};

export function csrfField(ctx: PageContext): SafeHtml {
  return html`<input type="hidden" name="_csrf" value="${ctx.csrf}">`;
}

const NAV = [
  {
    href: '/',
    label: 'Monitors',
    match: (p: string) => p === '/' || (p.startsWith('/monitors') && !p.startsWith('/monitors/new')) || p.startsWith('/changes'),
  },
  { href: '/monitors/new', label: 'New monitor', match: (p: string) => p.startsWith('/monitors/new') },
  { href: '/api-access', label: 'API access', match: (p: string) => p.startsWith('/api-access') },
  { href: '/usage', label: 'Usage', match: (p: string) => p.startsWith('/usage') },
  { href: '/settings', label: 'Settings', match: (p: string) => p.startsWith('/settings') },
];

/** `current` names the nav entry a page belongs to when its path alone does not tell (editing goes through /monitors/new/…). */
function header(ctx: PageContext, current: string | undefined): SafeHtml {
  if (!ctx.owner) return html`<header class="top"><a class="brand" href="/">pagewatch</a></header>`;
  return html`<header class="top">
  <a class="brand" href="/">pagewatch</a>
  <nav aria-label="Main"><ul>${NAV.map(
    (item) =>
      html`<li><a href="${item.href}"${(current ? current === item.href : item.match(ctx.path)) ? html` aria-current="page"` : ''}>${item.label}</a></li>`,
  )}</ul></nav>
  <form class="sign-out" method="post" action="/sign-out">${csrfField(ctx)}<span class="who">${ctx.owner.email}</span> <button type="submit" class="link">Sign out</button></form>
</header>`;
}

export function layout(
  ctx: PageContext,
  title: string,
  body: HtmlValue,
  extra: { notice?: string | null; error?: string | null; current?: string } = {},
): SafeHtml {
  const notice = extra.notice ?? ctx.notice;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · pagewatch</title>
<link rel="icon" href="/favicon.ico">
<link rel="stylesheet" href="/assets/dashboard.css">
<script src="/assets/dashboard.js" defer></script>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
${header(ctx, extra.current)}
<main id="main" tabindex="-1">
${notice && html`<p class="notice" role="status">${notice}</p>`}
${extra.error && html`<p class="error" role="alert">${extra.error}</p>`}
${body}
</main>
</body>
</html>`;
}

export function sendPage(reply: FastifyReply, page: SafeHtml, status = 200): FastifyReply {
  return reply.status(status).type('text/html; charset=utf-8').send(page.value);
}

/** 303 after a successful POST, so reloading the page does not repeat the action. */
export function seeOther(reply: FastifyReply, location: string): FastifyReply {
  return reply.status(303).header('location', location).send();
}
