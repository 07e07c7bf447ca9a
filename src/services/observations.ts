import type { Static } from '@sinclair/typebox';
import { isObservedValue, type ObservedValue } from '../domain/observed-value.ts';
import { targetFingerprint } from '../domain/target-fingerprint.ts';
import type { CurrentBaseline } from '../store/monitors-store.ts';
import type { MonitorSchema, ObservationSchema } from '../schemas/monitors.ts';

// Each target's current observation: the value its baseline holds (what the
// next capture is compared with), since when, and the latest check's issues
// for it. A baseline made for another configuration of the target is not its
// current value: the next capture seeds a new one.

export type Observation = Static<typeof ObservationSchema>;

/** The parts of a monitor its observations are read for. */
export type ObservedMonitor = Pick<Static<typeof MonitorSchema>, 'id' | 'load_mode' | 'targets' | 'last_issues'>;

/** The observations of `monitor` given its stored baselines. */
export function currentObservations(monitor: ObservedMonitor, stored: CurrentBaseline[]): Observation[] {
  const baselines = new Map(stored.map((b) => [b.target_id, b]));
  return monitor.targets.map((target) => {
    const baseline = baselines.get(target.id);
    const applies =
      baseline && baseline.fingerprint === targetFingerprint(target, monitor.load_mode) && isObservedValue(target.kind, baseline.value);
    const current = applies ? baseline : null;
    return {
      target_id: target.id,
      value: current ? (current.value as ObservedValue) : null,
      display: current?.display ?? null,
      since: current?.updated_at.toISOString() ?? null,
      issues: monitor.last_issues.filter((issue) => issue.target_id === target.id || issue.target_id === null),
    };
  });
}
