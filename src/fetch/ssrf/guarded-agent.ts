import { Agent, buildConnector, errors } from 'undici';
import { resolveAndVet, systemLookup, type GuardPolicy, type LookupFn } from './guard.ts';
import type { OutboundProxy } from '../../domain/network/outbound-proxies.ts';
import { openTunnel } from '../proxy/proxy-tunnel.ts';

// An undici Agent whose every new connection goes through the guard: the
// origin's host is resolved once, every answer is judged, and the socket is
// opened to that judged address. Nothing resolves the name again afterwards,
// so there is no window for DNS rebinding. TLS keeps the original name for SNI
// and certificate checks because undici derives servername from the origin's
// host, not from the address we connect to.

export interface GuardedAgentOptions {
  policy: GuardPolicy;
  /** DNS resolution; default the system resolver */
  lookup?: LookupFn;
  /** limit for DNS resolution and, separately, for TCP+TLS connection; default 10000 ms */
  connectTimeoutMs?: number;
  /** limit for the response headers to arrive after the request was sent; default 30000 ms */
  headersTimeoutMs?: number;
  /** limit for a pause between two body chunks; default 30000 ms */
  bodyTimeoutMs?: number;
  /** the operator's proxy every connection goes through, to the address the guard vetted; none: direct */
  proxy?: OutboundProxy;
}

function defaultPort(protocol: string): number {
  return protocol === 'https:' ? 443 : 80;
}

export function createGuardedAgent(options: GuardedAgentOptions): Agent {
  const { policy, lookup = systemLookup, connectTimeoutMs = 10_000 } = options;
  const direct = buildConnector({ timeout: connectTimeoutMs });

  const guardedConnect: buildConnector.connector = (target, callback) => {
    let settled = false;
    const finish: buildConnector.Callback = (...args) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      callback(...args);
    };
    const timer = setTimeout(
      () =>
        finish(
          new errors.ConnectTimeoutError(
            options.proxy ? `reaching ${target.hostname} through the proxy timed out` : `DNS resolution of ${target.hostname} timed out`,
          ),
          null,
        ),
      connectTimeoutMs,
    );
    const port = Number(target.port) || defaultPort(target.protocol);
    const { proxy } = options;
    if (proxy) {
      // The whole connection (guard, proxy, tunnel) keeps to the connect timeout; TLS to the target then runs inside the tunnel.
      resolveAndVet(target.hostname, port, policy, lookup)
        .then(({ address }) => openTunnel(proxy, { address, port }, { timeoutMs: connectTimeoutMs, lookup }))
        .then(
          (socket) => {
            if (settled) return void socket.destroy();
            settled = true;
            clearTimeout(timer);
            if (target.protocol === 'https:') direct({ ...target, httpSocket: socket }, callback);
            else callback(null, socket);
          },
          (err: Error) => finish(err, null),
        );
      return;
    }
    resolveAndVet(target.hostname, port, policy, lookup).then(
      ({ address }) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        direct({ ...target, hostname: address }, callback);
      },
      (err: Error) => finish(err, null),
    );
  };

  return new Agent({
    connect: guardedConnect,
    headersTimeout: options.headersTimeoutMs ?? 30_000,
    bodyTimeout: options.bodyTimeoutMs ?? 30_000,
  });
}
