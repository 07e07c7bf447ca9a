import { liveProcessCpuMs } from './measure.ts';

// CPU of other processes that serve a benchmark, such as the PostgreSQL
// backends of its own connections: a store's work there is part of what a
// check costs, but not of the benchmark process's own CPU.

export interface ServerCpu {
  /** CPU the processes used since the meter started, in ms, as of the last sample */
  ms: number;
  /** processes seen */
  processes: number;
  /** processes that ended during the measurement: their CPU after their last sample is lost */
  ended: number;
}

/**
 * Meters the CPU of the processes `pids()` names from now on, sampling every
 * `everyMs` until stopped. A process there at the start counts from its CPU
 * then; one that appears later counts from zero (it began after the start).
 * A process that ends is only known up to its last sample, so sampling often
 * bounds what is lost.
 */
export async function meterServerCpu(pids: () => Promise<number[]>, everyMs = 1000): Promise<{ stop(): Promise<ServerCpu> }> {
  const from = new Map<number, number>();
  const latest = new Map<number, number>();
  const ended = new Set<number>();
  const sample = async (first: boolean) => {
    const current = new Set(await pids());
    for (const pid of current) {
      const ms = liveProcessCpuMs(pid);
      if (ms === null) continue;
      if (!from.has(pid)) from.set(pid, first ? ms : 0);
      latest.set(pid, ms);
    }
    for (const pid of from.keys()) if (!current.has(pid)) ended.add(pid);
  };
  await sample(true);
  let sampling = Promise.resolve();
  const timer = setInterval(() => {
    sampling = sampling.then(() => sample(false));
  }, everyMs);
  return {
    async stop() {
      clearInterval(timer);
      await sampling;
      await sample(false);
      let ms = 0;
      for (const [pid, start] of from) ms += (latest.get(pid) ?? start) - start;
      return { ms, processes: from.size, ended: ended.size };
    },
  };
}
