import type { RouteOptions } from 'fastify';
import { ERROR_STATUS, type ErrorCode } from '../errors.ts';
import { WEBHOOK_EVENTS, WEBHOOK_HEADERS, webhookEnvelope } from '../schemas/webhooks.ts';

// The OpenAPI 3.1 document is generated from the route schemas that validate
// requests, so the two cannot drift apart.

export const API_PREFIX = '/api/v1';
export const ADMIN_PREFIX = '/admin/v1';
/** Atom feeds, for readers that send no headers: the feed token in the path is the credential. */
export const FEEDS_PREFIX = '/feeds/';

// What each status means to a client, before the codes a route can return under it.
const STATUS_MEANING: Record<number, string> = {
  400: 'malformed request',
  401: 'invalid, expired or revoked token',
  403: 'Pro required, or the token lacks the scope',
  404: 'resource missing, owned by another account, deleted or expired',
  409: 'conflict',
  413: 'body over 16 KiB',
  415: 'JSON content type required',
  422: 'invalid configuration',
  429: 'a limit was reached; wait Retry-After seconds',
  503: 'API closed, no capacity, or the store out of room or out of reach; respect Retry-After',
};

// What every request of the public API can meet; the operator API has no plans, scopes, limits nor closed state.
const PUBLIC_CODES: ErrorCode[] = [
  'unauthorized',
  'pro_required',
  'insufficient_scope',
  'rate_limited',
  'unavailable',
  'storage_unavailable',
  'store_unavailable',
  'unknown_parameter',
  'invalid_request',
];
const OPERATOR_CODES: ErrorCode[] = ['unauthorized', 'storage_unavailable', 'store_unavailable', 'unknown_parameter', 'invalid_request'];

/** The error codes a route can answer: those every request can meet, those its schema implies, and its own. */
function errorCodes(schema: SchemaParts, own: readonly ErrorCode[], operator: boolean): ErrorCode[] {
  const codes: ErrorCode[] = [...(operator ? OPERATOR_CODES : PUBLIC_CODES)];
  if (schema.params) codes.push('not_found');
  if (schema.querystring?.properties?.cursor) codes.push('malformed_cursor');
  if (schema.body) codes.push('malformed_json', 'unknown_field', 'payload_too_large', 'unsupported_media_type', 'validation_failed');
  if (schema.headers?.properties?.['idempotency-key']) {
    codes.push(
      'idempotency_key_missing',
      'idempotency_key_invalid',
      'idempotency_key_reused',
      'idempotency_request_in_progress',
      'idempotency_limited',
    );
  }
  return [...new Set([...codes, ...own])];
}

function errorResponses(codes: ErrorCode[]): Record<string, object> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) byStatus.set(ERROR_STATUS[code], [...(byStatus.get(ERROR_STATUS[code]) ?? []), code]);
  return Object.fromEntries(
    [...byStatus]
      .sort(([a], [b]) => a - b)
      .map(([status, list]) => [
        String(status),
        {
          description: `${STATUS_MEANING[status]}: ${list.join(', ')}`,
          content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
        },
      ]),
  );
}

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

function operation(route: RouteOptions, operator: boolean) {
  const schema = (route.schema ?? {}) as SchemaParts;
  const { scope, errors = [] } = (route.config ?? {}) as { scope?: string; errors?: ErrorCode[] };
  const responses: Record<string, object> = {};
  for (const [status, body] of Object.entries(schema.response ?? {})) {
    const isEmpty = status === '204';
    responses[status] = isEmpty
      ? { description: 'no content' }
      : // A body that is not JSON (a backup file) names its media type in the schema.
        {
          description: 'success',
          content: { [(body as { contentMediaType?: string }).contentMediaType ?? 'application/json']: { schema: plain(body) } },
        };
  }
  Object.assign(responses, errorResponses(errorCodes(schema, errors, operator)));
  return {
    operationId: schema.operationId,
    summary: schema.summary,
    description: schema.description,
    tags: schema.tags,
    // Operator paths are written whole (/admin/v1/…), so they resolve against the server's root, not /api/v1.
    ...(operator ? { servers: [{ url: '/' }], security: [{ operatorAuth: [] }] } : { security: [{ bearerAuth: [scope] }] }),
    parameters: [...parameters(schema.params, 'path'), ...parameters(schema.querystring, 'query'), ...parameters(schema.headers, 'header')],
    ...(schema.body ? { requestBody: { required: true, content: { 'application/json': { schema: plain(schema.body) } } } } : {}),
    responses,
  };
}

/** An Atom feed (DESIGN §8 Feeds): at the server's root, no bearer token, an Atom document or 304, JSON errors. */
function feedOperation(route: RouteOptions) {
  const schema = (route.schema ?? {}) as SchemaParts;
  const { errors = [] } = (route.config ?? {}) as { errors?: ErrorCode[] };
  return {
    operationId: schema.operationId,
    summary: schema.summary,
    description: schema.description,
    tags: ['feeds'],
    servers: [{ url: '/' }],
    security: [],
    parameters: [
      ...parameters(schema.params, 'path'),
      {
        name: 'If-None-Match',
        in: 'header',
        required: false,
        description: 'the ETag of a feed read before: 304 while its entries are the same',
        schema: { type: 'string' },
      },
    ],
    responses: {
      '200': {
        description: 'the feed (RFC 4287), newest change first; Cache-Control: private, no-cache',
        headers: { ETag: { description: 'strong validator of the entries', schema: { type: 'string' } } },
        content: { 'application/atom+xml': { schema: { type: 'string' } } },
      },
      '304': { description: 'not modified: the If-None-Match ETag still names the entries' },
      ...errorResponses(errors),
    },
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
          parameters: WEBHOOK_HEADERS.map((h) => ({
            name: h.name,
            in: 'header',
            required: true,
            description: h.description,
            schema: { type: 'string' },
          })),
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
    // The token-protected API and the operator API are described; openapi.json itself is not an operation of either.
    const operator = route.url.startsWith(ADMIN_PREFIX);
    const feed = route.url.startsWith(FEEDS_PREFIX);
    if (!operator && !feed && !(route.config as { scope?: string } | undefined)?.scope) continue;
    const methods = (Array.isArray(route.method) ? route.method : [route.method]).filter((m) => m !== 'HEAD');
    const path = (operator || feed ? route.url : route.url.slice(API_PREFIX.length)).replace(/:([A-Za-z_]+)/g, '{$1}') || '/';
    for (const method of methods) {
      paths[path] ??= {};
      paths[path][method.toLowerCase()] = feed ? feedOperation(route) : operation(route, operator);
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
        'Web-page change monitoring. Every endpoint needs `Authorization: Bearer <token>` with the scope shown, on the Pro plan; ' +
        'the operator API (tag operator, under /admin/v1) needs the operator token instead, and the Atom feeds (tag feeds, ' +
        'under /feeds/{token}) need only the feed token in their URL. ' +
        'Unknown body fields (400 unknown_field) and query parameters (400 unknown_parameter) are rejected. ' +
        "Every response carries X-Request-Id; every response to a valid token (errors and the closed API's 503 included) carries the " +
        'X-RateLimit-* and X-Read-Bytes-Day-* headers, which answers identifying no account (401) lack.',
    },
    servers: [{ url: API_PREFIX }],
    paths: sortedPaths,
    webhooks: webhooks(),
    components: {
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', description: 'API token (pwk_…) created by the account owner' },
        operatorAuth: {
          type: 'http',
          scheme: 'bearer',
          description: "the server's PAGEWATCH_ADMIN_TOKEN; the operator API (tag operator) exists only when it is set",
        },
      },
      schemas: { Error: error },
    },
  };
}
