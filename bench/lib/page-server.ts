import { fork, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { DEFAULT_HOST_CONCURRENCY } from '../../src/domain/host-politeness.ts';
import { processCpuMs } from './measure.ts';

// Starts bench/lib/page-server-process.ts and waits for its ports.

export interface PageServer {
  /** one base URL per port, e.g. http://127.0.0.1:40123 */
  bases: string[];
  pid: number;
  cpuMs(): number;
  close(): Promise<void>;
}

/**
 * Ports (sites) enough that the per-host politeness limit is not what a
 * benchmark of `concurrency` checks at once measures: the limit counts leases,
 * which a worker holds from the claim to the commit, for up to 2 × concurrency
 * claimed checks and about as many committing.
 */
export function portsForConcurrency(concurrency: number): number {
  return Math.ceil((3 * concurrency) / DEFAULT_HOST_CONCURRENCY);
}

export async function startPageServer(options: { ports?: number; changeSeconds?: number; delayMs?: number } = {}): Promise<PageServer> {
  const child: ChildProcess = fork(
    join(import.meta.dirname, 'page-server-process.ts'),
    [
      '--ports',
      String(options.ports ?? 1),
      '--change-seconds',
      String(options.changeSeconds ?? 600),
      '--delay-ms',
      String(options.delayMs ?? 0),
    ],
    { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] },
  );
  const ports = await new Promise<number[]>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the page server did not start within 30 s')), 30_000);
    child.once('message', (message) => {
      clearTimeout(timer);
      resolve((message as { ports: number[] }).ports);
    });
    child.once('exit', (code) => reject(new Error(`the page server exited with ${code}`)));
  });
  return {
    bases: ports.map((port) => `http://127.0.0.1:${port}`),
    pid: child.pid!,
    cpuMs: () => processCpuMs(child.pid!),
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
