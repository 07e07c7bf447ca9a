import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { connect, createServer as createTcpServer, type Server as TcpServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { parseAuthority, startFilteringProxy, type FilteringProxy, type ProxySession } from '../../../src/fetch/browser/filtering-proxy.ts';
import { startFixtureServer, type FixtureServer } from '../../helpers/fixture-server.ts';
import { within } from '../../helpers/deadline.ts';
import { signal } from '../../helpers/signal.ts';

// The proxy on its own, driven by hand-made proxy requests. Only loopback:
// 127.0.0.1 is trusted, 127.0.0.2 stands in for a forbidden address.
const policy = { allowPorts: [80, 443], trustedCidrs: ['127.0.0.1/32'] };

function basic(session: ProxySession): string {
  return `Basic ${Buffer.from(`${session.username}:${session.password}`).toString('base64')}`;
}

/** a plain-http proxy request (absolute-form target) */
function viaProxy(
  proxy: FilteringProxy,
  target: string,
  auth?: string,
): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: proxy.port, path: target, headers: auth ? { 'proxy-authorization': auth } : {} });
    req.on('response', (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** a CONNECT tunnel: the proxy's status line, then (when 200) what comes back after sending `payload` */
function tunnel(proxy: FilteringProxy, authority: string, auth: string, payload: Buffer): Promise<{ status: string; reply: Buffer }> {
  return new Promise((resolve, reject) => {
    const socket = connect(proxy.port, '127.0.0.1');
    let received = Buffer.alloc(0);
    let status = '';
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      if (!status) {
        const end = received.indexOf('\r\n\r\n');
        if (end < 0) return;
        status = received.subarray(0, received.indexOf('\r\n')).toString();
        received = received.subarray(end + 4);
        if (status.includes(' 200 ')) socket.write(payload);
      }
    });
    socket.on('close', () => resolve({ status, reply: received }));
    socket.on('error', reject);
    socket.write(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\nProxy-Authorization: ${auth}\r\n\r\n`);
    setTimeout(() => socket.end(), 500);
  });
}

describe('filtering proxy', () => {
  let proxy: FilteringProxy;
  let site: FixtureServer;
  let echo: TcpServer;
  let echoPort = 0;
  let forbiddenConnections = 0;
  let forbidden: TcpServer;
  let forbiddenPort = 0;

  before(async () => {
    proxy = await startFilteringProxy({ policy });
    site = await startFixtureServer({
      '/echo-headers': (req, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(req.headers)),
    });
    echo = createTcpServer((socket) => socket.pipe(socket));
    await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
    echoPort = (echo.address() as AddressInfo).port;
    forbidden = createTcpServer((socket) => {
      forbiddenConnections += 1;
      socket.destroy();
    });
    await new Promise<void>((resolve) => forbidden.listen(0, '127.0.0.2', resolve));
    forbiddenPort = (forbidden.address() as AddressInfo).port;
  });

  after(async () => {
    await proxy?.close();
    await site?.close();
    await new Promise<void>((resolve) => echo?.close(() => resolve()));
    await new Promise<void>((resolve) => forbidden?.close(() => resolve()));
  });

  it('parses CONNECT authorities', () => {
    assert.deepEqual(parseAuthority('example.com:443'), { host: 'example.com', port: 443 });
    assert.deepEqual(parseAuthority('[::1]:8443'), { host: '::1', port: 8443 });
    for (const bad of ['example.com', 'a:0', 'a:70000', 'user@a:443', '[::1]', '']) assert.equal(parseAuthority(bad), null, bad);
  });

  it('asks for credentials and serves only live sessions', async () => {
    assert.equal((await viaProxy(proxy, `${site.url}/js/style.css`)).status, 407);
    const session = proxy.openSession();
    assert.equal(
      (await viaProxy(proxy, `${site.url}/js/style.css`, `Basic ${Buffer.from(`${session.username}:wrong`).toString('base64')}`)).status,
      407,
    );
    session.close();
    assert.equal((await viaProxy(proxy, `${site.url}/js/style.css`, basic(session))).status, 407);
    assert.equal(site.hits.get('/js/style.css'), undefined);
  });

  it('forwards plain http to a vetted address without proxy headers', async () => {
    const session = proxy.openSession();
    const answer = await viaProxy(proxy, `${site.url}/echo-headers`, basic(session));
    assert.equal(answer.status, 200);
    const headers = JSON.parse(answer.body) as Record<string, string>;
    assert.equal(headers.host, `127.0.0.1:${site.port}`);
    assert.equal(headers['proxy-authorization'], undefined);
    assert.deepEqual(session.events, []);
    session.close();
  });

  it('refuses and records forbidden destinations, http and CONNECT alike', async () => {
    const session = proxy.openSession();
    const plain = await viaProxy(proxy, `http://127.0.0.2:${forbiddenPort}/`, basic(session));
    assert.equal(plain.status, 403);
    const tunnelled = await tunnel(proxy, `127.0.0.2:${forbiddenPort}`, basic(session), Buffer.from([0x16, 3, 1]));
    assert.match(tunnelled.status, / 403 /);
    const metadata = await viaProxy(proxy, 'http://169.254.169.254/latest/meta-data/', basic(session));
    assert.equal(metadata.status, 403);
    const scheme = await viaProxy(proxy, 'ftp://127.0.0.1/file', basic(session));
    assert.equal(scheme.status, 403);
    assert.deepEqual(
      session.events.map((e) => [e.kind, e.host, e.port]),
      [
        ['blocked', '127.0.0.2', forbiddenPort],
        ['blocked', '127.0.0.2', forbiddenPort],
        ['blocked', '169.254.169.254', 80],
        ['blocked', '127.0.0.1', 80],
      ],
    );
    assert.equal(forbiddenConnections, 0);
    session.close();
  });

  it('tunnels TLS but refuses a tunnel that starts with anything else', async () => {
    const session = proxy.openSession();
    const hello = Buffer.from([0x16, 0x03, 0x01, 0x00, 0x05, 1, 2, 3, 4, 5]);
    const tls = await tunnel(proxy, `127.0.0.1:${echoPort}`, basic(session), hello);
    assert.match(tls.status, / 200 /);
    assert.deepEqual(tls.reply, hello);

    const handshake = Buffer.from('GET /socket HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n');
    const plain = await tunnel(proxy, `127.0.0.1:${echoPort}`, basic(session), handshake);
    assert.match(plain.status, / 200 /);
    assert.equal(plain.reply.length, 0);
    assert.equal(session.events.at(-1)?.reason, 'tunnels carry TLS only');
    session.close();
  });

  it('refuses an upgrade request (a plain WebSocket handshake)', async () => {
    const session = proxy.openSession();
    const answer = await new Promise<number>((resolve, reject) => {
      const req = request({
        host: '127.0.0.1',
        port: proxy.port,
        path: `${site.url}/socket`,
        headers: { 'proxy-authorization': basic(session), connection: 'Upgrade', upgrade: 'websocket' },
      });
      req.on('response', (res) => resolve(res.statusCode ?? 0));
      req.on('upgrade', () => reject(new Error('upgraded')));
      req.on('error', reject);
      req.end();
    });
    assert.equal(answer, 403);
    assert.equal(site.hits.get('/socket'), undefined);
    session.close();
  });

  it('drops the request to the site when the client leaves before the answer', async () => {
    // Timeouts far beyond the test's own deadline: only the client's leaving can close the site's request.
    const patient = await startFilteringProxy({ policy, connectTimeoutMs: 600_000, idleTimeoutMs: 600_000 });
    const arrived = signal();
    const dropped = signal();
    site.route('/never-answers', (req) => {
      req.socket.once('close', () => dropped.resolve());
      arrived.resolve();
    });
    const session = patient.openSession();
    try {
      const client = request({
        host: '127.0.0.1',
        port: patient.port,
        path: `${site.url}/never-answers`,
        headers: { 'proxy-authorization': basic(session) },
      });
      client.on('error', () => undefined);
      client.end();
      await arrived.promise;
      client.destroy();
      await within('the request to the site closed after the client left', 30_000, dropped.promise);
      assert.deepEqual(session.events, [], 'a client that left is not an unreachable site');
    } finally {
      session.close();
      await patient.close();
    }
  });

  it('reports an unreachable vetted destination as 502', async () => {
    const session = proxy.openSession();
    const spare = createTcpServer();
    await new Promise<void>((resolve) => spare.listen(0, '127.0.0.1', resolve));
    const port = (spare.address() as AddressInfo).port;
    await new Promise<void>((resolve) => spare.close(() => resolve()));
    assert.equal((await viaProxy(proxy, `http://127.0.0.1:${port}/`, basic(session))).status, 502);
    assert.deepEqual(
      session.events.map((e) => e.kind),
      ['unreachable'],
    );
    session.close();
  });
});
