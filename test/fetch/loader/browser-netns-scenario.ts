// The private-address scenario of browser-netns.test.ts. It listens on and
// aims pages at 10.0.0.1 and 169.254.169.254, so it runs only inside a network
// namespace with nothing but loopback (those addresses are added to lo there);
// it refuses to start anywhere else. Prints one JSON line for the test.
import { readFileSync } from 'node:fs';
import { connect, createServer, type Server } from 'node:net';
import { createBrowserLoader } from '../../../src/fetch/loader/browser-loader.ts';
import type { LoadResult } from '../../../src/fetch/loader/types.ts';
import { startFixtureServer } from '../../helpers/fixture-server.ts';

const interfaces = readFileSync('/proc/self/net/dev', 'utf8')
  .split('\n')
  .slice(2)
  .map((line) => line.split(':')[0]!.trim())
  .filter(Boolean);
if (interfaces.join(',') !== 'lo') {
  console.error(`refusing to run outside a loopback-only network namespace (interfaces: ${interfaces.join(', ')})`);
  process.exit(2);
}

const TARGETS = [
  ['10.0.0.1', 80],
  ['10.0.0.1', 443],
  ['169.254.169.254', 80],
  ['169.254.169.254', 443],
] as const;

let connections = 0;
const listeners: Server[] = [];
for (const [host, port] of TARGETS) {
  const server = createServer((socket) => {
    connections += 1;
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(port, host, resolve));
  listeners.push(server);
}

// Control: the listeners are reachable here, so a refusal below is the
// guard's doing and not an unreachable network.
const controlReached = await new Promise<boolean>((resolve) => {
  const socket = connect(80, '10.0.0.1', () => resolve(true));
  socket.on('error', () => resolve(false));
  socket.on('close', () => resolve(false));
});
await new Promise((resolve) => setTimeout(resolve, 100));
const controlConnections = connections;
connections = 0;

const site = await startFixtureServer({
  '/redirect-metadata': (_req, res) => void res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end(),
  '/redirect-private-https': (_req, res) => void res.writeHead(302, { location: 'https://10.0.0.1/' }).end(),
});
const loader = createBrowserLoader({
  policy: { allowPorts: [80, 443], trustedCidrs: ['127.0.0.0/8'] },
  settleMs: 1500,
  timeoutMs: 20_000,
});

const summary = (result: LoadResult) => ({
  codes: result.issues.map((issue) => issue.code),
  status: result.status,
  html: result.html,
});
const results: Record<string, ReturnType<typeof summary>> = {};
try {
  results.redirectMetadata = summary(await loader.load({ url: `${site.url}/redirect-metadata`, mode: 'browser' }));
  results.redirectPrivateHttps = summary(await loader.load({ url: `${site.url}/redirect-private-https`, mode: 'browser' }));
  results.subresources = summary(await loader.load({ url: `${site.url}/js/private-subresources.html`, mode: 'browser' }));
  results.navigation = summary(await loader.load({ url: `${site.url}/js/navigate-private.html`, mode: 'browser' }));
  results.direct = summary(await loader.load({ url: 'http://169.254.169.254/latest/meta-data/', mode: 'browser' }));
} finally {
  await loader.close();
  await site.close();
  await Promise.all(listeners.map((server) => new Promise((resolve) => server.close(resolve))));
}

console.log(JSON.stringify({ controlReached, controlConnections, connections, results }));
