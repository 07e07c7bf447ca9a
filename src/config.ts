import { existsSync, readFileSync } from 'node:fs';
import { parsePlans, DEFAULT_PLANS, type Plans } from './domain/plans.ts';
import { guardPolicy } from './domain/network/guard-policy.ts';
import { YOUNG_GENERATIONS, type YoungGeneration } from './heap-sizing.ts';
import { parseProxies, type OutboundProxy } from './domain/network/outbound-proxies.ts';

// Configuration is read from the environment once, at start, and passed in.
// A bad value stops the process with a message naming the variable.

/**
 * How long a check or a notification stays with its worker after the worker's
 * last heartbeat, unless PAGEWATCH_LEASE_SECONDS says otherwise: a worker that
 * died is taken over this long after it stopped renewing its leases.
 */
export const DEFAULT_CHECK_LEASE_SECONDS = 30;

/**
 * The local Chromium used when PAGEWATCH_CHROMIUM_PATH is unset: the first of
 * these that is installed, else the last. First Chromium's headless shell
 * (Debian's chromium-headless-shell): the same engine built for automation,
 * without the full browser's windows and UI services, loading a page for
 * about a third of the full browser's CPU (docs/decisions/0092).
 */
export const CHROMIUM_PATHS = ['/usr/lib/chromium/chromium-headless-shell', '/usr/bin/chromium'];

/** The first of CHROMIUM_PATHS for which `installed` holds, else the last. */
export function defaultChromiumPath(installed: (path: string) => boolean = existsSync): string {
  return CHROMIUM_PATHS.find((path) => installed(path)) ?? CHROMIUM_PATHS.at(-1)!;
}

/** scrypt's cost for owner passwords as log2 of N (PAGEWATCH_PASSWORD_HASH_COST); 2^18 already needs 256 MiB a hash. */
export const PASSWORD_HASH_COST = { default: 15, min: 10, max: 18 };

export interface Config {
  /** PORT, default 8080 */
  port: number;
  /** HOST, default 127.0.0.1 */
  host: string;
  /** PAGEWATCH_DATA_DIR, default ./data: the embedded PGlite store */
  dataDir: string;
  /** DATABASE_URL: PostgreSQL instead of PGlite when set */
  databaseUrl: string | null;
  /** PAGEWATCH_ADMIN_TOKEN: the operator API exists only when set */
  adminToken: string | null;
  /** PAGEWATCH_PUBLIC_URL, default http://HOST:PORT: links in emails and webhooks */
  publicUrl: string;
  /** PAGEWATCH_TICK_SECONDS, default 60: the scheduler's cycle */
  tickSeconds: number;
  /** PAGEWATCH_WORKER_CONCURRENCY, default 4: checks one process runs at once */
  workerConcurrency: number;
  /** PAGEWATCH_LEASE_SECONDS, default 30: how long after its worker's last heartbeat a claimed check or notification is taken over by others */
  leaseSeconds: number;
  /** PAGEWATCH_SHUTDOWN_GRACE_SECONDS, default 25: on SIGTERM, how long checks under way may run before they are handed back */
  shutdownGraceSeconds: number;
  /** PAGEWATCH_ALLOW_PRIVATE_NETWORKS: CIDRs the operator trusts despite the SSRF guard */
  allowPrivateNetworks: string[];
  /** PAGEWATCH_ALLOW_PORTS, default 80,443: ports allowed on public addresses */
  allowPorts: number[];
  /** PAGEWATCH_CHROMIUM_PATH, default defaultChromiumPath(): the headless shell when installed, else /usr/bin/chromium */
  chromiumPath: string;
  /** PAGEWATCH_BROWSER_WS: remote Chromium (CDP websocket) instead of a local one */
  browserWs: string | null;
  /** PAGEWATCH_SMTP_URL: SMTP server for email notifications */
  smtpUrl: string | null;
  /** PAGEWATCH_SMTP_FROM, default pagewatch@<host of the public URL>: the sender of notification emails */
  smtpFrom: string;
  /** plan limits: defaults deep-merged with PAGEWATCH_PLANS_FILE */
  plans: Plans;
  /** LOG_LEVEL, default info */
  logLevel: string;
  /** PAGEWATCH_REQUEST_TIMEOUT_SECONDS, default 30: how long a client may take to send a whole request (headers within 10 s) */
  requestTimeoutSeconds: number;
  /** PAGEWATCH_MAX_CONNECTIONS_PER_ADDRESS, default 256: open connections one client address may hold; 0 = no cap (behind a proxy) */
  maxConnectionsPerAddress: number;
  /** PAGEWATCH_EXTRACT_WORKERS, default 2: threads that parse pages and extract targets off the HTTP event loop */
  extractWorkers: number;
  /** PAGEWATCH_PROXIES (name=url,…) with PAGEWATCH_PRIVATE_PROXIES (names allowed on private addresses): the operator's outbound proxies */
  proxies: OutboundProxy[];
  /** PAGEWATCH_PGLITE_SHARED_BUFFERS_MB, default unset: sized for the embedded store at each start (a quarter of its size, 16–128 MiB) */
  pgliteSharedBuffersMiB: number | null;
  /** PAGEWATCH_YOUNG_GENERATION, default fixed: V8's young generation is not grown (heap-sizing.ts); growing: V8's own sizing */
  youngGeneration: YoungGeneration;
  /** PAGEWATCH_IDLE_STOP_SECONDS, default 60: extraction threads and a launched Chromium without work for this long stop (started again on demand) */
  idleStopSeconds: number;
  /** PAGEWATCH_CHANNEL_HOST_OVERRIDES, default none: service host → origin messages to it go to instead (host=http://127.0.0.1:9000,…), for tests */
  channelHostOverrides: Record<string, string>;
  /** PAGEWATCH_SECRETS_KEY: 32 bytes (base64 or hex) sealing the accounts' step secrets; unset: no secrets can be stored or typed */
  secretsKey: Buffer | null;
  /** PAGEWATCH_PASSWORD_HASH_COST, default 15: scrypt's N = 2^cost for owner passwords set from now on (10–18) */
  passwordHashCost: number;
}

export class ConfigError extends Error {
  constructor(variable: string, problem: string) {
    super(`${variable}: ${problem}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(name, `expected a whole number, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(name, `must be between ${min} and ${max}, got ${value}`);
  return value;
}

function youngGeneration(env: Env): YoungGeneration {
  const value = text(env, 'PAGEWATCH_YOUNG_GENERATION') ?? 'fixed';
  if (!YOUNG_GENERATIONS.includes(value as YoungGeneration))
    throw new ConfigError('PAGEWATCH_YOUNG_GENERATION', `must be one of ${YOUNG_GENERATIONS.join(', ')}`);
  return value as YoungGeneration;
}

function text(env: Env, name: string): string | null {
  const raw = env[name]?.trim();
  return raw ? raw : null;
}

function cidrList(env: Env, name: string): string[] {
  const items = (env[name] ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const item of items) {
    try {
      guardPolicy({ trustedCidrs: [item] });
    } catch {
      throw new ConfigError(name, `"${item}" is not a CIDR such as 127.0.0.0/8`);
    }
  }
  return items;
}

function portList(env: Env, name: string): number[] {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return [80, 443];
  return raw.split(',').map((s) => {
    const port = Number(s.trim());
    if (!Number.isInteger(port) || port < 1 || port > 65535) throw new ConfigError(name, `"${s.trim()}" is not a port`);
    return port;
  });
}

function url(env: Env, name: string, protocols: string[]): string | null {
  const raw = text(env, name);
  if (raw === null) return null;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(name, 'is not a valid URL');
  }
  if (!protocols.includes(parsed.protocol)) throw new ConfigError(name, `must use ${protocols.join(' or ')}`);
  return raw;
}

function hostOverrides(env: Env, name: string): Record<string, string> {
  const overrides: Record<string, string> = {};
  for (const item of (env[name] ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const [host, origin] = item.split('=', 2).map((s) => s.trim());
    let parsed: URL | null = null;
    try {
      parsed = new URL(origin ?? '');
    } catch {
      parsed = null;
    }
    if (!host || !parsed || !['http:', 'https:'].includes(parsed.protocol) || parsed.origin !== origin?.replace(/\/+$/, '')) {
      throw new ConfigError(name, `"${item}" is not host=origin such as hooks.slack.com=http://127.0.0.1:9000`);
    }
    overrides[host.toLowerCase()] = parsed.origin;
  }
  return overrides;
}

function proxies(env: Env): OutboundProxy[] {
  try {
    return parseProxies(env.PAGEWATCH_PROXIES ?? '', env.PAGEWATCH_PRIVATE_PROXIES ?? '');
  } catch (err) {
    throw new ConfigError('PAGEWATCH_PROXIES', (err as Error).message);
  }
}

/** A 256-bit key, given as 64 hex digits or base64 of 32 bytes. */
function key256(env: Env, name: string): Buffer | null {
  const raw = text(env, name);
  if (raw === null) return null;
  const bytes = /^[0-9a-fA-F]{64}$/.test(raw)
    ? Buffer.from(raw, 'hex')
    : /^[A-Za-z0-9+/]{43}=?$/.test(raw)
      ? Buffer.from(raw, 'base64')
      : null;
  if (bytes?.length !== 32)
    throw new ConfigError(name, 'must be 32 random bytes as 64 hex digits or base64 (e.g. openssl rand -base64 32)');
  return bytes;
}

function plansFromFile(env: Env): Plans {
  const path = text(env, 'PAGEWATCH_PLANS_FILE');
  if (path === null) return DEFAULT_PLANS;
  let overrides: unknown;
  try {
    overrides = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new ConfigError('PAGEWATCH_PLANS_FILE', `cannot read JSON from ${path}: ${(err as Error).message}`);
  }
  try {
    return parsePlans(overrides);
  } catch (err) {
    throw new ConfigError('PAGEWATCH_PLANS_FILE', (err as Error).message);
  }
}

export function loadConfig(env: Env): Config {
  const port = integer(env, 'PORT', 8080, 0, 65535);
  const host = text(env, 'HOST') ?? '127.0.0.1';
  const logLevel = text(env, 'LOG_LEVEL') ?? 'info';
  if (!LOG_LEVELS.includes(logLevel)) throw new ConfigError('LOG_LEVEL', `must be one of ${LOG_LEVELS.join(', ')}`);
  const adminToken = text(env, 'PAGEWATCH_ADMIN_TOKEN');
  const publicUrl = (
    url(env, 'PAGEWATCH_PUBLIC_URL', ['http:', 'https:']) ?? `http://${host.includes(':') ? `[${host}]` : host}:${port}`
  ).replace(/\/+$/, '');
  if (adminToken !== null && adminToken.length < 16) throw new ConfigError('PAGEWATCH_ADMIN_TOKEN', 'must be at least 16 characters');
  return {
    port,
    host,
    dataDir: text(env, 'PAGEWATCH_DATA_DIR') ?? './data',
    databaseUrl: url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']),
    adminToken,
    publicUrl,
    tickSeconds: integer(env, 'PAGEWATCH_TICK_SECONDS', 60, 1, 3600),
    workerConcurrency: integer(env, 'PAGEWATCH_WORKER_CONCURRENCY', 4, 1, 256),
    leaseSeconds: integer(env, 'PAGEWATCH_LEASE_SECONDS', DEFAULT_CHECK_LEASE_SECONDS, 5, 86_400),
    // Below the 30 s a container orchestrator usually waits before it kills.
    shutdownGraceSeconds: integer(env, 'PAGEWATCH_SHUTDOWN_GRACE_SECONDS', 25, 0, 3600),
    allowPrivateNetworks: cidrList(env, 'PAGEWATCH_ALLOW_PRIVATE_NETWORKS'),
    allowPorts: portList(env, 'PAGEWATCH_ALLOW_PORTS'),
    chromiumPath: text(env, 'PAGEWATCH_CHROMIUM_PATH') ?? defaultChromiumPath(),
    browserWs: url(env, 'PAGEWATCH_BROWSER_WS', ['ws:', 'wss:']),
    smtpUrl: url(env, 'PAGEWATCH_SMTP_URL', ['smtp:', 'smtps:']),
    smtpFrom: text(env, 'PAGEWATCH_SMTP_FROM') ?? `pagewatch@${new URL(publicUrl).hostname}`,
    plans: plansFromFile(env),
    logLevel,
    requestTimeoutSeconds: integer(env, 'PAGEWATCH_REQUEST_TIMEOUT_SECONDS', 30, 1, 600),
    maxConnectionsPerAddress: integer(env, 'PAGEWATCH_MAX_CONNECTIONS_PER_ADDRESS', 256, 0, 100_000),
    extractWorkers: integer(env, 'PAGEWATCH_EXTRACT_WORKERS', 2, 1, 64),
    pgliteSharedBuffersMiB:
      text(env, 'PAGEWATCH_PGLITE_SHARED_BUFFERS_MB') === null ? null : integer(env, 'PAGEWATCH_PGLITE_SHARED_BUFFERS_MB', 128, 8, 4096),
    youngGeneration: youngGeneration(env),
    idleStopSeconds: integer(env, 'PAGEWATCH_IDLE_STOP_SECONDS', 60, 1, 86_400),
    channelHostOverrides: hostOverrides(env, 'PAGEWATCH_CHANNEL_HOST_OVERRIDES'),
    proxies: proxies(env),
    secretsKey: key256(env, 'PAGEWATCH_SECRETS_KEY'),
    passwordHashCost: integer(
      env,
      'PAGEWATCH_PASSWORD_HASH_COST',
      PASSWORD_HASH_COST.default,
      PASSWORD_HASH_COST.min,
      PASSWORD_HASH_COST.max,
    ),
  };
}
