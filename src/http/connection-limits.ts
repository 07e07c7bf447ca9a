import type { Server } from 'node:http';
import type { Config } from '../config.ts';

// Deadlines on what a client sends, and a cap on the connections one address
// holds, so slow or numerous connections cannot hold the server's sockets
// (a slowloris kept 180 connections open for over a minute before).

/** A whole request must arrive within this; a preview's answer may take up to 60 s more, which no deadline here cuts. */
export function serverTimeouts(config: Config) {
  const requestTimeout = config.requestTimeoutSeconds * 1000;
  return {
    requestTimeout,
    // An idle keep-alive connection is closed after this.
    keepAliveTimeout: 5_000,
    // No byte in either direction for this long: the socket is closed (longer than the 60 s a preview may take).
    connectionTimeout: 90_000,
    http: {
      headersTimeout: Math.min(10_000, requestTimeout),
      // How often Node enforces the two deadlines above.
      connectionsCheckingInterval: Math.min(1_000, requestTimeout),
    },
  };
}

/** Closes a new connection at once when its address already holds `max` (0: no cap). */
export function capConnectionsPerAddress(server: Server, max: number): void {
  if (max === 0) return;
  const open = new Map<string, number>();
  server.on('connection', (socket) => {
    const address = socket.remoteAddress ?? '';
    const count = (open.get(address) ?? 0) + 1;
    if (count > max) {
      socket.destroy();
      return;
    }
    open.set(address, count);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left === 0) open.delete(address);
      else open.set(address, left);
    });
  });
}
