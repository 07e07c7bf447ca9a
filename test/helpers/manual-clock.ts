import type { Clock } from '../../src/clock.ts';

/** A clock that moves only when a test says so. */
export class ManualClock implements Clock {
  private current: number;

  constructor(start: Date | string = '2026-03-10T12:00:00.000Z') {
    this.current = new Date(start).getTime();
  }

  now(): Date {
    return new Date(this.current);
  }

  advance(ms: number): void {
    this.current += ms;
  }

  set(at: Date | string): void {
    this.current = new Date(at).getTime();
  }
}
