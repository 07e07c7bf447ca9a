import { readFileSync, readdirSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

// Small measuring helpers shared by the benchmarks.

export function percentile(sorted: number[], p: number): number | null {
  if (sorted.length === 0) return null;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] ?? null;
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * A full garbage collection now, so what a benchmark's seeding left behind is
 * not counted in the peak RSS of what it measures next.
 */
export function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

/** Polls `done` every `everyMs` until it holds or `limitMs` passes; returns whether it held. */
export async function waitFor(done: () => Promise<boolean>, limitMs: number, everyMs = 200): Promise<boolean> {
  const until = Date.now() + limitMs;
  while (Date.now() < until) {
    if (await done()) return true;
    await sleep(everyMs);
  }
  return done();
}

/** Runs `worker` on `count` items with `concurrency` at once. */
export async function pool(count: number, concurrency: number, worker: (index: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, count) }, async () => {
      while (next < count) await worker(next++);
    }),
  );
}

/** Resident memory of a process and all its descendants, from /proc (Linux). */
export function treeRssBytes(rootPid: number): number {
  const children = new Map<number, number[]>();
  const rss = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const status = readFileSync(`/proc/${entry}/status`, 'utf8');
      const ppid = Number(/PPid:\s+(\d+)/.exec(status)?.[1]);
      const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
      rss.set(Number(entry), kb * 1024);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // The process ended while we looked.
    }
  }
  let total = 0;
  const stack = [rootPid];
  while (stack.length > 0) {
    const pid = stack.pop()!;
    total += rss.get(pid) ?? 0;
    stack.push(...(children.get(pid) ?? []));
  }
  return total;
}

/** CPU time (user + system) of another process, in ms, or null once it has ended (Linux /proc). */
export function liveProcessCpuMs(pid: number): number | null {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    // utime and stime are fields 14 and 15 of stat, in clock ticks (100 per second on Linux).
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return null;
  }
}

/** CPU time (user + system) of another process, in ms; 0 once it has ended. */
export const processCpuMs = (pid: number): number => liveProcessCpuMs(pid) ?? 0;

/** Busy and total CPU time of the whole machine so far, in clock ticks, from /proc/stat (Linux). */
export function machineCpuTicks(): { busy: number; total: number } {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal: idle and iowait are not busy.
  const total = fields.slice(0, 8).reduce((sum, n) => sum + n, 0);
  return { busy: total - fields[3]! - fields[4]!, total };
}

/** The share of the machine's CPUs busy since `since` (0 to 1). */
export function machineBusySince(since: { busy: number; total: number }): number {
  const now = machineCpuTicks();
  return now.total === since.total ? 0 : (now.busy - since.busy) / (now.total - since.total);
}
