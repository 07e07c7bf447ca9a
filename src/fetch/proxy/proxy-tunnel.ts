import { connect as netConnect, isIP, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { SocksClient } from 'socks';
import { describeProxy, type OutboundProxy } from '../../domain/network/outbound-proxies.ts';
import { GuardError, guardPolicy, resolveAndVet, systemLookup, type LookupFn } from '../ssrf/guard.ts';

// A TCP stream to an address the SSRF guard already vetted, carried by one of
// the operator's proxies (HTTP CONNECT, over TLS for an https proxy, or
// SOCKS5). The proxy is told the vetted address, never a name, so it cannot
// resolve the target to somewhere else. The proxy's own address is judged
// too: a private or loopback one only when the operator named the proxy private.

/** The proxy could not be reached, refused the tunnel, or is where it may not be. */
export class ProxyError extends Error {
  constructor(
    proxy: OutboundProxy,
    problem: string,
    /** true when the proxy's address is one it may not be on, not a passing failure */
    readonly refused = false,
  ) {
    super(`proxy ${describeProxy(proxy)}: ${problem}`);
    this.name = 'ProxyError';
  }
}

export interface TunnelOptions {
  /** limit for reaching the proxy and opening the tunnel */
  timeoutMs: number;
  /** resolves the proxy's host name; default the system resolver */
  lookup?: LookupFn;
}

// The longest proxy answer to a CONNECT we read before giving up on it.
const MAX_CONNECT_ANSWER = 16 * 1024;

/** The address to reach the proxy on, judged like a target unless the operator named the proxy private. */
export async function proxyAddress(proxy: OutboundProxy, lookup: LookupFn = systemLookup): Promise<{ address: string; family: 4 | 6 }> {
  if (proxy.privateAddress) {
    if (isIP(proxy.host)) return { address: proxy.host, family: isIP(proxy.host) === 6 ? 6 : 4 };
    const [first] = await lookup(proxy.host);
    if (!first) throw new ProxyError(proxy, `no addresses for ${proxy.host}`);
    return { address: first.address, family: first.family === 6 ? 6 : 4 };
  }
  try {
    return await resolveAndVet(proxy.host, proxy.port, guardPolicy({ allowPorts: [proxy.port] }), lookup);
  } catch (err) {
    if (err instanceof GuardError) {
      throw new ProxyError(proxy, `${err.reason}; the operator must name it in PAGEWATCH_PRIVATE_PROXIES to use it there`, true);
    }
    throw new ProxyError(proxy, `could not resolve ${proxy.host}: ${(err as Error).message}`);
  }
}

/**
 * Judges every proxy's address at start: one on a private or loopback address
 * the operator did not name private stops the process. A name that does not
 * resolve now is left to the loads, which report it.
 */
export async function vetProxyAddresses(proxies: OutboundProxy[], lookup: LookupFn = systemLookup): Promise<void> {
  for (const proxy of proxies) {
    try {
      await proxyAddress(proxy, lookup);
    } catch (err) {
      if (err instanceof ProxyError && err.refused) throw err;
    }
  }
}

/** Opens a tunnel through `proxy` to address:port; rejects with a ProxyError. */
export async function openTunnel(proxy: OutboundProxy, target: { address: string; port: number }, options: TunnelOptions): Promise<Socket> {
  const at = await proxyAddress(proxy, options.lookup);
  if (proxy.protocol === 'socks5') return socksTunnel(proxy, at.address, target, options.timeoutMs);
  const socket = await reachProxy(proxy, at, options.timeoutMs);
  return connectTunnel(proxy, socket, target, options.timeoutMs);
}

async function socksTunnel(proxy: OutboundProxy, address: string, target: { address: string; port: number }, timeoutMs: number) {
  try {
    const { socket } = await SocksClient.createConnection({
      proxy: {
        host: address,
        port: proxy.port,
        type: 5,
        ...(proxy.username === null ? {} : { userId: proxy.username, password: proxy.password ?? '' }),
      },
      command: 'connect',
      destination: { host: target.address, port: target.port },
      timeout: timeoutMs,
    });
    // As for CONNECT: heard until the new owner listens.
    socket.on('error', () => undefined);
    return socket;
  } catch (err) {
    throw new ProxyError(proxy, (err as Error).message);
  }
}

function reachProxy(proxy: OutboundProxy, at: { address: string; family: 4 | 6 }, timeoutMs: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket =
      proxy.protocol === 'https'
        ? tlsConnect({ host: at.address, port: proxy.port, servername: isIP(proxy.host) ? undefined : proxy.host })
        : netConnect({ host: at.address, port: proxy.port, family: at.family });
    const timer = setTimeout(() => socket.destroy(new Error(`no connection within ${timeoutMs} ms`)), timeoutMs);
    const onError = (err: Error) => {
      clearTimeout(timer);
      reject(new ProxyError(proxy, `unreachable: ${err.message}`));
    };
    socket.once(proxy.protocol === 'https' ? 'secureConnect' : 'connect', () => {
      clearTimeout(timer);
      socket.off('error', onError);
      resolve(socket);
    });
    socket.once('error', onError);
  });
}

/** Sends CONNECT for the vetted address and waits for a 2xx; any bytes after the answer go back to the socket. */
function connectTunnel(
  proxy: OutboundProxy,
  socket: Socket,
  target: { address: string; port: number },
  timeoutMs: number,
): Promise<Socket> {
  const authority = `${isIP(target.address) === 6 ? `[${target.address}]` : target.address}:${target.port}`;
  const credentials =
    proxy.username === null
      ? ''
      : `Proxy-Authorization: Basic ${Buffer.from(`${proxy.username}:${proxy.password ?? ''}`).toString('base64')}\r\n`;
  return new Promise((resolve, reject) => {
    let answer = Buffer.alloc(0);
    const fail = (problem: string) => {
      cleanup();
      socket.destroy();
      reject(new ProxyError(proxy, problem));
    };
    const timer = setTimeout(() => fail(`no answer to CONNECT within ${timeoutMs} ms`), timeoutMs);
    const onData = (chunk: Buffer) => {
      answer = Buffer.concat([answer, chunk]);
      const end = answer.indexOf('\r\n\r\n');
      if (end < 0) {
        if (answer.length > MAX_CONNECT_ANSWER) fail('its answer to CONNECT is too long');
        return;
      }
      cleanup();
      const statusLine = answer.subarray(0, answer.indexOf('\r\n')).toString('latin1');
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? 0);
      if (status < 200 || status > 299) {
        socket.destroy();
        return reject(
          new ProxyError(proxy, status === 407 ? 'it refused the credentials (407)' : `it answered "${statusLine.slice(0, 100)}"`),
        );
      }
      // HTTP and TLS both wait for the client to speak first, so the target has nothing to send yet and
      // the socket can be handed over as it is; a proxy that sent more than its answer is not to be trusted.
      if (answer.length > end + 4) {
        socket.destroy();
        return reject(new ProxyError(proxy, 'it sent data before the tunnel was used'));
      }
      // Until its new owner (TLS, the HTTP client) listens, an error must not go unheard and end the process.
      socket.on('error', () => undefined);
      resolve(socket);
    };
    const onError = (err: Error) => fail(`the tunnel failed: ${err.message}`);
    const onClose = () => fail('it closed the connection');
    function cleanup() {
      clearTimeout(timer);
      socket.off('data', onData);
      socket.off('error', onError);
      socket.off('close', onClose);
    }
    socket.on('data', onData);
    socket.on('error', onError);
    socket.on('close', onClose);
    socket.write(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n${credentials}\r\n`);
  });
}
