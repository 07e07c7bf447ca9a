import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { SteppedEngine } from '../../../src/engine/scheduler.ts';
import { bearer, createAccountWithToken, type TestApp } from '../../helpers/test-app.ts';
import type { FixtureServer } from '../../helpers/fixture-server.ts';
import { createMonitorFor } from '../../helpers/monitor-api.ts';
import { useMonitoringWorld } from '../../helpers/monitoring-world.ts';

// Schedules through stored monitors and the engine, on the engine's manual
// clock (issue #41): a night window in Berlin that wraps midnight, run across
// the night Berlin moves its clocks forward; a cron expression in Berlin
// across the same night; GET /monitors/{id} shows the next due time; jitter
// moves each scheduled check by a stable amount after its slot.

let t: TestApp, site: FixtureServer, engine: SteppedEngine;
useMonitoringWorld({}, (w) => ({ t, site, engine } = w));

const MINUTE = 60_000;
const BERLIN = 'Europe/Berlin';

async function capturesOf(monitorId: string): Promise<Date[]> {
  const rows = await t.db.query<{ checked_at: Date }>('SELECT checked_at FROM check_runs WHERE monitor_id = $1 ORDER BY checked_at', [
    monitorId,
  ]);
  return rows.map((r) => r.checked_at);
}

/** Runs the engine up to `end`, one cycle at each due time of the monitors (their scheduled checks run on their slots). */
async function runUntil(end: Date, monitorIds: string[]): Promise<void> {
  for (;;) {
    const [next] = await t.db.query<{ at: Date | null }>(
      'SELECT min(s.next_check_at) AS at FROM check_state s WHERE s.monitor_id = ANY($1) AND s.active',
      [monitorIds],
    );
    const due = next?.at ?? null;
    if (due === null || due > end) break;
    if (due > t.clock.now()) t.clock.set(due);
    await engine.runCycle();
  }
  t.clock.set(end);
}

function berlinHour(at: Date): number {
  return Number(new Intl.DateTimeFormat('en-US', { timeZone: BERLIN, hour: 'numeric', hourCycle: 'h23' }).format(at));
}

async function nextCheckShown(token: string, id: string): Promise<string> {
  const res = await t.app.inject({ method: 'GET', url: `/api/v1/monitors/${id}`, headers: bearer(token) });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().data.next_check_at;
}

test('a night window that wraps midnight is checked only in its local hours, an interval apart, across the spring DST change', async () => {
  t.clock.set('2026-03-28T12:00:00Z');
  const { token } = await createAccountWithToken(t.app);
  const schedule = { timezone: BERLIN, hours: { from: 22, to: 2 } };
  const id = await createMonitorFor(t.app, token, `${site.url}/shop/espresso.html?schedule=night`, { interval_minutes: 60, schedule });
  await runUntil(new Date('2026-03-31T06:00:00Z'), [id]);

  const [seed, ...scheduled] = await capturesOf(id);
  assert.ok(seed!.getTime() - new Date('2026-03-28T12:00:00Z').getTime() < MINUTE, 'the baseline is seeded at creation');
  for (const at of scheduled) {
    const hour = berlinHour(at);
    assert.ok(hour >= 22 || hour < 2, `${at.toISOString()} is at ${hour}h Berlin time`);
  }
  for (let i = 1; i < scheduled.length; i++) {
    assert.ok(scheduled[i]!.getTime() - scheduled[i - 1]!.getTime() >= 60 * MINUTE, `${scheduled[i]!.toISOString()} follows too soon`);
  }
  // Three nights of 22:00–02:00: four hourly checks each, whether Berlin is on CET or CEST.
  const nights = ['2026-03-28', '2026-03-29', '2026-03-30'].map(
    (evening) =>
      scheduled.filter(
        (at) => at >= new Date(`${evening}T18:00:00Z`) && at < new Date(new Date(`${evening}T18:00:00Z`).getTime() + 12 * 60 * MINUTE),
      ).length,
  );
  assert.deepEqual(nights, [4, 4, 4]);

  // Shown: the next night's first slot, 22:xx local on 31 March (CEST, UTC+2).
  const next = new Date(await nextCheckShown(token, id));
  assert.equal(next.toISOString().slice(0, 13), '2026-03-31T20');
});

test('a cron expression runs at its local time each day; 02:30, which the DST day lacks, runs at 03:30 that day', async () => {
  t.clock.set('2026-03-27T12:00:00Z');
  const { token } = await createAccountWithToken(t.app);
  const schedule = { timezone: BERLIN, cron: '30 2 * * *' };
  const id = await createMonitorFor(t.app, token, `${site.url}/shop/espresso.html?schedule=cron`, { interval_minutes: 60, schedule });
  await runUntil(new Date('2026-03-30T12:00:00Z'), [id]);

  const [, ...scheduled] = await capturesOf(id);
  // A scheduled check runs within a cycle of its slot: read to the minute.
  assert.deepEqual(
    scheduled.map((at) => at.toISOString().slice(0, 16)),
    ['2026-03-28T01:30', '2026-03-29T01:30', '2026-03-30T00:30'],
  );
  assert.equal(await nextCheckShown(token, id), '2026-03-31T00:30:00.000Z');
});

test('jitter_seconds moves each scheduled check 0 to that many seconds after its slot, and next_check_at shows the moved time', async () => {
  // An hour before the first slot: the first capture comes up to a minute after creation, and a slot sooner than
  // interval_minutes after it waits for the next; created at 09:30, the 10:00 slot was skipped whenever its jitter
  // was shorter than that minute's delay (1 monitor id in 20).
  t.clock.set('2026-04-01T09:00:00Z');
  const { token } = await createAccountWithToken(t.app);
  const schedule = { timezone: 'UTC', cron: '0 * * * *', jitter_seconds: 600 };
  const id = await createMonitorFor(t.app, token, `${site.url}/shop/espresso.html?schedule=jitter`, { interval_minutes: 30, schedule });
  await runUntil(new Date('2026-04-01T17:30:00Z'), [id]);

  const [, ...scheduled] = await capturesOf(id);
  assert.deepEqual(
    scheduled.map((at) => at.toISOString().slice(0, 13)),
    ['10', '11', '12', '13', '14', '15', '16', '17'].map((hour) => `2026-04-01T${hour}`),
    'one check an hour, in the hour of its slot',
  );
  const delays = scheduled.map((at) => (at.getTime() % (60 * MINUTE)) / 1000);
  assert.ok(
    delays.every((s) => s >= 0 && s <= 600),
    `each check within 600 s of its slot: ${delays.join(', ')}`,
  );
  assert.ok(new Set(delays).size > 1, `the slots are moved by different amounts: ${delays.join(', ')}`);
  const next = new Date(await nextCheckShown(token, id));
  assert.equal(next.toISOString().slice(0, 13), '2026-04-01T18');
  assert.ok(next.getTime() % (60 * MINUTE) <= 600_000, `${next.toISOString()} is within the jitter of 18:00`);
});
