import type { Clock } from '../clock.ts';
import { DEFAULT_CHECK_LEASE_SECONDS } from '../config.ts';
import type { Plans } from '../domain/plans.ts';
import type { Database } from '../store/database.ts';
import type { Claim, WorkItem } from '../store/procedures/claim-work.ts';
import { storeProcedures } from '../store/procedures/index.ts';
import { recordClaim, recordOutcome, type EngineMetrics } from './check-metrics.ts';
import { handBack, runCheck, type RunOutcome } from './check-runner.ts';
import { createCommitBatcher, DEFAULT_COMMIT_BATCH, type CommitBatchSettings } from './commit-batcher.ts';
import type { EngineLogger } from './engine-logger.ts';
import { claimRoom, initialSlotState, step, type SlotAction, type SlotEvent } from './slot-accounting.ts';
import { DEFAULT_HOST_CONCURRENCY } from '../domain/host-politeness.ts';
import { cleanupExpired, settleChecks } from './housekeeping.ts';
import { queueDueDigests } from './digests.ts';
import type { Loaders } from '../fetch/loaders.ts';
import { analyzeChangedTables } from '../store/planner-statistics.ts';
import { renewLeases } from '../store/check-leases-store.ts';
import { vacuumBusyTables, VACUUM_SLICE_ROWS } from '../store/vacuum.ts';

// The scheduler and its worker pool in one loop per process. Every cycle
// (PAGEWATCH_TICK_SECONDS, or as soon as slots free up while due work waits)
// it settles manual checks (at most once a second), now and then cleans up
// expired history, claims checks and runs up to `concurrency` of them at once.
// The loop claims ahead (up to `concurrency` more than the slots hold), so a
// slot that frees starts the next claimed check at once rather than waiting
// for a claim. A check frees its slot when it is handed to the group commit,
// not when the commit is done, so the batch's wait for others costs no load
// throughput (at most 2 × `concurrency` + a batch of checks are unfinished).
// Any number of processes may run this loop against one PostgreSQL: claims
// are leased, so no check is done twice at once. Leases are short
// (PAGEWATCH_LEASE_SECONDS) and renewed by a heartbeat while this process
// holds the check, claimed or running: a process that dies leaves its checks
// to the others one lease after its last heartbeat, and one that stops hands
// back what it has not started at once. When to claim, how much, and which
// claimed checks start is decided by the slot accounting (slot-accounting.ts,
// a pure state machine); this module carries out its actions and reports
// what happened to it.
//
// `pagewatch serve` and `pagewatch worker` call start() and stop()
// (createEngine); tests and benchmarks may also drive it one cycle at a time
// with runCycle() and a manual clock (createSteppedEngine).

export interface EngineOptions {
  db: Database;
  clock: Clock;
  loaders: Loaders;
  /** PAGEWATCH_SECRETS_KEY: opens the secrets type steps name; default null: such steps fail (secret_missing) */
  secretsKey?: Buffer | null;
  plans: Plans;
  tickSeconds: number;
  logger: EngineLogger;
  /** checks run at once by this process (PAGEWATCH_WORKER_CONCURRENCY) */
  concurrency: number;
  /**
   * how long a claimed check stays with its worker after the worker's last
   * heartbeat before others presume it dead; default DEFAULT_CHECK_LEASE_SECONDS.
   * The loop renews the leases of every check it holds a few times per lease.
   */
  leaseSeconds?: number;
  /** checks of one host at once across all workers; default DEFAULT_HOST_CONCURRENCY */
  hostConcurrency?: number;
  /** physical cleanup interval; default one hour */
  cleanupEveryMs?: number;
  /** where checks, queue lag and lease take-overs are counted (the process's /metrics) */
  metrics?: EngineMetrics;
  /** group commit of finished checks; default DEFAULT_COMMIT_BATCH */
  commitBatch?: CommitBatchSettings;
  /** PGlite: rows written to a hot table since its last vacuum above which the minute's housekeeping vacuums it; default VACUUM_SLICE_ROWS */
  vacuumSliceRows?: number;
}

export interface CycleReport {
  claimed: WorkItem[];
  outcomes: RunOutcome[];
}

/** The engine as a running service uses it. */
export interface Engine {
  start(): void;
  /**
   * Stops the loop, hands back at once the checks it claimed but has not
   * started, lets checks under way finish for up to `graceMs` (default 0);
   * then aborts the loads still running, hands their checks back and waits
   * for everything to end.
   */
  stop(options?: { graceMs?: number }): Promise<void>;
  readonly running: boolean;
}

/** Driving the engine one step at a time, as tests and benchmarks do (createSteppedEngine). */
export interface EngineSteps {
  /** One full cycle, waiting for the checks it started. */
  runCycle(): Promise<CycleReport>;
  /** Claims work without running it: what a worker does right before it dies. */
  claim(): Promise<WorkItem[]>;
  /** Runs a claimed item: a worker that resumes after its lease expired. */
  run(item: WorkItem): Promise<RunOutcome>;
}

export type SteppedEngine = Engine & EngineSteps;

const DEFAULT_CLEANUP_MS = 3_600_000;
// Settling manual checks and abandoned leases is a transaction of its own:
// a busy loop that claims whenever a check ends does it at most this often.
const SETTLE_EVERY_MS = 1000;
// PGlite has no autovacuum: tables written much since their last VACUUM or
// ANALYZE are vacuumed or analysed this often (PostgreSQL's autovacuum does it there).
const TABLE_UPKEEP_EVERY_MS = 60_000;
// Leases are renewed this many times per lease, so that one late or failed heartbeat does not lose them.
const HEARTBEATS_PER_LEASE = 3;

/** The engine of `pagewatch serve` and `pagewatch worker`: started and stopped, never stepped. */
export function createEngine(options: EngineOptions): Engine {
  const engine = createSteppedEngine(options);
  return {
    start: () => engine.start(),
    stop: (stopOptions) => engine.stop(stopOptions),
    get running() {
      return engine.running;
    },
  };
}

export function createSteppedEngine(options: EngineOptions): SteppedEngine {
  const { db, clock, plans } = options;
  const batch = options.commitBatch ?? DEFAULT_COMMIT_BATCH;
  const commit = createCommitBatcher(db, batch);
  // What the slot accounting decides on; the loop below only carries out its actions.
  let slots = initialSlotState({ concurrency: options.concurrency, batchMax: batch.maxChecks, tickMs: options.tickSeconds * 1000 });
  const inFlight = new Set<Promise<RunOutcome>>();
  // Claimed by the loop, waiting for a slot.
  const ready: WorkItem[] = [];
  // Claimed and not yet recorded or handed back: the leases the heartbeat renews.
  const held = new Set<WorkItem>();
  const handingBack: Promise<void>[] = [];
  const leaseSeconds = options.leaseSeconds ?? DEFAULT_CHECK_LEASE_SECONDS;
  let heartbeat: NodeJS.Timeout | null = null;
  let beating: Promise<void> | null = null;
  const abort = new AbortController();
  let timer: NodeJS.Timeout | null = null;
  // The loop's cycle under way: settled once the machine has heard how it ended.
  let cycle: Promise<void> | null = null;
  let lastCleanup: Date | null = null;
  let lastSettle: Date | null = null;
  let lastTableUpkeep: Date | null = null;

  function dispatch(event: SlotEvent): void {
    const next = step(slots, event);
    slots = next.state;
    for (const action of next.actions) carryOut(action);
  }

  function carryOut(action: SlotAction): void {
    switch (action.type) {
      case 'setTimer':
        if (timer) clearTimeout(timer);
        timer = setTimeout(() => {
          timer = null;
          dispatch({ type: 'timerFired' });
        }, action.delayMs);
        return;
      case 'clearTimer':
        if (timer) clearTimeout(timer);
        timer = null;
        return;
      case 'beginCycle':
        cycle = housekeeping(false).then(
          () => dispatch({ type: 'housekept' }),
          (err: unknown) => cycleFailed(err),
        );
        return;
      case 'claim':
        cycle = claimForLoop(action.capacity);
        return;
      case 'startChecks':
        for (const item of ready.splice(0, action.count)) void logFailure(launch(item));
        return;
      case 'handBack':
        // Claimed but never started: handed back at once, for the next claim of any worker.
        for (const item of ready.splice(0, action.count))
          handingBack.push(
            handBack({ db, clock }, item).then(
              () => void held.delete(item),
              () => undefined,
            ),
          );
        return;
    }
  }

  function cycleFailed(err: unknown): void {
    options.logger.error({ err }, 'scheduler cycle failed');
    dispatch({ type: 'cycleFailed', at: Date.now() });
  }

  async function claimForLoop(capacity: number): Promise<void> {
    const busyBeforeClaim = slots.loading;
    let claimed: Claim;
    try {
      claimed = await claimOnce(capacity);
    } catch (err) {
      cycleFailed(err);
      return;
    }
    if (options.metrics) recordClaim(options.metrics, claimed.items, busyBeforeClaim < options.concurrency, clock.now());
    ready.push(...claimed.items);
    dispatch({ type: 'claimed', count: claimed.items.length, waiting: claimed.waiting, again: claimed.again, at: Date.now() });
  }

  const claimOnce = async (capacity: number): Promise<Claim> => {
    const claimed = await db.transact(storeProcedures.claimWork, {
      settings: {
        plans,
        capacity,
        leaseSeconds,
        hostConcurrency: options.hostConcurrency ?? DEFAULT_HOST_CONCURRENCY,
        tickSeconds: options.tickSeconds,
      },
      at: clock.now(),
    });
    for (const item of claimed.items) held.add(item);
    return claimed;
  };

  function renewHeld(): void {
    if (beating !== null || held.size === 0) return;
    const until = new Date(clock.now().getTime() + leaseSeconds * 1000);
    beating = renewLeases(db, [...held], until)
      .catch((err: unknown) => options.logger.error({ err }, 'lease heartbeat failed'))
      .finally(() => (beating = null));
  }

  /** Runs a check the machine has counted as started. */
  const launch = (item: WorkItem): Promise<RunOutcome> => {
    let loading = true;
    // The slot frees at the hand-over to the group commit, not when the commit is done.
    const handOver: typeof commit = (pending) => {
      const committed = commit(pending);
      loading = false;
      dispatch({ type: 'loadFinished', at: Date.now() });
      return committed;
    };
    const { metrics, logger } = options;
    const check = runCheck(
      { db, clock, loaders: options.loaders, config: { secretsKey: options.secretsKey ?? null }, commit: handOver, logger, metrics },
      item,
      abort.signal,
    );
    if (metrics)
      check.then(
        (outcome) => recordOutcome(metrics, item, outcome),
        () => recordOutcome(metrics, item, 'error'),
      );
    inFlight.add(check);
    return check.finally(() => {
      inFlight.delete(check);
      held.delete(item);
      dispatch({ type: 'checkSettled', loading, at: Date.now() });
    });
  };

  async function housekeeping(always: boolean): Promise<void> {
    const now = clock.now();
    if (always || lastSettle === null || now.getTime() - lastSettle.getTime() >= SETTLE_EVERY_MS) {
      await settleChecks(db, plans, now);
      await queueDueDigests(db, now);
      lastSettle = now;
    }
    if (db.kind === 'pglite' && (lastTableUpkeep === null || now.getTime() - lastTableUpkeep.getTime() >= TABLE_UPKEEP_EVERY_MS)) {
      await vacuumBusyTables(db, options.vacuumSliceRows ?? VACUUM_SLICE_ROWS);
      await analyzeChangedTables(db);
      lastTableUpkeep = now;
    }
    if (lastCleanup === null || now.getTime() - lastCleanup.getTime() >= (options.cleanupEveryMs ?? DEFAULT_CLEANUP_MS)) {
      await cleanupExpired(db, plans, now);
      lastCleanup = now;
    }
  }

  const logFailure = (check: Promise<RunOutcome>) => check.catch((err: unknown) => options.logger.error({ err }, 'check failed'));

  const run = (item: WorkItem): Promise<RunOutcome> => {
    dispatch({ type: 'checkStarted' });
    return launch(item);
  };

  return {
    async runCycle() {
      await housekeeping(true);
      const busyBeforeClaim = slots.loading;
      const claimed = await claimOnce(claimRoom(slots, false));
      const { items } = claimed;
      if (options.metrics) recordClaim(options.metrics, items, busyBeforeClaim < options.concurrency, clock.now());
      dispatch({ type: 'claimedToRun', waiting: claimed.waiting, again: claimed.again });
      return { claimed: items, outcomes: await Promise.all(items.map(run)) };
    },
    claim: async () => (await claimOnce(claimRoom(slots, false))).items,
    run,
    start() {
      if (slots.running) return;
      heartbeat = setInterval(renewHeld, (leaseSeconds * 1000) / HEARTBEATS_PER_LEASE);
      dispatch({ type: 'started', at: Date.now() });
    },
    async stop({ graceMs = 0 } = {}) {
      dispatch({ type: 'stopRequested' });
      // A claim under way hands back what it queued when it ends.
      while (slots.claiming) await cycle;
      await Promise.allSettled(handingBack.splice(0));
      if (graceMs > 0) {
        let grace: NodeJS.Timeout | undefined;
        await Promise.race([Promise.allSettled([...inFlight]), new Promise((resolve) => (grace = setTimeout(resolve, graceMs)))]);
        clearTimeout(grace);
      }
      abort.abort();
      await Promise.allSettled([...inFlight]);
      if (heartbeat) clearInterval(heartbeat);
      heartbeat = null;
      await beating;
    },
    get running() {
      return slots.running || slots.claiming || slots.inFlight > 0 || slots.ready > 0;
    },
  };
}
