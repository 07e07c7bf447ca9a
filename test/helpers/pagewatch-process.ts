import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ADMIN_TOKEN, ALL_SCOPES } from './test-credentials.ts';
import { pagewatchArgs } from './pagewatch-bin.ts';

// Real pagewatch processes (`pagewatch <command>`, see pagewatch-bin.ts) as an operator
// runs them, for the multi-process tests. Every process binds PORT=0 on the
// loopback address and reports its port in its "listening on" line; a group
// kills whatever is still running when the test file ends. Each process leads
// a process group of its own, so a test can signal it and anything it started
// at once, as a supervisor does.

export type Command = 'serve' | 'api' | 'worker';

export interface PagewatchProcess {
  name: string;
  child: ChildProcess;
  /** http://127.0.0.1:<port> once listening */
  url: string;
  output(): string;
  /** resolves with the exit code (null when killed by a signal) */
  exited: Promise<number | null>;
  /** counter values from this process's /metrics, summed over the label sets that match `labels` */
  metric(name: string, labels?: Record<string, string>): Promise<number>;
  /** sends `signal` to the process's whole group (kill -SIGNAL -pid) */
  signalGroup(signal: NodeJS.Signals): void;
}

/** Plan limits a multi-process test needs beyond the defaults (PAGEWATCH_PLANS_FILE). */
export function writePlansFile(plans: unknown): string {
  const path = join(mkdtempSync(join(tmpdir(), 'pw-plans-')), 'plans.json');
  writeFileSync(path, JSON.stringify(plans));
  return path;
}

export function baseEnv(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  // The child gets the test's PATH and locale, never its database settings.
  for (const name of ['PATH', 'HOME', 'LANG', 'TMPDIR']) if (process.env[name]) env[name] = process.env[name]!;
  return {
    ...env,
    HOST: '127.0.0.1',
    PORT: '0',
    LOG_LEVEL: 'warn',
    PAGEWATCH_ADMIN_TOKEN: ADMIN_TOKEN,
    PAGEWATCH_ALLOW_PRIVATE_NETWORKS: '127.0.0.0/8',
    ...extra,
  };
}

export class ProcessGroup {
  private readonly all: PagewatchProcess[] = [];

  /**
   * Starts `pagewatch <command>` and waits (at most `ms`) until it listens. The bound is generous: an embedded
   * store's first start took over 60 s on a machine loaded by other suites; how fast a start is belongs to
   * bench/footprint.bench.ts, not here.
   */
  async start(command: Command, name: string, env: Record<string, string>, ms = 180_000): Promise<PagewatchProcess> {
    const child = spawn(process.execPath, pagewatchArgs([command]), { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const proc: PagewatchProcess = {
      name,
      child,
      url: '',
      output: () => output,
      exited,
      metric: (metric, labels) => readMetric(proc.url, metric, labels),
      signalGroup: (signal) => process.kill(-child.pid!, signal),
    };
    this.all.push(proc);
    const deadline = Date.now() + ms;
    let listening: RegExpMatchArray | null = null;
    while (!(listening = output.match(/listening on (http:\/\/127\.0\.0\.1:\d+)/))) {
      if (child.exitCode !== null || child.signalCode !== null) throw new Error(`${name} exited before listening:\n${output}`);
      if (Date.now() > deadline) throw new Error(`${name} did not listen within ${ms} ms:\n${output}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    proc.url = listening[1]!;
    return proc;
  }

  /** Kills every process still running (SIGKILL) and waits for them to go. */
  async killAll(): Promise<void> {
    const alive = this.all.filter((p) => p.child.exitCode === null && p.child.signalCode === null);
    for (const p of alive) p.child.kill('SIGKILL');
    await Promise.all(alive.map((p) => p.exited));
  }
}

async function readMetric(url: string, name: string, labels: Record<string, string> = {}): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  let sum = 0;
  for (const line of text.split('\n')) {
    const match = line.match(/^([a-z_]+)(?:\{(.*)\})? ([0-9.e+-]+)$/);
    if (!match || match[1] !== name) continue;
    const present = Object.fromEntries([...(match[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([k, v]) => present[k] === v)) sum += Number(match[3]);
  }
  return sum;
}

/**
 * A new account on the pro plan (or `plan`) and a day-long token with every
 * scope, made through the operator API at `node` (a process's URL) as an
 * operator would; the token through `tokenNode` when given, another node on
 * the same store.
 */
export async function createAccountVia(
  node: string,
  options: { email: string; tokenName: string; tokenNode?: string; plan?: 'pro' | 'free' },
): Promise<{ accountId: string; token: string; tokenId: string }> {
  const headers = { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' };
  const post = async (base: string, path: string, body: unknown) => {
    const res = await fetch(`${base}/admin/v1${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
    if (res.status !== 201) throw new Error(`POST ${path}: ${res.status} ${await res.text()}`);
    return (await res.json()).data;
  };
  const accountId = (await post(node, '/accounts', { email: options.email, plan: options.plan ?? 'pro' })).id as string;
  const created = await post(options.tokenNode ?? node, `/accounts/${accountId}/tokens`, {
    name: options.tokenName,
    scopes: ALL_SCOPES,
    expires_in_days: 1,
  });
  return { accountId, token: created.token as string, tokenId: created.id as string };
}

export { waitUntil } from './deadline.ts';
