// Runs INSIDE a loopback-only network namespace (see test/helpers/netns.ts),
// started by html-loader-netns.test.ts; prints one JSON report on stdout.
// It gives lo the private and metadata addresses the cases aim at, listens on
// every port they use, runs the real html and browser loaders and guardedPost, and reports
// each outcome and how many connections reached any listener.
import { execFileSync } from 'node:child_process';
import { connect, isIP } from 'node:net';
import { createHtmlLoader } from '../../../src/fetch/loader/html-loader.ts';
import { createBrowserLoader } from '../../../src/fetch/loader/browser-loader.ts';
import { effectivePort, guardPolicy, type LookupFn } from '../../../src/fetch/ssrf/guard.ts';
import { guardedPost } from '../../../src/fetch/ssrf/guarded-request.ts';
import type { LoadResult } from '../../../src/fetch/loader/types.ts';
import { startFixtureServer } from '../../helpers/fixture-server.ts';
import { loaderRoutes } from '../../helpers/loader-routes.ts';
import { readSsrfCorpus } from '../../helpers/ssrf-corpus.ts';
import { listenCounting, type CountingListener } from '../../helpers/tcp-listener.ts';
import { pageText } from '../../../src/domain/page-source.ts';

export interface Outcome {
  group: 'corpus' | 'corpus-browser' | 'redirect' | 'resolved-name' | 'webhook' | 'control';
  url: string;
  code: string | null;
  message: string;
  html?: string | null;
}

export interface NamespaceReport {
  outcomes: Outcome[];
  /** connections that reached a listener while the cases ran */
  leakedConnections: number;
  /** connections a deliberate direct connect made afterwards (proves the listeners work) */
  controlConnections: number;
  listenedPorts: number[];
}

// Safety first: never touch a real network's interfaces or addresses.
const links = execFileSync('ip', ['-o', 'link', 'show'], { encoding: 'utf8' }).trim().split('\n');
if (links.length !== 1 || !/^\d+: lo:/.test(links[0]!)) {
  console.error('refusing to run: not inside a loopback-only network namespace');
  process.exit(2);
}

const PRIVATE_TARGETS = ['10.0.0.1', '169.254.169.254', '192.168.1.1', '100.100.100.200', 'fd00:ec2::254'];
const NAMES: Record<string, string[]> = {
  'private.example.com': ['10.0.0.1'],
  'meta.example.com': ['169.254.169.254'],
  'v6meta.example.com': ['fd00:ec2::254'],
  'mapped.example.com': ['::ffff:10.0.0.1'],
  'rebind.example.com': ['127.0.0.1', '10.0.0.1'],
  'fixture.example.com': ['127.0.0.1'],
};
const fakeLookup: LookupFn = async (hostname) => {
  const addresses = NAMES[hostname];
  if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
  return addresses.map((address) => ({ address, family: isIP(address) }));
};

const corpus = readSsrfCorpus();

function addToLoopback(address: string): void {
  const v6 = isIP(address) === 6;
  try {
    execFileSync('ip', [...(v6 ? ['-6'] : []), 'addr', 'add', `${address}/${v6 ? 128 : 32}`, 'dev', 'lo', ...(v6 ? ['nodad'] : [])], {
      stdio: 'ignore',
    });
  } catch {
    // Multicast, broadcast and unspecified addresses cannot be assigned; nothing can answer there anyway.
  }
}

const literals = new Set(PRIVATE_TARGETS);
const ports = new Set([80, 443]);
for (const { url } of corpus) {
  if (!URL.canParse(url)) continue;
  const parsed = new URL(url);
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') continue;
  ports.add(effectivePort(parsed));
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) !== 0 && !host.startsWith('127.')) literals.add(host);
}
for (const address of literals) addToLoopback(address);

const listeners: CountingListener[] = [];
for (const port of ports) {
  // '::' also takes IPv4 connections; fall back to IPv4 only if IPv6 is off.
  listeners.push(await listenCounting('::', port).catch(() => listenCounting('0.0.0.0', port)));
}
const connections = () => listeners.reduce((sum, l) => sum + l.connections(), 0);

function outcome(group: Outcome['group'], url: string, result: LoadResult): Outcome {
  return {
    group,
    url,
    code: result.issues[0]?.code ?? null,
    message: result.issues[0]?.message ?? '',
    html: result.html === null ? null : pageText(result.html),
  };
}

const outcomes: Outcome[] = [];

// 1. The corpus, with an empty allow list and the system resolver (no DNS server is reachable here).
const strictLoader = createHtmlLoader({ policy: guardPolicy(), timeoutMs: 5000, connectTimeoutMs: 2000 });
for (const { url } of corpus) outcomes.push(outcome('corpus', url, await strictLoader.load({ url, mode: 'html' })));
await strictLoader.close();

// 1b. The same corpus through the browser loader (real Chromium behind its filtering proxy).
const strictBrowser = createBrowserLoader({ policy: guardPolicy(), timeoutMs: 10_000 });
for (const { url } of corpus) outcomes.push(outcome('corpus-browser', url, await strictBrowser.load({ url, mode: 'browser' })));
await strictBrowser.close();

// 2. Redirects from the trusted fixture server to private and metadata targets.
const server = await startFixtureServer(loaderRoutes());
const trusted = guardPolicy({ trustedCidrs: ['127.0.0.0/8'] });
const loader = createHtmlLoader({ policy: trusted, lookup: fakeLookup, timeoutMs: 5000, connectTimeoutMs: 2000 });
const redirectTargets = [
  'http://10.0.0.1/',
  'http://169.254.169.254/latest/meta-data/',
  'http://[::ffff:a9fe:a9fe]/',
  'http://[fd00:ec2::254]/latest/meta-data/',
  'http://192.168.1.1:8080/',
  'http://100.100.100.200/latest/meta-data/',
  'http://private.example.com/',
  'http://rebind.example.com/',
];
for (const to of redirectTargets) {
  const url = `${server.url}/loader/redirect?to=${encodeURIComponent(to)}`;
  outcomes.push(outcome('redirect', url, await loader.load({ url, mode: 'html' })));
}

// 3. Names whose DNS answers are private: refused at connect time.
for (const name of ['private.example.com', 'meta.example.com', 'v6meta.example.com', 'mapped.example.com', 'rebind.example.com']) {
  const url = `http://${name}/`;
  outcomes.push(outcome('resolved-name', url, await loader.load({ url, mode: 'html' })));
}

// 4. Webhook delivery through the same guard.
for (const url of ['http://10.0.0.1/hook', 'http://private.example.com/hook', 'http://[fd00:ec2::254]/hook']) {
  const result = await guardedPost(url, { body: '{}', timeoutMs: 3000, lookup: fakeLookup }, trusted);
  outcomes.push({
    group: 'webhook',
    url,
    code: result.ok ? null : result.blocked ? 'address_refused' : 'failed',
    message: result.ok ? '' : result.error.message,
  });
}

// 5. Controls that must work: a name resolved to the trusted fixture keeps its Host header; a DNS failure is fetch_failed.
const named = `http://fixture.example.com:${server.port}/loader/echo-headers`;
outcomes.push(outcome('control', named, await loader.load({ url: named, mode: 'html' })));
const unknown = 'https://nowhere.example.com/';
outcomes.push(outcome('control', unknown, await loader.load({ url: unknown, mode: 'html' })));
await loader.close();
await server.close();

const leakedConnections = connections();
// Deliberate direct connections prove the listeners would have seen a leak.
for (const host of ['10.0.0.1', '169.254.169.254']) {
  await new Promise<void>((resolve) => {
    const socket = connect({ host, port: 80 }, () => {
      socket.destroy();
      resolve();
    });
    socket.on('error', () => resolve());
  });
}
await new Promise((resolve) => setTimeout(resolve, 100));
const report: NamespaceReport = {
  outcomes,
  leakedConnections,
  controlConnections: connections() - leakedConnections,
  listenedPorts: [...ports].sort((a, b) => a - b),
};
await Promise.all(listeners.map((l) => l.close()));
process.stdout.write(`${JSON.stringify(report)}\n`);
