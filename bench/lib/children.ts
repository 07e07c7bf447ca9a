import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

// `pagewatch` child processes for the benchmarks, always stopped at the end.

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'pagewatch.js');

export function spawnPagewatch(args: string[], env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, [BIN, ...args], {
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
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
