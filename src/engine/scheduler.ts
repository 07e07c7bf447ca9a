import type { Clock } from '../clock.ts';
import { DEFAULT_CHECK_LEASE_SECONDS } from '../config.ts';
import type { Plans } from '../domain/plans.ts';
import type { Database } from '../store/database.ts';
import { claimWork, type Claim, type WorkItem } from './check-claims.ts';
import { recordClaim, recordOutcome, type EngineMetrics } from './check-metrics.ts';
import { runCheck, type RunOutcome } from './check-runner.ts';
import { createCommitBatcher, type CommitBatchSettings } from './commit-batcher.ts';
import { DEFAULT_HOST_CONCURRENCY } from './host-politeness.ts';
import { cleanupExpired, settleChecks } from './housekeeping.ts';
import type { Loaders } from '../fetch/loaders.ts';

// The scheduler and its worker pool in one loop per process. Every cycle
// (PAGEWATCH_TICK_SECONDS) it settles manual checks, now and then cleans up
// expired history, claims up to `concurrency` checks minus those still
// running, and starts them. A check that ends with due work left behind
// wakes the loop to claim at once; such a refill skips the book-keeping if it
// ran less than a cycle ago (a busy engine would otherwise pay it per check).
// Any number of processes may run this loop against one PostgreSQL: claims
// are leased, so no check is done twice at once.
//
// Tests drive it one cycle at a time with runCycle() and a manual clock;
// `pagewatch serve` and `pagewatch worker` call start() and stop().

export interface EngineLogger {
  error(details: object, message: string): void;
}

export interface EngineOptions {
  db: Database;
  clock: Clock;
  loaders: Loaders;
  plans: Plans;
  tickSeconds: number;
  logger: EngineLogger;
  /** checks run at once by this process (PAGEWATCH_WORKER_CONCURRENCY) */
  concurrency: number;
  /** how long a claimed check stays with its worker before others presume it dead; default 300 s */
  leaseSeconds?: number;
  /** checks of one host at once across all workers; default DEFAULT_HOST_CONCURRENCY */
  hostConcurrency?: number;
  /** physical cleanup interval; default one hour */
  cleanupEveryMs?: number;
  /** where checks, queue lag and lease take-overs are counted (the process's /metrics) */
  metrics?: EngineMetrics;
  /** group commit of finished checks; default DEFAULT_COMMIT_BATCH */
  commitBatch?: CommitBatchSettings;
}

export interface CycleReport {
  claimed: WorkItem[];
  outcomes: RunOutcome[];
}

export interface Engine {
  /** One full cycle, waiting for the checks it started (tests). */
  runCycle(): Promise<CycleReport>;
  /** Claims work without running it: what a worker does right before it dies (tests). */
  claim(): Promise<WorkItem[]>;
  /** Runs a claimed item (tests: a worker that resumes after its lease expired). */
  run(item: WorkItem): Promise<RunOutcome>;
  start(): void;
  /**
   * Stops the loop and lets checks under way finish for up to `graceMs`
   * (default 0); then aborts the loads still running, hands their checks back
   * and waits for everything to end.
   */
  stop(options?: { graceMs?: number }): Promise<void>;
  readonly running: boolean;
}

const DEFAULT_CLEANUP_MS = 3_600_000;

export function createEngine(options: EngineOptions): Engine {
  const { db, clock, plans } = options;
  const inFlight = new Set<Promise<RunOutcome>>();
  const commit = createCommitBatcher(db, options.commitBatch);
  const abort = new AbortController();
  let timer: NodeJS.Timeout | null = null;
  let running = false;
  let cycle: Promise<WorkItem[]> | null = null;
  let lastCleanup: Date | null = null;
  let lastHousekeeping: Date | null = null;
  // The last claim left due work for lack of a slot (here or at its host).
  let waiting = false;
  // A check ended while the current claim ran, when it could not wake the loop.
  let freedDuringClaim = false;

  const claimOnce = (): Promise<Claim> =>
    db.transaction((tx) =>
      claimWork(
        tx,
        {
          plans,
          capacity: options.concurrency - inFlight.size,
          leaseSeconds: options.leaseSeconds ?? DEFAULT_CHECK_LEASE_SECONDS,
          hostConcurrency: options.hostConcurrency ?? DEFAULT_HOST_CONCURRENCY,
          tickSeconds: options.tickSeconds,
        },
        clock.now(),
      ),
    );
  const claim = async (): Promise<WorkItem[]> => (await claimOnce()).items;

  const run = (item: WorkItem): Promise<RunOutcome> => {
    const check = runCheck({ db, clock, loaders: options.loaders, commit }, item, abort.signal);
    const { metrics } = options;
    if (metrics)
      check.then(
        (outcome) => recordOutcome(metrics, item, outcome),
        () => recordOutcome(metrics, item, 'error'),
      );
    inFlight.add(check);
    const settled = check.finally(() => inFlight.delete(check));
    // Due work left behind for lack of a slot can be claimed as soon as this one frees.
    const freed = () => {
      if (cycle !== null) freedDuringClaim = true;
      wake();
    };
    settled.then(freed, freed);
    return settled;
  };

  async function housekeeping(): Promise<void> {
    const now = clock.now();
    lastHousekeeping = now;
    await settleChecks(db, plans, now);
    if (lastCleanup === null || now.getTime() - lastCleanup.getTime() >= (options.cleanupEveryMs ?? DEFAULT_CLEANUP_MS)) {
      await cleanupExpired(db, plans, now);
      lastCleanup = now;
    }
  }

  const housekeepingDue = () =>
    lastHousekeeping === null || clock.now().getTime() - lastHousekeeping.getTime() >= options.tickSeconds * 1000;

  async function startCycle(withHousekeeping: boolean): Promise<{ items: WorkItem[]; checks: Promise<RunOutcome>[] }> {
    if (withHousekeeping) await housekeeping();
    const busyBeforeClaim = inFlight.size;
    const { items, waiting: left } = await claimOnce();
    if (options.metrics) recordClaim(options.metrics, items, busyBeforeClaim < options.concurrency, clock.now());
    waiting = left;
    const checks = items.map(run);
    return { items, checks };
  }

  function wake(): void {
    if (!running || !waiting || cycle !== null) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => loopOnce(true), 0);
  }

  /** One cycle; `refill`: woken because slots freed, not by the cycle's timer. */
  function loopOnce(refill = false): void {
    timer = null;
    freedDuringClaim = false;
    cycle = startCycle(!refill || housekeepingDue()).then(
      ({ items, checks }) => {
        for (const check of checks) check.catch((err: unknown) => options.logger.error({ err }, 'check failed'));
        return items;
      },
      (err: unknown) => {
        options.logger.error({ err }, 'scheduler cycle failed');
        return [];
      },
    );
    void cycle.finally(() => {
      cycle = null;
      if (!running) return;
      const refill = waiting && freedDuringClaim;
      timer = setTimeout(() => loopOnce(refill), refill ? 0 : options.tickSeconds * 1000);
    });
  }

  return {
    async runCycle() {
      const { items, checks } = await startCycle(true);
      return { claimed: items, outcomes: await Promise.all(checks) };
    },
    claim,
    run,
    start() {
      if (running) return;
      running = true;
      timer = setTimeout(loopOnce, 0);
    },
    async stop({ graceMs = 0 } = {}) {
      running = false;
      if (timer) clearTimeout(timer);
      timer = null;
      if (graceMs > 0) {
        await cycle;
        let grace: NodeJS.Timeout | undefined;
        await Promise.race([Promise.allSettled([...inFlight]), new Promise((resolve) => (grace = setTimeout(resolve, graceMs)))]);
        clearTimeout(grace);
      }
      abort.abort();
      await cycle;
      await Promise.allSettled([...inFlight]);
    },
    get running() {
      return running || cycle !== null || inFlight.size > 0;
    },
  };
}
