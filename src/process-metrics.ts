import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { QueueObserver } from './domain/fair-queue.ts';

// Prometheus metrics of one process, served at /metrics. A registry per
// process (not the library's global one) so tests and several apps in one
// process don't share counters.

export interface Metrics {
  registry: Registry;
  httpRequests: Counter<'method' | 'route' | 'status'>;
  httpDuration: Histogram<'method' | 'route'>;
  checks: Counter<'mode' | 'outcome'>;
  queueLagSeconds: Gauge;
  leaseExpiries: Counter;
  checkExceptions: Counter;
  diffStoreFailures: Counter;
  notificationDeliveries: Counter<'channel' | 'outcome'>;
  workQueueDepth: Gauge<'queue' | 'kind' | 'lane'>;
  workQueueWait: Histogram<'queue' | 'kind' | 'lane'>;
}

/** The observer of one work queue (`extraction`, `browser`), reporting into these metrics. */
export function queueObserver(metrics: Metrics, queue: string): QueueObserver {
  return {
    depth: (kind, lane, waiting) => metrics.workQueueDepth.set({ queue, kind, lane }, waiting),
    waited: (kind, lane, seconds) => metrics.workQueueWait.observe({ queue, kind, lane }, seconds),
  };
}

export function createMetrics(options: { processMetrics?: boolean } = {}): Metrics {
  const registry = new Registry();
  if (options.processMetrics) collectDefaultMetrics({ register: registry, prefix: 'pagewatch_' });
  return {
    registry,
    httpRequests: new Counter({
      name: 'pagewatch_http_requests_total',
      help: 'HTTP requests by method, route pattern and status',
      labelNames: ['method', 'route', 'status'],
      registers: [registry],
    }),
    httpDuration: new Histogram({
      name: 'pagewatch_http_request_duration_seconds',
      help: 'HTTP request duration by method and route pattern',
      labelNames: ['method', 'route'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10, 60],
      registers: [registry],
    }),
    checks: new Counter({
      name: 'pagewatch_checks_total',
      help: 'monitor checks by load mode and outcome',
      labelNames: ['mode', 'outcome'],
      registers: [registry],
    }),
    queueLagSeconds: new Gauge({
      name: 'pagewatch_queue_lag_seconds',
      help: 'how late the oldest due check was when last claimed',
      registers: [registry],
    }),
    leaseExpiries: new Counter({
      name: 'pagewatch_lease_expiries_total',
      help: 'checks claimed again after an earlier claim did not finish them (its worker died, stalled or stopped, or the renderer was busy)',
      registers: [registry],
    }),
    checkExceptions: new Counter({
      name: 'pagewatch_check_exceptions_total',
      help: 'unexpected exceptions while loading a page for a check (a bug, not a page problem): each logged with its stack, the check recorded as failed',
      registers: [registry],
    }),
    diffStoreFailures: new Counter({
      name: 'pagewatch_change_diff_failures_total',
      help: 'changes whose diff could not be computed and stored when they were recorded (their first reader computes it)',
      registers: [registry],
    }),
    notificationDeliveries: new Counter({
      name: 'pagewatch_notification_deliveries_total',
      help: 'notification delivery attempts by channel and outcome',
      labelNames: ['channel', 'outcome'],
      registers: [registry],
    }),
    workQueueDepth: new Gauge({
      name: 'pagewatch_work_queue_depth',
      help: 'jobs waiting for an extraction thread or a browser page, by queue, job kind and lane (check or interactive)',
      labelNames: ['queue', 'kind', 'lane'],
      registers: [registry],
    }),
    workQueueWait: new Histogram({
      name: 'pagewatch_work_queue_wait_seconds',
      help: 'how long a job waited for an extraction thread or a browser page, by queue, job kind and lane',
      labelNames: ['queue', 'kind', 'lane'],
      buckets: [0.001, 0.01, 0.05, 0.1, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers: [registry],
    }),
  };
}
