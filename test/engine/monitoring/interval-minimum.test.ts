import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { SteppedEngine } from '../../../src/engine/scheduler.ts';
import { bearer, createAccountWithToken, type TestApp } from '../../helpers/test-app.ts';
import type { FixtureServer } from '../../helpers/fixture-server.ts';
import { createMonitorFor, loadPreview, patchMonitor } from '../../helpers/monitor-api.ts';
import { useMonitoringWorld } from '../../helpers/monitoring-world.ts';

// The interval is a minimum between captures (specification: 5 minutes html,
// 15 minutes browser): a scheduled capture never follows the monitor's
// previous capture sooner than its interval, whatever that capture was — the
// seeding capture, a manual check, a capture before a pause, or one under the
// old interval. Manual checks may run right after a capture here (plan
// minimum 0), so that they land anywhere between scheduled slots.

let t: TestApp, site: FixtureServer, engine: SteppedEngine;
useMonitoringWorld({ plans: { pro: { min_interval_minutes: { html: 0 }, preview_spacing_seconds: 0 } } }, (w) => ({ t, site, engine } = w));

const MINUTE = 60_000;
let n = 0;

interface Capture {
  at: Date;
  manual: boolean;
}

async function capturesOf(monitorId: string): Promise<Capture[]> {
  const rows = await t.db.query<{ checked_at: Date; manual_check_id: string | null }>(
    'SELECT checked_at, manual_check_id FROM check_runs WHERE monitor_id = $1 ORDER BY checked_at',
    [monitorId],
  );
  return rows.map((r) => ({ at: r.checked_at, manual: r.manual_check_id !== null }));
}

/** Runs the engine up to `end`, one cycle at each due time of the monitors (so scheduled checks run on their slots) and at `end`. */
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
  await engine.runCycle();
}

function requestCheck(token: string, monitorId: string) {
  return t.app.inject({
    method: 'POST',
    url: `/api/v1/monitors/${monitorId}/checks`,
    headers: { ...bearer(token), 'content-type': 'application/json', 'idempotency-key': `interval-minimum-${++n}` },
    payload: '{}',
  });
}

/** Each scheduled capture's distance to the capture before it, in minutes, where it is shorter than the interval then in force. */
function tooSoon(captures: Capture[], intervalAt: (at: Date) => number): string[] {
  const found: string[] = [];
  for (let i = 1; i < captures.length; i++) {
    const { at, manual } = captures[i]!;
    const gap = (at.getTime() - captures[i - 1]!.at.getTime()) / MINUTE;
    if (!manual && gap < intervalAt(at)) found.push(`${at.toISOString()}: ${gap.toFixed(2)} min after the previous capture`);
  }
  return found;
}

test('no scheduled capture comes sooner than the interval after the previous one: seeding, manual checks, resume, interval change', async () => {
  const { token } = await createAccountWithToken(t.app);
  const start = t.clock.now().getTime();
  const at = (minutes: number) => new Date(start + minutes * MINUTE);
  const url = (name: string) => `${site.url}/shop/espresso.html?interval-minimum=${name}`;
  const five = await createMonitorFor(t.app, token, url('five'), { interval_minutes: 5 });
  const fifteen = await createMonitorFor(t.app, token, url('fifteen'), { interval_minutes: 15 });
  const both = [five, fifteen];

  // Seeding captures within the first minute, then manual checks right after them.
  await runUntil(at(1), both);
  for (const id of both) assert.equal((await requestCheck(token, id)).statusCode, 202);
  await runUntil(at(7), both);
  for (const id of both) assert.equal((await requestCheck(token, id)).statusCode, 202);
  await runUntil(at(9), both);
  // Paused two minutes after a capture and resumed at once: the capture still counts.
  assert.equal((await requestCheck(token, five)).statusCode, 202);
  await runUntil(at(10), both);
  assert.equal((await patchMonitor(t.app, token, five, { status: 'paused' })).statusCode, 200);
  await runUntil(at(11), both);
  assert.equal((await patchMonitor(t.app, token, five, { status: 'active' })).statusCode, 200);
  // A longer interval counts from the last capture under the old one.
  await runUntil(at(12), both);
  const previewId = await loadPreview(t.app, token, url('fifteen'));
  const [row] = await t.db.query<{ config_version: number }>('SELECT config_version FROM monitors WHERE id = $1', [fifteen]);
  const changed = await patchMonitor(t.app, token, fifteen, {
    preview_id: previewId,
    interval_minutes: 30,
    expected_version: row!.config_version,
  });
  assert.equal(changed.statusCode, 200, changed.body);
  await runUntil(at(100), both);

  const fives = await capturesOf(five);
  const fifteens = await capturesOf(fifteen);
  assert.deepEqual(
    tooSoon(fives, () => 5),
    [],
  );
  assert.deepEqual(
    tooSoon(fifteens, (when) => (when >= at(12) ? 30 : 15)),
    [],
  );
  // The schedule went on: about one capture per interval after the manual ones.
  assert.ok(fives.filter((c) => !c.manual).length >= 15, `${fives.length} captures of the 5-minute monitor`);
  assert.ok(fifteens.filter((c) => !c.manual).length >= 3, `${fifteens.length} captures of the 15-minute monitor`);
});

test('a manual check run while the first scheduled capture is still due is that capture: one fetch, the next an interval later', async () => {
  const { token } = await createAccountWithToken(t.app);
  const start = t.clock.now();
  const monitorId = await createMonitorFor(t.app, token, `${site.url}/shop/espresso.html?interval-minimum=first`, { interval_minutes: 5 });
  assert.equal((await requestCheck(token, monitorId)).statusCode, 202);
  await engine.runCycle();
  await runUntil(new Date(start.getTime() + 5 * MINUTE - 1), [monitorId]);

  const captures = await capturesOf(monitorId);
  assert.deepEqual(
    captures.map((c) => c.manual),
    [true],
    'the manual check is the only capture of the first interval',
  );
});

test('a scheduled capture that came late to its slot is followed by the next no sooner than the interval, on the same rhythm', async () => {
  const { token } = await createAccountWithToken(t.app);
  const monitorId = await createMonitorFor(t.app, token, `${site.url}/shop/espresso.html?interval-minimum=late`, { interval_minutes: 5 });
  // The earlier tests' monitors of the same site are paused: due at the same moments, they would take the site's
  // politeness slots and leave this monitor for a later cycle.
  await t.db.query("UPDATE monitors SET status = 'paused' WHERE id <> $1", [monitorId]);
  await t.db.query('UPDATE check_state SET active = false WHERE monitor_id <> $1', [monitorId]);
  await runUntil(new Date(t.clock.now().getTime() + MINUTE), [monitorId]);
  const slotAfter = async () => {
    const [row] = await t.db.query<{ at: Date }>('SELECT next_check_at AS at FROM check_state WHERE monitor_id = $1', [monitorId]);
    return row!.at;
  };
  // A busy worker reaches the first slot 50 s late; the next slot comes on time.
  const first = await slotAfter();
  t.clock.set(new Date(first.getTime() + 50_000));
  await engine.runCycle();
  const second = await slotAfter();
  assert.equal(second.getTime(), first.getTime() + 5 * MINUTE, 'the rhythm stays on the slots');
  t.clock.set(second);
  await engine.runCycle();
  assert.equal((await capturesOf(monitorId)).length, 2, 'the on-time slot waits: the late capture was less than 5 minutes ago');
  t.clock.set(new Date(first.getTime() + 50_000 + 5 * MINUTE));
  await engine.runCycle();

  const captures = await capturesOf(monitorId);
  assert.equal(captures.length, 3);
  assert.deepEqual(
    tooSoon(captures, () => 5),
    [],
  );
  assert.equal((await slotAfter()).getTime(), second.getTime() + 5 * MINUTE, 'and the slot after it is on the rhythm again');
});
