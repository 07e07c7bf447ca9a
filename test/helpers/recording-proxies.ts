import { createServer as createHttpServer, type IncomingMessage } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createTcpServer, isIP, type AddressInfo, type Server, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import ipaddr from 'ipaddr.js';
import { createProxy } from 'proxy';
import { Socks5Server, defaultConnectionHandler } from '@pondwader/socks5-server';

// The outbound proxies of the tests, from npm (issue #41): `proxy` as an HTTP
// CONNECT proxy (also over TLS, as an https proxy) and
// `@pondwader/socks5-server` as a SOCKS5 proxy, each with optional
// username/password, listening on 127.0.0.1 and recording every tunnel they
// were asked for (and refused). They open tunnels to loopback addresses only,
// so nothing a test sends through them leaves the machine.

export interface CarriedTunnel {
  /** what the client asked to reach, host:port as sent (an address or a name) */
  target: string;
  /** the username it authenticated with, null without credentials */
  user: string | null;
  /** whether the proxy opened the tunnel */
  opened: boolean;
  /** bytes carried from the client and back */
  bytesUp: number;
  bytesDown: number;
}

export interface RecordingProxy {
  url: string;
  port: number;
  carried: CarriedTunnel[];
  close(): Promise<void>;
}

type Credentials = { user: string; password: string } | null;

function loopbackTarget(host: string): boolean {
  return isIP(host) !== 0 && ipaddr.process(host).range() === 'loopback';
}

async function listen(server: Server, sockets: Set<Duplex>): Promise<{ port: number; close: () => Promise<void> }> {
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

function basicUser(req: IncomingMessage): { user: string; password: string } | null {
  const auth = /^Basic (.+)$/.exec(req.headers['proxy-authorization'] ?? '')?.[1];
  if (!auth) return null;
  const decoded = Buffer.from(auth, 'base64').toString();
  const colon = decoded.indexOf(':');
  return { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/**
 * Counts what `proxy` writes to the client once the tunnel is established
 * (its 200 answer marks it opened) and what the client sends after it.
 */
function recordTunnel(client: Duplex, record: CarriedTunnel): void {
  const write = client.write.bind(client) as (chunk: unknown, ...rest: unknown[]) => boolean;
  client.write = ((chunk: unknown, ...rest: unknown[]) => {
    const bytes = typeof chunk === 'string' ? Buffer.byteLength(chunk) : (chunk as Uint8Array).length;
    if (record.opened) record.bytesDown += bytes;
    else if (/^HTTP\/1\.1 200/.test(String(chunk))) {
      record.opened = true;
      // Listened to only now, in the tick `proxy` pipes the client to the target: earlier it would set the client flowing.
      client.on('data', (data: Buffer) => (record.bytesUp += data.length));
    }
    return write(chunk, ...rest);
  }) as Duplex['write'];
}

/**
 * An HTTP proxy (npm `proxy`) answering CONNECT host:port: 407 without the
 * right Basic credentials, when it has some; 403 for a target that is not a
 * loopback address. `tls` makes it an https proxy (TLS to the proxy itself).
 */
export async function startHttpConnectProxy(
  credentials: Credentials = null,
  tls: { cert: Buffer; key: Buffer; host: string } | null = null,
): Promise<RecordingProxy> {
  const carried: CarriedTunnel[] = [];
  const sockets = new Set<Duplex>();
  const server = createProxy(tls ? createHttpsServer({ cert: tls.cert, key: tls.key }) : createHttpServer());
  server.authenticate = (req) => {
    const given = basicUser(req);
    return credentials === null || (given?.user === credentials.user && given.password === credentials.password);
  };
  // `proxy` connects wherever it is asked: only loopback targets reach its own handler.
  const [carry] = server.listeners('connect') as ((req: IncomingMessage, client: Duplex, head: Buffer) => void)[];
  server.removeAllListeners('connect');
  server.on('connect', (req: IncomingMessage, client: Duplex, head: Buffer) => {
    sockets.add(client);
    const record: CarriedTunnel = { target: req.url ?? '', user: basicUser(req)?.user ?? null, opened: false, bytesUp: 0, bytesDown: 0 };
    carried.push(record);
    const host = /^\[?([^\]]+?)\]?:\d+$/.exec(req.url ?? '')?.[1] ?? '';
    if (!loopbackTarget(host)) return void client.end('HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n');
    recordTunnel(client, record);
    carry!.call(server, req, client, head);
  });
  // `proxy` also forwards plain requests for absolute URLs; the product only tunnels.
  server.removeAllListeners('request');
  server.on('request', (_req, res) => res.writeHead(405).end());
  const { port, close } = await listen(server, sockets);
  const auth = credentials ? `${encodeURIComponent(credentials.user)}:${encodeURIComponent(credentials.password)}@` : '';
  const scheme = tls ? 'https' : 'http';
  return { url: `${scheme}://${auth}${tls?.host ?? '127.0.0.1'}:${port}`, port, carried, close };
}

/** A SOCKS5 proxy (npm `@pondwader/socks5-server`; RFC 1929 username/password when it has credentials) that connects to loopback addresses only. */
export async function startSocks5Proxy(credentials: Credentials = null): Promise<RecordingProxy> {
  const carried: CarriedTunnel[] = [];
  const sockets = new Set<Duplex>();
  const socks = new Socks5Server();
  if (credentials) {
    socks.setAuthHandler((conn) => {
      const ok = conn.username === credentials.user && conn.password === credentials.password;
      if (!ok) carried.push({ target: '', user: conn.username, opened: false, bytesUp: 0, bytesDown: 0 });
      return ok;
    });
  }
  socks.setRulesetValidator((conn) => {
    const record: CarriedTunnel = {
      target: `${conn.destAddress}:${conn.destPort}`,
      user: conn.username ?? null,
      opened: false,
      bytesUp: 0,
      bytesDown: 0,
    };
    carried.push(record);
    (conn.metadata as { record?: CarriedTunnel }).record = record;
    return conn.command === 'connect' && loopbackTarget(conn.destAddress);
  });
  socks.setConnectionHandler((conn, sendStatus) => {
    const record = (conn.metadata as { record: CarriedTunnel }).record;
    const upstream = defaultConnectionHandler(conn, sendStatus);
    if (!upstream) return;
    sockets.add(upstream);
    upstream.on('ready', () => (record.opened = true));
    upstream.on('data', (chunk: Buffer) => (record.bytesDown += chunk.length));
    conn.socket.on('data', (chunk: Buffer) => (record.bytesUp += chunk.length));
  });
  const server = createTcpServer((socket) => {
    socket.on('error', () => socket.destroy());
    socks._handleConnection(socket);
  });
  const { port, close } = await listen(server, sockets);
  const auth = credentials ? `${encodeURIComponent(credentials.user)}:${encodeURIComponent(credentials.password)}@` : '';
  return { url: `socks5://${auth}127.0.0.1:${port}`, port, carried, close };
}
