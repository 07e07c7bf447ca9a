import { createConnection, createServer, type AddressInfo, type Socket } from 'node:net';

// A TCP port on loopback that forwards to a PostgreSQL server's socket, so a
// test can take the store away from a running app: cut() stops listening and
// drops every connection, as a store that went down does.

export interface StoreProxy {
  /** the connection string through the proxy */
  url: string;
  cut(): Promise<void>;
}

/** Proxies the server of `databaseUrl` (a Unix-socket URL: `?host=/var/run/postgresql`). */
export async function startStoreProxy(databaseUrl: string): Promise<StoreProxy> {
  const target = new URL(databaseUrl);
  const socketPath = `${target.searchParams.get('host')}/.s.PGSQL.${target.port || 5432}`;
  const open = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = createConnection(socketPath);
    for (const socket of [client, upstream]) {
      open.add(socket);
      socket.on('close', () => open.delete(socket));
      socket.on('error', () => undefined);
    }
    client.pipe(upstream).pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `postgres://${target.username}@127.0.0.1:${port}${target.pathname}`,
    async cut() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of open) socket.destroy();
      await closed;
    },
  };
}
