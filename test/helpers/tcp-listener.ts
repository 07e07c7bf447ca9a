import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';

// A TCP listener that only counts connections, to prove that a refused load
// or request never reached the address it was refused for.

export interface CountingListener {
  port: number;
  /** connections accepted so far */
  connections(): number;
  close(): Promise<void>;
}

/** Listens on host:port (port 0 picks a free one); on '::' it also takes IPv4. */
export async function listenCounting(host: string, port = 0): Promise<CountingListener> {
  let count = 0;
  const server: Server = createServer((socket) => {
    count++;
    socket.destroy();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host, port, ipv6Only: false }, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    connections: () => count,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
