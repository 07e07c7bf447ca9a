import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

// `pagewatch` child processes for the benchmarks, always stopped at the end.

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'pagewatch.js');

/** `ownProcessGroup`: the child leads a process group, which a benchmark can kill whole (kill -9 -pid). */
export function spawnPagewatch(args: string[], env: Record<string, string>, options: { ownProcessGroup?: boolean } = {}): ChildProcess {
  return spawn(process.execPath, [BIN, ...args], {
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
    detached: options.ownProcessGroup ?? false,
  });
}

/** SIGTERM (the process hands its checks back), SIGKILL after `graceMs`. */
export async function stopChild(child: ChildProcess, graceMs = 10_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}
