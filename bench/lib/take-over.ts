import { randomUUID } from 'node:crypto';
import type { ChildProcess } from 'node:child_process';
import type { Database } from '../../src/store/database.ts';
import { rescheduleMonitors } from '../../src/store/monitor-checks-store.ts';
import { listeningUrl, spawnPagewatch, stopChild } from './children.ts';
import { sleep } from './measure.ts';
import { startPageServer } from './page-server.ts';
import { PRODUCT_TARGETS } from './pages.ts';
import { benchPlans } from './plans.ts';
import { createAccount, insertMonitors } from './seed.ts';
import { assertBefore, startAfterOverrun, ownSlotAfter, runStart } from './own-slots.ts';
import { simulateHistory } from './simulated-hour.ts';
import { openBenchStore } from './stores.ts';

// A worker killed mid-run (issue #35): two `pagewatch worker` processes share
// the scale benchmark's monitors on PostgreSQL; once they run on time, the one
// that recorded more checks in the last seconds is killed (SIGKILL of its
// process group: with little due, one worker may do nearly all of the work,
// and killing an idle one would measure nothing) and the store is sampled for due
// checks not recorded within `lateSeconds` of their slot. The dead worker's
// claimed and running checks are late until the survivor takes them over,
// one lease after the dead worker's last heartbeat and at its next cycle.

export interface TakeOverSettings {
  monitors: number;
  intervalMinutes: number;
  /** PAGEWATCH_WORKER_CONCURRENCY of each worker */
  concurrency: number;
  tickSeconds: number;
  leaseSeconds: number;
  /** each monitor captured once before the run (baselines in place) */
  settled: boolean;
  changeSeconds: number;
  /** how long both workers run before the kill */
  warmupSeconds: number;
  /** a due check not recorded this long after its slot is late */
  lateSeconds: number;
  /** the fixture site's ports (politeness is per host and port) */
  ports: number;
  /** how late the fixture site answers each page */
  pageDelayMs: number;
  plansFile: string;
}

export interface TakeOverFigures {
  /** checks the killed worker had claimed (running or waiting for a slot) */
  held: number;
  /** most checks late at once while both workers ran (after the first interval's start) */
  lateBefore: number;
  /** most checks late at once after the kill */
  lateAfter: number;
  /** from the kill until no due check was late any more; null when some still were at the end of the observation */
  recoverySeconds: number | null;
}

// Time to start the two workers (tsx) on a busy machine before the first slots.
const START_DELAY_MS = 30_000;
const SAMPLE_MS = 500;
// After the kill, observed this long past the lease and one cycle.
const OBSERVE_EXTRA_MS = 30_000;
// A live worker's check is recorded well within this; a lease claimed before the kill and still live then was the dead worker's.
const HELD_AFTER_MS = 2_000;
// The worker that recorded more checks over this last part of the warm-up is killed.
const BUSIEST_OVER_MS = 5_000;

/** Checks a worker recorded so far, from its /metrics. */
async function recordedChecks(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  let sum = 0;
  for (const match of text.matchAll(/^pagewatch_checks_total\{[^}]*outcome="recorded"[^}]*\} ([0-9.e+-]+)$/gm)) sum += Number(match[1]);
  return sum;
}

async function lateChecks(db: Database, lateSeconds: number): Promise<number> {
  const rows = await db.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM check_state WHERE active AND next_check_at < now() - make_interval(secs => $1)',
    [lateSeconds],
  );
  return rows[0]!.n;
}

async function heldSince(db: Database, killedAt: Date): Promise<number> {
  const rows = await db.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM check_leases WHERE claimed_at < $1 AND lease_expires_at > now()',
    [killedAt],
  );
  return rows[0]!.n;
}

export async function measureTakeOver(settings: TakeOverSettings): Promise<TakeOverFigures> {
  const store = await openBenchStore('postgres');
  const server = await startPageServer({ ports: settings.ports, changeSeconds: settings.changeSeconds, delayMs: settings.pageDelayMs });
  const workers: ChildProcess[] = [];
  try {
    const { db } = store;
    const accountId = await createAccount(db);
    const seeds = Array.from({ length: settings.monitors }, (_, n) => ({
      id: randomUUID(),
      n,
      url: `${server.bases[n % server.bases.length]}/small/${n}.html`,
      nextCheckAt: new Date(Date.now() + 86_400_000),
    }));
    const ids = await insertMonitors(db, {
      accountId,
      loadMode: 'html',
      intervalMinutes: settings.intervalMinutes,
      targets: PRODUCT_TARGETS,
      monitors: seeds,
    });
    // Each monitor due at its own next slot, as on a settled service (src/domain/schedule.ts), and settled
    // seeding's capture at the slot before it.
    let start = runStart(settings.monitors, settings.settled, START_DELAY_MS);
    for (const seed of seeds) seed.nextCheckAt = ownSlotAfter(seed.id, settings.intervalMinutes, start);
    const periodMs = settings.intervalMinutes * 60_000;
    if (settings.settled)
      await simulateHistory(db, {
        accountId,
        plan: benchPlans().pro,
        targets: PRODUCT_TARGETS,
        intervalMinutes: settings.intervalMinutes,
        changeSeconds: settings.changeSeconds,
        slots: 1,
        monitors: seeds.map((seed, i) => ({
          id: ids[i]!,
          n: seed.n,
          url: seed.url,
          host: new URL(seed.url).host,
          firstAt: new Date(seed.nextCheckAt.getTime() - periodMs),
        })),
      });
    start = startAfterOverrun(start, seeds, settings.intervalMinutes, START_DELAY_MS);
    await rescheduleMonitors(db, seeds);
    for (let i = 0; i < 2; i++)
      workers.push(
        spawnPagewatch(
          ['worker'],
          {
            DATABASE_URL: store.databaseUrl!,
            PORT: '0',
            PAGEWATCH_PLANS_FILE: settings.plansFile,
            PAGEWATCH_ALLOW_PRIVATE_NETWORKS: '127.0.0.0/8',
            PAGEWATCH_WORKER_CONCURRENCY: String(settings.concurrency),
            PAGEWATCH_TICK_SECONDS: String(settings.tickSeconds),
            PAGEWATCH_LEASE_SECONDS: String(settings.leaseSeconds),
          },
          { ownProcessGroup: true, stdout: true },
        ),
      );
    const urls = await Promise.all(workers.map((worker) => listeningUrl(worker)));
    assertBefore(start, 'Seeding and starting the workers');

    await sleep(Math.max(0, start.getTime() - Date.now()));
    let lateBefore = 0;
    const killAt = Date.now() + settings.warmupSeconds * 1000;
    let recent: number[] = [];
    while (Date.now() < killAt) {
      lateBefore = Math.max(lateBefore, await lateChecks(db, settings.lateSeconds));
      if (killAt - Date.now() < BUSIEST_OVER_MS && recent.length === 0) recent = await Promise.all(urls.map(recordedChecks));
      await sleep(SAMPLE_MS);
    }
    const now = await Promise.all(urls.map(recordedChecks));
    const busiest = now[0]! - recent[0]! >= now[1]! - recent[1]! ? 0 : 1;
    process.kill(-workers[busiest]!.pid!, 'SIGKILL');
    const killedAt = Date.now();
    let held: number | null = null;
    let lateAfter = 0;
    let lastLate: number | null = null;
    let onTimeAgain: number | null = null;
    const observeUntil = killedAt + (settings.leaseSeconds + settings.tickSeconds) * 1000 + OBSERVE_EXTRA_MS;
    while (Date.now() < observeUntil) {
      const late = await lateChecks(db, settings.lateSeconds);
      const at = Date.now();
      lateAfter = Math.max(lateAfter, late);
      if (held === null && at >= killedAt + HELD_AFTER_MS) held = await heldSince(db, new Date(killedAt));
      if (late > 0) {
        lastLate = at;
        onTimeAgain = null;
      } else if (lastLate !== null && onTimeAgain === null) onTimeAgain = at;
      await sleep(SAMPLE_MS);
    }
    const recovered = lastLate === null ? killedAt : onTimeAgain;
    return { held: held ?? 0, lateBefore, lateAfter, recoverySeconds: recovered === null ? null : (recovered - killedAt) / 1000 };
  } finally {
    await Promise.all(workers.map((worker) => stopChild(worker)));
    await server.close();
    await store.close();
  }
}
