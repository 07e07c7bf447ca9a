import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

// `pagewatch` child processes for the benchmarks, always stopped at the end.

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'pagewatch.js');

/**
 * `ownProcessGroup`: the child leads a process group, which a benchmark can
 * kill whole (kill -9 -pid); `stdout`: its standard output is readable (the
 * "listening on" line names its port).
 */
export function spawnPagewatch(
  args: string[],
  env: Record<string, string>,
  options: { ownProcessGroup?: boolean; stdout?: boolean } = {},
): ChildProcess {
  return spawn(process.execPath, [BIN, ...args], {
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', options.stdout ? 'pipe' : 'ignore', 'inherit'],
    detached: options.ownProcessGroup ?? false,
  });
}

/** The base URL a child started with `stdout` listens on, from its "listening on" line. */
export function listeningUrl(child: ChildProcess, limitMs = 30_000): Promise<string> {
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`no "listening on" line within ${limitMs} ms`)), limitMs);
    child.stdout!.on('data', (chunk) => {
      output += chunk;
      const match = /listening on (http:\/\/[^\s]+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
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
