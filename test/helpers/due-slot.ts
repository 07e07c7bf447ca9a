import { randomUUID } from 'node:crypto';
import { stableOffsetSeconds } from '../../src/domain/schedule.ts';

/**
 * A monitor id whose own slot (schedules keep a stable phase per monitor)
 * fell due in the 30 seconds before `at`, and that slot: checked now, the
 * monitor is next due a whole interval later, as in steady operation.
 */
export function idDueJustBefore(at: Date, intervalMinutes: number): { id: string; due: Date } {
  const periodMs = intervalMinutes * 60_000;
  for (let tries = 0; tries < 100_000; tries++) {
    const id = randomUUID();
    const offsetMs = stableOffsetSeconds(id, intervalMinutes) * 1000;
    const due = new Date(offsetMs + Math.floor((at.getTime() - offsetMs) / periodMs) * periodMs);
    if (at.getTime() - due.getTime() < 30_000) return { id, due };
  }
  throw new Error('no monitor id found whose slot fell due just now');
}
