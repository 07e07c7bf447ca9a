import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

// Local stand-ins for the chat and push services on 127.0.0.1, one server for
// all of them (PAGEWATCH_CHANNEL_HOST_OVERRIDES maps every service host to it).
// Each request is recorded and answered as its service answers, by path:
// Slack "ok" (200), Discord 204, ntfy the message as JSON, a Teams workflow 202,
// Telegram {"ok":true,…}. A test can script refusals in the service's own form.

export interface ServiceRequest {
  service:
    'slack' | 'discord' | 'ntfy' | 'teams' | 'telegram' | 'gotify' | 'pushover' | 'googlechat' | 'matrix' | 'matrix-directory' | 'unknown';
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: unknown;
}

export interface ServiceAnswer {
  status: number;
  headers?: Record<string, string>;
  body?: string;
}

export interface ServiceReceivers {
  origin: string;
  /** the env setting that sends every service's host here */
  overrides: string;
  received: ServiceRequest[];
  answer(...answers: ServiceAnswer[]): void;
  reset(): void;
  close(): Promise<void>;
}

const SERVICE_HOSTS = [
  'hooks.slack.com',
  'discord.com',
  'ntfy.sh',
  'prod-01.westus.logic.azure.com',
  'api.telegram.org',
  'gotify.example.org',
  'api.pushover.net',
  'chat.googleapis.com',
  'matrix.example.org',
];

/** The room aliases the Matrix stand-in's directory knows, and the room ids they name. */
export const MATRIX_ROOM_ALIASES: Record<string, string> = { '#shop:example.org': '!shopRoom:example.org' };

function serviceOf(path: string): ServiceRequest['service'] {
  if (/^\/services\/[A-Z0-9]+\/[A-Z0-9]+\/[A-Za-z0-9]+$/.test(path)) return 'slack';
  if (/^\/api\/webhooks\/\d+\/[A-Za-z0-9_-]+$/.test(path)) return 'discord';
  if (path === '/') return 'ntfy';
  if (/^\/workflows\/[A-Za-z0-9]+\/triggers\/manual\/paths\/invoke$/.test(path)) return 'teams';
  if (/^\/bot\d+:[A-Za-z0-9_-]+\/sendMessage$/.test(path)) return 'telegram';
  if (path === '/message') return 'gotify';
  if (path === '/1/messages.json') return 'pushover';
  if (/^\/v1\/spaces\/[A-Za-z0-9_-]+\/messages$/.test(path)) return 'googlechat';
  if (/^\/_matrix\/client\/v3\/rooms\/[^/]+\/send\/m\.room\.message\/[^/]+$/.test(path)) return 'matrix';
  if (/^\/_matrix\/client\/v3\/directory\/room\/[^/]+$/.test(path)) return 'matrix-directory';
  return 'unknown';
}

// GET /_matrix/client/v3/directory/room/{roomAlias}: 200 {room_id, servers}, or 404 M_NOT_FOUND.
function matrixDirectory(method: string, path: string): ServiceAnswer {
  const json = { 'content-type': 'application/json' };
  if (method !== 'GET') return { status: 405, headers: json, body: '{"errcode":"M_UNRECOGNIZED","error":"Unrecognized request"}' };
  const alias = decodeURIComponent(path.split('/').pop()!);
  const roomId = MATRIX_ROOM_ALIASES[alias];
  if (roomId === undefined) {
    return { status: 404, headers: json, body: JSON.stringify({ errcode: 'M_NOT_FOUND', error: `Room alias ${alias} not found.` }) };
  }
  return { status: 200, headers: json, body: JSON.stringify({ room_id: roomId, servers: [alias.split(':')[1]] }) };
}

function success(service: ServiceRequest['service'], body: unknown, method: string, path: string): ServiceAnswer {
  switch (service) {
    case 'slack':
      return { status: 200, headers: { 'content-type': 'text/html' }, body: 'ok' };
    case 'discord':
      return { status: 204 };
    case 'ntfy':
      return {
        status: 200,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ id: 'msg1', event: 'message', ...(body as object) }),
      };
    case 'teams':
      return { status: 202 };
    case 'telegram':
      return {
        status: 200,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ ok: true, result: { message_id: 1 } }),
      };
    case 'gotify':
      return {
        status: 200,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ id: 1, appid: 1, ...(body as object) }),
      };
    case 'pushover':
      return { status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ status: 1, request: 'req-1' }) };
    case 'googlechat':
      return {
        status: 200,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'spaces/AAA/messages/1', ...(body as object) }),
      };
    case 'matrix':
      return { status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ event_id: '$event1' }) };
    case 'matrix-directory':
      return matrixDirectory(method, path);
    default:
      return { status: 404, body: 'no such service path' };
  }
}

export async function startServiceReceivers(): Promise<ServiceReceivers> {
  const received: ServiceRequest[] = [];
  let script: ServiceAnswer[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://receiver');
      const service = serviceOf(url.pathname);
      let body: unknown = null;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        body = Buffer.concat(chunks).toString('utf8');
      }
      received.push({ service, method: req.method ?? '', path: url.pathname, query: url.searchParams, headers: req.headers, body });
      const answer = script.shift() ?? success(service, body, req.method ?? '', url.pathname);
      res.writeHead(answer.status, answer.headers ?? {});
      res.end(answer.body ?? '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    overrides: SERVICE_HOSTS.map((host) => `${host}=${origin}`).join(','),
    received,
    answer: (...answers) => script.push(...answers),
    reset() {
      received.length = 0;
      script = [];
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
