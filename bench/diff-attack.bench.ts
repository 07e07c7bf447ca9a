import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { createAccountWithToken, bearer, startTestApp } from '../test/helpers/test-app.ts';
import { startFixtureServer } from '../test/helpers/fixture-server.ts';
import { recordLargeTextChange } from '../test/helpers/large-text-change.ts';
import { startTestEngine } from '../test/helpers/test-engine.ts';
import { percentile } from './lib/measure.ts';
import { fmt, publish, table } from './lib/report.ts';

// Issue #36's diff attack: BENCH_DIFF_REQUESTS requests at once for the diff
// of a change between two texts of BENCH_DIFF_TEXT_BYTES that differ on every
// other line, while /healthz is probed back to back. Three phases on one
// embedded store: idle (the baseline), the diff served from the store (as
// recorded by the engine), and the diff missing from the store (a change
// recorded before diffs were stored: the first reads compute it in the
// extraction threads).
//
//   BENCH_DIFF_TEXT_BYTES  size of each captured text (default 900000)
//   BENCH_DIFF_REQUESTS    diff requests at once (default 5)

const TEXT_BYTES = Number(process.env.BENCH_DIFF_TEXT_BYTES ?? 900_000);
const REQUESTS = Number(process.env.BENCH_DIFF_REQUESTS ?? 5);

const t = await startTestApp({ plans: { pro: { requests_per_minute: 10_000, requests_per_day: 100_000 } } });
const site = await startFixtureServer();
const engine = startTestEngine(t);
try {
  const { accountId, token } = await createAccountWithToken(t.app);
  const changeId = await recordLargeTextChange(t, site, engine, accountId, TEXT_BYTES);
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;

  /** /healthz latencies (ms) while `load` runs, or for `count` probes when there is none. */
  async function probeDuring(load: (() => Promise<unknown>) | null, count = 30): Promise<number[]> {
    const waits: number[] = [];
    let done = load === null;
    const running = load?.().finally(() => (done = true));
    while (load === null ? waits.length < count : !done) {
      const started = performance.now();
      await (await fetch(`${base}/healthz`)).arrayBuffer();
      waits.push(performance.now() - started);
    }
    await running;
    return waits.sort((a, b) => a - b);
  }
  const flood = () =>
    Promise.all(
      Array.from({ length: REQUESTS }, () =>
        fetch(`${base}/api/v1/changes/${changeId}`, { headers: bearer(token) }).then((r) => r.arrayBuffer()),
      ),
    );

  const idle = await probeDuring(null);
  const stored = await probeDuring(flood);
  await t.db.query('DELETE FROM change_diffs WHERE change_id = $1', [changeId]);
  const missing = await probeDuring(flood);
  const row = (name: string, waits: number[]) => [
    name,
    waits.length,
    fmt(percentile(waits, 50)),
    fmt(percentile(waits, 99)),
    fmt(waits.at(-1) ?? null),
  ];
  publish(
    'diff-attack',
    `## Diff attack: /healthz while large diffs are requested

${REQUESTS} requests at once for GET /api/v1/changes/{id} of a change between two ${fmt(TEXT_BYTES / 1000, 0)} KB texts differing on every
other line (embedded store). Before the diffs moved to the extraction threads, one such request held /healthz for seconds.

${table(
  ['phase', '/healthz probes', 'p50 ms', 'p99 ms', 'max ms'],
  [row('idle (baseline)', idle), row('diff read from the store', stored), row('diff computed in the threads on first read', missing)],
)}
`,
  );
} finally {
  await engine.stop();
  await t.close();
  await site.close();
}
