import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { AppError } from '../errors.ts';
import { isStoreOutage, knownError } from '../services/known-errors.ts';
import { html } from './html.ts';
import { PageError } from './page-error.ts';
import { layout, pageContext, sendPage } from './views/layout.ts';

// The dashboard's own error pages: HTML, never the API's JSON envelope.

function describe(err: FastifyError, known: AppError | null): PageError {
  if (err instanceof PageError) return err;
  if (known) {
    if (known.status === 404) return new PageError(404, 'Not found', 'There is nothing here, or it belongs to another account.');
    if (known.status >= 500) return new PageError(known.status, 'Temporarily unavailable', known.message);
    return new PageError(known.status, 'That did not work', known.message);
  }
  switch (err.statusCode) {
    case 404:
      return new PageError(404, 'Not found', 'There is nothing here.');
    case 413:
      return new PageError(413, 'Too much data', 'The form sent more data than the dashboard accepts.');
    case 415:
      return new PageError(415, 'Unsupported form', 'The dashboard accepts ordinary HTML form submissions only.');
    case 400:
      return new PageError(400, 'Bad request', 'The request could not be understood.');
    default:
      return new PageError(500, 'Something went wrong', 'An internal error occurred. Quote the request id below when contacting support.');
  }
}

export function renderErrorPage(err: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  // Known conditions (services/known-errors.ts, shared with the API) are answers; only the rest is logged as an error.
  const known = knownError(err);
  const page = describe(err, known);
  if (page.status >= 500 && !known) request.log.error({ err }, 'dashboard error');
  else if (known && isStoreOutage(known)) request.log.warn({ err }, 'store outage');
  const ctx = pageContext(request);
  const body = html`<h1>${page.title}</h1>
<p>${page.message}</p>
<p class="muted">Request id: <code>${request.id}</code></p>
<p><a href="/">Back to the dashboard</a></p>`;
  if (known?.retryAfter !== undefined) reply.header('Retry-After', String(known.retryAfter));
  return sendPage(reply, layout(ctx, page.title, body), page.status);
}

export function renderNotFoundPage(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  return renderErrorPage(new PageError(404, 'Not found', 'There is nothing here.') as unknown as FastifyError, request, reply);
}
