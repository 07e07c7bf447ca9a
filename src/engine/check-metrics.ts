import type { Metrics } from '../process-metrics.ts';
import type { WorkItem } from '../store/procedures/claim-work.ts';
import type { RunOutcome } from './check-runner.ts';

// What one process's engine reports to Prometheus (/metrics): every check by
// load mode and outcome, how late the due work it claims is, checks that
// come back after an earlier claim never finished them, and failures it goes
// on after (an unexpected exception in a check, a diff not stored).

export type EngineMetrics = Pick<Metrics, 'checks' | 'queueLagSeconds' | 'leaseExpiries' | 'checkExceptions' | 'diffStoreFailures'>;

/** After a claim: the lag of the most overdue scheduled check claimed, 0 when there was room and nothing was due. */
export function recordClaim(metrics: EngineMetrics, items: WorkItem[], hadRoom: boolean, at: Date): void {
  // A full process claims nothing; that says nothing about the queue, so the last value stands.
  if (items.length === 0 && !hadRoom) return;
  const lags = items.filter((item) => item.scheduled && item.dueAt !== null).map((item) => at.getTime() - item.dueAt!.getTime());
  metrics.queueLagSeconds.set(Math.max(0, ...lags) / 1000);
  // attempt > 1: the lease of an earlier claim ran out (its worker died or stalled) or was handed back.
  for (const item of items) if (item.attempt > 1) metrics.leaseExpiries.inc();
}

export function recordOutcome(metrics: EngineMetrics, item: WorkItem, outcome: RunOutcome | 'error'): void {
  metrics.checks.inc({ mode: item.loadMode, outcome: outcome === 'error' ? 'error' : outcome.outcome });
}
