import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { connect, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { GuardError, resolveAndVet, vetUrl, type GuardPolicy } from '../ssrf/guard.ts';
import { ProxySessions, type ProxySession } from './proxy-sessions.ts';
import { openTunnel } from '../proxy/proxy-tunnel.ts';
import type { OutboundProxy } from '../../domain/network/outbound-proxies.ts';

// The only way Chromium reaches the network (DESIGN §5). Every plain-HTTP
// request and every CONNECT tunnel is vetted by the SSRF guard at connect time
// and connected to the vetted address, so DNS is resolved once, here, and a
// page can never name its way to a private address. Tunnels are not
// intercepted (no MITM): the proxy only decides where they may go.

export type { ProxySession, ProxyEvent } from './proxy-sessions.ts';

export interface FilteringProxyOptions {
  policy: GuardPolicy;
  /** address to listen on; default 127.0.0.1 (a remote browser needs one it can reach) */
  host?: string;
  /** upstream TCP connect timeout; default 10000 ms */
  connectTimeoutMs?: number;
  /** idle timeout of any client or upstream socket; default 60000 ms */
  idleTimeoutMs?: number;
}

export interface FilteringProxy {
  /** the port it listens on (ephemeral) */
  readonly port: number;
  readonly host: string;
  /**
   * Credentials for one page load. Requests are accepted only with a live
   * session's credentials, which also tells which load a refusal belongs to.
   */
  openSession(upstream?: OutboundProxy): ProxySession;
  /** stops listening and destroys every open connection */
  close(): Promise<void>;
}

// Headers that describe one hop, never forwarded (RFC 9110 §7.6.1).
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authorization',
  'proxy-authenticate',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

// The first byte of a TLS record carrying a handshake. Chromium tunnels https
// and wss (TLS) but also plain ws:// through CONNECT; only TLS may pass, so a
// plain WebSocket is refused here even if the page-level block were bypassed.
const TLS_HANDSHAKE = 0x16;

export async function startFilteringProxy(options: FilteringProxyOptions): Promise<FilteringProxy> {
  const { policy } = options;
  const host = options.host ?? '127.0.0.1';
  const connectTimeoutMs = options.connectTimeoutMs ?? 10_000;
  const idleTimeoutMs = options.idleTimeoutMs ?? 60_000;
  const sessions = new ProxySessions();
  const sockets = new Set<Duplex>();
  const track = (socket: Duplex): void => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  };

  // The vetted address, or the refusal already recorded and answered: 403 when
  // the guard refused, 502 when the name did not resolve.
  async function vet(session: ProxySession, hostname: string, port: number) {
    try {
      return { ok: true as const, ...(await resolveAndVet(hostname, port, policy)) };
    } catch (err) {
      const refused = err instanceof GuardError;
      const reason = refused ? err.reason : `could not resolve ${hostname}: ${(err as Error).message}`;
      session.record({ kind: refused ? 'blocked' : 'unreachable', host: hostname, port, reason });
      return { ok: false as const, status: refused ? 403 : 502 };
    }
  }

  async function forward(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const session = sessions.authenticate(req.headers['proxy-authorization']);
    if (!session) return void res.writeHead(407, { 'proxy-authenticate': 'Basic realm="pagewatch"' }).end();
    const target = req.url ?? '';
    // Chromium sends https through CONNECT; anything else in absolute form is refused.
    const checked = vetUrl(target, policy);
    if (!checked.ok || checked.url.protocol !== 'http:') {
      const parsed = URL.canParse(target) ? new URL(target) : null;
      const reason = checked.ok ? 'only http is proxied without a tunnel' : checked.reason;
      session.record({ kind: 'blocked', host: parsed ? bare(parsed.hostname) : target, port: Number(parsed?.port || 80), reason });
      return void res.writeHead(403, { 'content-type': 'text/plain' }).end('refused by pagewatch');
    }
    const url = checked.url;
    const port = Number(url.port || 80);
    const vetted = await vet(session, bare(url.hostname), port);
    if (!vetted.ok) return void res.writeHead(vetted.status, { 'content-type': 'text/plain' }).end('refused by pagewatch');
    const upstream = httpRequest({
      host: vetted.address,
      family: vetted.family,
      port,
      method: req.method,
      path: url.pathname + url.search,
      // RFC 9112 §3.2.2: the target's authority replaces whatever Host was sent.
      headers: ['Host', url.host, ...forwardable(req.rawHeaders, 'host')],
      setHost: false,
      agent: false,
      timeout: connectTimeoutMs,
      // Through the session's operator proxy, to the vetted address, when it has one (no agent: node:http only asks createConnection then).
      ...(session.upstream
        ? { agent: undefined, createConnection: tunnelTo(session.upstream, vetted.address, port, connectTimeoutMs) }
        : {}),
    });
    upstream.on('socket', (socket) => track(socket));
    upstream.on('timeout', () => upstream.destroy(new Error('upstream timed out')));
    upstream.on('error', (err) => {
      if (res.headersSent) return void res.destroy();
      session.record({ kind: 'unreachable', host: bare(url.hostname), port, reason: err.message });
      res.writeHead(502, { 'content-type': 'text/plain' }).end('upstream unreachable');
    });
    upstream.on('response', (answer) => {
      upstream.setTimeout(idleTimeoutMs);
      res.writeHead(answer.statusCode ?? 502, forwardable(answer.rawHeaders));
      answer.pipe(res);
      answer.on('error', () => res.destroy());
    });
    // A client that leaves before the whole answer came (a page closed mid-load) takes the upstream request with it:
    // otherwise the site's connection stayed open until a timeout.
    res.once('close', () => {
      if (!res.writableFinished) upstream.destroy();
    });
    req.pipe(upstream);
  }

  async function tunnel(req: IncomingMessage, client: Duplex, head: Buffer): Promise<void> {
    client.on('error', () => client.destroy());
    const session = sessions.authenticate(req.headers['proxy-authorization']);
    if (!session) {
      return void client.end(
        'HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="pagewatch"\r\nContent-Length: 0\r\n\r\n',
      );
    }
    const authority = parseAuthority(req.url ?? '');
    if (!authority) return void client.end('HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n');
    const vetted = await vet(session, authority.host, authority.port);
    if (!vetted.ok) return void client.end(`HTTP/1.1 ${vetted.status} Refused\r\nContent-Length: 0\r\n\r\n`);
    let upstream: Socket;
    try {
      upstream = await connectUpstream(session, vetted, authority.port);
    } catch (err) {
      session.record({ kind: 'unreachable', host: authority.host, port: authority.port, reason: (err as Error).message });
      return void client.end('HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n');
    }
    upstream.on('error', () => client.destroy());
    client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    const start = (first: Buffer): void => {
      if (first[0] !== TLS_HANDSHAKE) {
        session.record({ kind: 'blocked', host: authority.host, port: authority.port, reason: 'tunnels carry TLS only' });
        upstream.destroy();
        return void client.destroy();
      }
      upstream.write(first);
      client.pipe(upstream);
      upstream.pipe(client);
    };
    if (head.length > 0) start(head);
    else client.once('data', (chunk: Buffer) => (client.pause(), start(chunk)));
    client.once('close', () => upstream.destroy());
    upstream.once('close', () => client.destroy());
  }

  /** A connected socket to the vetted address: direct, or through the session's operator proxy. */
  async function connectUpstream(session: ProxySession, vetted: { address: string; family: 4 | 6 }, port: number): Promise<Socket> {
    const socket = session.upstream
      ? await openTunnel(session.upstream, { address: vetted.address, port }, { timeoutMs: connectTimeoutMs })
      : await new Promise<Socket>((resolve, reject) => {
          const direct = connect({ host: vetted.address, family: vetted.family, port });
          direct.setTimeout(connectTimeoutMs, () => direct.destroy(new Error('upstream timed out')));
          direct.once('error', reject);
          direct.once('connect', () => (direct.off('error', reject), resolve(direct)));
        });
    track(socket);
    socket.setTimeout(idleTimeoutMs, () => socket.destroy());
    return socket;
  }

  const server = createServer((req, res) => {
    forward(req, res).catch(() => res.destroy());
  });
  server.on('connect', (req: IncomingMessage, client: Duplex, head: Buffer) => {
    track(client);
    // node:http hands over the client's net.Socket, typed as a plain Duplex
    (client as Socket).setTimeout(idleTimeoutMs, () => client.destroy());
    tunnel(req, client, head).catch(() => client.destroy());
  });
  // A plain-HTTP WebSocket handshake (or any other upgrade) is never proxied.
  server.on('upgrade', (req: IncomingMessage, client: Duplex) => {
    const session = sessions.authenticate(req.headers['proxy-authorization']);
    const parsed = URL.canParse(req.url ?? '') ? new URL(req.url ?? '') : null;
    session?.record({
      kind: 'blocked',
      host: bare(parsed?.hostname ?? ''),
      port: Number(parsed?.port || 80),
      reason: 'upgrades are refused',
    });
    client.end('HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n');
  });
  server.on('clientError', (_err, socket) => socket.destroy());
  server.timeout = idleTimeoutMs;

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;

  return {
    port,
    host,
    openSession: (upstream) => sessions.open(upstream),
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** An http.request createConnection that opens the socket through an operator proxy. */
function tunnelTo(proxy: OutboundProxy, address: string, port: number, timeoutMs: number) {
  return (_options: unknown, done: (err: Error | null, socket: Duplex) => void): undefined => {
    openTunnel(proxy, { address, port }, { timeoutMs }).then(
      (socket) => done(null, socket),
      // node:http reads no socket when it is given an error
      (err: Error) => done(err, undefined as unknown as Duplex),
    );
    return undefined;
  };
}

/** host:port of a CONNECT request, IPv6 literals in brackets */
export function parseAuthority(value: string): { host: string; port: number } | null {
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|([^\s:/?#@[\]]+)):(\d{1,5})$/.exec(value);
  if (!match) return null;
  const port = Number(match[3]);
  if (port < 1 || port > 65535) return null;
  return { host: (match[1] ?? match[2]!).toLowerCase(), port };
}

/** URL.hostname keeps the brackets of an IPv6 literal; the guard wants the bare address */
function bare(hostname: string): string {
  return hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
}

/** rawHeaders without hop-by-hop fields (and `also`), keeping repeated fields such as Set-Cookie */
function forwardable(raw: string[], also?: string): string[] {
  const kept: string[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const [field, value] = [raw[i]!, raw[i + 1]!];
    const name = field.toLowerCase();
    if (!HOP_BY_HOP.has(name) && name !== also) kept.push(field, value);
  }
  return kept;
}
