import { nextUtcDay, nextUtcMonth, utcDayStart, utcMonthStart } from '../clock.ts';
import type { Metric } from './usage-metrics.ts';

export function periodStart(metric: Metric, at: Date): Date {
  return metric.period === 'day' ? utcDayStart(at) : utcMonthStart(at);
}

export function periodEnd(metric: Metric, at: Date): Date {
  return metric.period === 'day' ? nextUtcDay(at) : nextUtcMonth(at);
}

export function secondsUntil(later: Date, now: Date): number {
  return Math.max(1, Math.ceil((later.getTime() - now.getTime()) / 1000));
}
