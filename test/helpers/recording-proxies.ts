import { createServer as createHttpServer, type IncomingMessage } from 'node:http';
import { connect, createServer as createTcpServer, isIP, type AddressInfo, type Server, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';

// Two small outbound proxies for tests, listening on 127.0.0.1: an HTTP
// CONNECT proxy and a SOCKS5 proxy, each with optional username/password,
// recording every tunnel they were asked for (and refused). They carry
// traffic to loopback only, so nothing a test sends through them leaves the machine.

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

function onlyLoopback(host: string): boolean {
  return host === '127.0.0.1' || host === '::1' || host.startsWith('127.');
}

function splice(client: Duplex, upstream: Socket, record: CarriedTunnel): void {
  client.on('data', (chunk: Buffer) => (record.bytesUp += chunk.length));
  upstream.on('data', (chunk: Buffer) => (record.bytesDown += chunk.length));
  client.pipe(upstream);
  upstream.pipe(client);
  client.on('error', () => upstream.destroy());
  upstream.on('error', () => client.destroy());
  client.on('close', () => upstream.destroy());
  upstream.on('close', () => client.destroy());
}

async function listen(server: Server, sockets: Set<Duplex>): Promise<{ port: number; close: () => Promise<void> }> {
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

/** An HTTP proxy answering CONNECT host:port (407 without the right Basic credentials, when it has some). */
export async function startHttpConnectProxy(credentials: Credentials = null): Promise<RecordingProxy> {
  const carried: CarriedTunnel[] = [];
  const sockets = new Set<Duplex>();
  const server = createHttpServer((_req, res) => res.writeHead(405).end());
  server.on('connect', (req: IncomingMessage, client: Duplex, head: Buffer) => {
    sockets.add(client);
    const auth = /^Basic (.+)$/.exec(req.headers['proxy-authorization'] ?? '')?.[1];
    const decoded = auth ? Buffer.from(auth, 'base64').toString() : null;
    const user = decoded === null ? null : decoded.slice(0, decoded.indexOf(':'));
    const password = decoded === null ? null : decoded.slice(decoded.indexOf(':') + 1);
    const record: CarriedTunnel = { target: req.url ?? '', user, opened: false, bytesUp: 0, bytesDown: 0 };
    carried.push(record);
    if (credentials && (user !== credentials.user || password !== credentials.password)) {
      return void client.end('HTTP/1.1 407 Proxy Authentication Required\r\nContent-Length: 0\r\n\r\n');
    }
    const match = /^\[?([^\]]+?)\]?:(\d+)$/.exec(req.url ?? '');
    if (!match || !onlyLoopback(match[1]!)) return void client.end('HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n');
    const upstream = connect({ host: match[1]!, port: Number(match[2]) }, () => {
      record.opened = true;
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      splice(client, upstream, record);
    });
    sockets.add(upstream);
    upstream.on('error', () => client.end('HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n'));
  });
  const { port, close } = await listen(server, sockets);
  const auth = credentials ? `${encodeURIComponent(credentials.user)}:${encodeURIComponent(credentials.password)}@` : '';
  return { url: `http://${auth}127.0.0.1:${port}`, port, carried, close };
}

/** Reads exactly `n` bytes from a socket in paused mode. */
function read(socket: Socket, n: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const attempt = () => {
      const chunk = socket.read(n) as Buffer | null;
      if (chunk !== null) {
        socket.off('readable', attempt);
        socket.off('end', ended);
        resolve(chunk);
      }
    };
    const ended = () => reject(new Error('closed'));
    socket.on('readable', attempt);
    socket.once('end', ended);
    attempt();
  });
}

/** A SOCKS5 proxy (RFC 1928, with RFC 1929 username/password when it has credentials) that connects to loopback targets only. */
export async function startSocks5Proxy(credentials: Credentials = null): Promise<RecordingProxy> {
  const carried: CarriedTunnel[] = [];
  const sockets = new Set<Duplex>();
  const server = createTcpServer((client) => {
    sockets.add(client);
    client.on('error', () => client.destroy());
    serve(client).catch(() => client.destroy());
  });
  async function serve(client: Socket): Promise<void> {
    const [version, methodCount] = await read(client, 2);
    if (version !== 5) return void client.destroy();
    const methods = await read(client, methodCount!);
    const wanted = credentials ? 2 : 0;
    if (!methods.includes(wanted)) return void client.end(Buffer.from([5, 0xff]));
    client.write(Buffer.from([5, wanted]));
    let user: string | null = null;
    if (credentials) {
      const [, userLength] = await read(client, 2);
      user = (await read(client, userLength!)).toString();
      const [passwordLength] = await read(client, 1);
      const password = (await read(client, passwordLength!)).toString();
      if (user !== credentials.user || password !== credentials.password) {
        carried.push({ target: '', user, opened: false, bytesUp: 0, bytesDown: 0 });
        return void client.end(Buffer.from([1, 1]));
      }
      client.write(Buffer.from([1, 0]));
    }
    const [, command, , type] = await read(client, 4);
    let host: string;
    if (type === 1) host = [...(await read(client, 4))].join('.');
    else if (type === 4) host = ((await read(client, 16)).toString('hex').match(/.{4}/g) ?? []).join(':');
    else host = (await read(client, (await read(client, 1))[0]!)).toString();
    const port = (await read(client, 2)).readUInt16BE(0);
    const record: CarriedTunnel = { target: `${host}:${port}`, user, opened: false, bytesUp: 0, bytesDown: 0 };
    carried.push(record);
    const reply = (code: number) => Buffer.from([5, code, 0, 1, 0, 0, 0, 0, 0, 0]);
    if (command !== 1 || !isIP(host) || !onlyLoopback(host)) return void client.end(reply(2));
    const upstream = connect({ host, port }, () => {
      record.opened = true;
      client.write(reply(0));
      splice(client, upstream, record);
    });
    sockets.add(upstream);
    upstream.on('error', () => client.end(reply(5)));
  }
  const { port, close } = await listen(server, sockets);
  const auth = credentials ? `${encodeURIComponent(credentials.user)}:${encodeURIComponent(credentials.password)}@` : '';
  return { url: `socks5://${auth}127.0.0.1:${port}`, port, carried, close };
}
