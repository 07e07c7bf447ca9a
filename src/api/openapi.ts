import type { RouteOptions } from 'fastify';
import { WEBHOOK_EVENTS, WEBHOOK_HEADERS, webhookEnvelope } from './schemas/webhooks.ts';

// The OpenAPI 3.1 document is generated from the route schemas that validate
// requests, so the two cannot drift apart.

export const API_PREFIX = '/api/v1';

const ERROR_RESPONSES: Record<string, string> = {
  '400': 'malformed JSON, cursor or idempotency key; unknown field or parameter; invalid query value',
  '401': 'invalid, expired or revoked token (code unauthorized)',
  '403': 'Pro required (pro_required) or missing scope (insufficient_scope)',
  '404': 'resource missing, owned by another account, deleted or expired',
  '429': 'request, preview, manual-check or idempotency limit; wait Retry-After seconds',
  '503': 'API closed, renderer busy or transient failure; respect Retry-After',
};

interface SchemaParts {
  operationId?: string;
  summary?: string;
  description?: string;
  tags?: string[];
  params?: { properties?: Record<string, object>; required?: string[] };
  querystring?: { properties?: Record<string, object>; required?: string[] };
  headers?: { properties?: Record<string, object>; required?: string[] };
  body?: object;
  response?: Record<string, object>;
}

const plain = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

function parameters(part: SchemaParts['params'], location: 'path' | 'query' | 'header') {
  return Object.entries(part?.properties ?? {}).map(([name, schema]) => ({
    name,
    in: location,
    required: location === 'path' || (part?.required ?? []).includes(name),
    schema: plain(schema),
  }));
}

function operation(route: RouteOptions) {
  const schema = (route.schema ?? {}) as SchemaParts;
  const scope = (route.config as { scope?: string } | undefined)?.scope;
  const responses: Record<string, object> = {};
  for (const [status, body] of Object.entries(schema.response ?? {})) {
    const isEmpty = status === '204';
    responses[status] = isEmpty ? { description: 'no content' } : { description: 'success', content: { 'application/json': { schema: plain(body) } } };
  }
  for (const [status, description] of Object.entries(ERROR_RESPONSES)) {
    responses[status] ??= { description, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } };
  }
  return {
    operationId: schema.operationId,
    summary: schema.summary,
    description: schema.description,
    tags: schema.tags,
    security: [{ bearerAuth: [scope] }],
    parameters: [
      ...parameters(schema.params, 'path'),
      ...parameters(schema.querystring, 'query'),
      ...parameters(schema.headers, 'header'),
    ],
    ...(schema.body ? { requestBody: { required: true, content: { 'application/json': { schema: plain(schema.body) } } } } : {}),
    responses,
  };
}

/** Each webhook event as an OpenAPI 3.1 `webhooks` entry: the POST pagewatch makes, with its signed headers. */
function webhooks(): Record<string, object> {
  return Object.fromEntries(
    WEBHOOK_EVENTS.map((event) => [
      event.type,
      {
        post: {
          operationId: `webhook_${event.type.replace('.', '_')}`,
          summary: event.summary,
          description:
            `${event.description} Delivered at least once from a durable outbox; answer 2xx within 15 s. Other answers and timeouts are ` +
            'retried with exponential backoff for about a day, honouring Retry-After; 410 stops the retries; redirects are not followed.',
          tags: ['webhooks'],
          parameters: WEBHOOK_HEADERS.map((h) => ({ name: h.name, in: 'header', required: true, description: h.description, schema: { type: 'string' } })),
          requestBody: { required: true, content: { 'application/json': { schema: plain(webhookEnvelope(event)) } } },
          responses: { '2XX': { description: 'delivered' }, '410': { description: 'gone: pagewatch stops retrying this delivery' } },
        },
      },
    ]),
  );
}

export function buildOpenApiDocument(routes: RouteOptions[], errorSchema: object): object {
  const paths: Record<string, Record<string, object>> = {};
  for (const route of routes) {
    // Only the token-protected API is described; openapi.json itself is not an operation of it.
    if (!(route.config as { scope?: string } | undefined)?.scope) continue;
    const methods = (Array.isArray(route.method) ? route.method : [route.method]).filter((m) => m !== 'HEAD');
    const path = route.url.slice(API_PREFIX.length).replace(/:([A-Za-z_]+)/g, '{$1}') || '/';
    for (const method of methods) {
      paths[path] ??= {};
      paths[path][method.toLowerCase()] = operation(route);
    }
  }
  const sortedPaths = Object.fromEntries(Object.entries(paths).sort(([a], [b]) => a.localeCompare(b)));
  const { $id: _id, ...error } = plain(errorSchema) as { $id?: string };
  return {
    openapi: '3.1.0',
    info: {
      title: 'pagewatch public API',
      version: '1.0.0',
      description:
        'Web-page change monitoring. Every endpoint needs `Authorization: Bearer <token>` with the scope shown, on the Pro plan. ' +
        'Unknown body fields (400 unknown_field) and query parameters (400 unknown_parameter) are rejected. ' +
        'Every response carries X-Request-Id, X-RateLimit-* and X-Read-Bytes-Day-* headers.',
    },
    servers: [{ url: API_PREFIX }],
    paths: sortedPaths,
    webhooks: webhooks(),
    components: {
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'API token (pwk_…) created by the account owner' } },
      schemas: { Error: error },
    },
  };
}
