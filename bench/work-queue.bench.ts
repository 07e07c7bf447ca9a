import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { insertPreview } from '../src/store/previews-store.ts';
import { createAccountWithToken, startTestApp, type TestApp } from '../test/helpers/test-app.ts';
import { BENCH_PLAN_OVERRIDES } from './lib/plans.ts';
import { fmt, publish, table } from './lib/report.ts';

// Issue #36 item 2: one account floods POST /previews/{id}/evaluate with
// costly evaluations (a large page) while another account evaluates a small
// preview one request at a time, and /healthz is polled. The victim's latency
// under the flood is compared with its latency alone, in the same run; the
// flooder's refusals (503 busy) are counted. Real HTTP over loopback, the real
// extraction threads, the embedded store.
//
//   BENCH_QUEUE_DIVS      elements of the flooder's page (default 60000)
//   BENCH_QUEUE_FLOODERS  the flooder's concurrent connections (default 8)
//   BENCH_QUEUE_REQUESTS  the victim's evaluations per phase (default 20)

const DIVS = Number(process.env.BENCH_QUEUE_DIVS ?? 60_000);
const FLOODERS = Number(process.env.BENCH_QUEUE_FLOODERS ?? 8);
const REQUESTS = Number(process.env.BENCH_QUEUE_REQUESTS ?? 20);
const TARGETS = { targets: [{ id: 't', kind: 'text', selection: { scope: 'page' } }] };

async function previewOf(t: TestApp, accountId: string, html: string): Promise<string> {
  const id = randomUUID();
  const now = new Date();
  await insertPreview(t.db, {
    id,
    account_id: accountId,
    url: 'https://shop.example/',
    final_url: 'https://shop.example/',
    load_mode: 'html',
    title: null,
    html,
    format: 'html',
    body: null,
    elements: [],
    steps: [],
    step_failed: false,
    step_outcomes: [],
    created_at: now,
    expires_at: new Date(now.getTime() + 3_600_000),
  });
  return id;
}

async function timed(call: () => Promise<Response>): Promise<{ ms: number; status: number }> {
  const started = performance.now();
  const res = await call();
  await res.arrayBuffer();
  return { ms: performance.now() - started, status: res.status };
}

function percentile(values: number[], p: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

interface Phase {
  victim: number[];
  victimErrors: number;
  healthz: number[];
  flood: Map<number, number>;
}

async function phase(
  base: string,
  victim: { token: string; previewId: string },
  flooder: { token: string; previewId: string } | null,
): Promise<Phase> {
  const result: Phase = { victim: [], victimErrors: 0, healthz: [], flood: new Map() };
  let running = true;
  const evaluate = (who: { token: string; previewId: string }) =>
    fetch(`${base}/api/v1/previews/${who.previewId}/evaluate`, {
      method: 'POST',
      headers: { authorization: `Bearer ${who.token}`, 'content-type': 'application/json' },
      body: JSON.stringify(TARGETS),
    });
  const floods = flooder
    ? Array.from({ length: FLOODERS }, async () => {
        while (running) {
          const { status } = await timed(() => evaluate(flooder));
          result.flood.set(status, (result.flood.get(status) ?? 0) + 1);
        }
      })
    : [];
  const probe = (async () => {
    while (running) {
      result.healthz.push((await timed(() => fetch(`${base}/healthz`))).ms);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  // The flood gets a head start, so the victim arrives at a full queue.
  if (flooder) await new Promise((resolve) => setTimeout(resolve, 2_000));
  for (let i = 0; i < REQUESTS; i += 1) {
    const { ms, status } = await timed(() => evaluate(victim));
    if (status === 200) result.victim.push(ms);
    else result.victimErrors += 1;
  }
  running = false;
  await Promise.all([...floods, probe]);
  return result;
}

const t = await startTestApp({ plans: BENCH_PLAN_OVERRIDES, env: { LOG_LEVEL: 'silent' } });
try {
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  const victimAccount = await createAccountWithToken(t.app);
  const flooderAccount = await createAccountWithToken(t.app);
  const big = `<html><body>${Array.from({ length: DIVS }, (_, i) => `<div><p>item ${i} <span>€${i}.99</span></p></div>`).join('')}</body></html>`;
  const victim = {
    token: victimAccount.token,
    previewId: await previewOf(t, victimAccount.accountId, '<html><body><h1>Kettle</h1></body></html>'),
  };
  const flooder = { token: flooderAccount.token, previewId: await previewOf(t, flooderAccount.accountId, big) };
  // The threads start (and compile their code) on first use, not within a measurement.
  await fetch(`${base}/api/v1/previews/${victim.previewId}/evaluate`, {
    method: 'POST',
    headers: { authorization: `Bearer ${victim.token}`, 'content-type': 'application/json' },
    body: JSON.stringify(TARGETS),
  }).then((res) => res.arrayBuffer());
  const alone = await phase(base, victim, null);
  const flooded = await phase(base, victim, flooder);
  const row = (name: string, p: Phase) => [
    name,
    fmt(percentile(p.victim, 50)),
    fmt(percentile(p.victim, 100)),
    p.victimErrors,
    fmt(percentile(p.healthz, 50)),
    fmt(percentile(p.healthz, 100)),
    [...p.flood].map(([status, n]) => `${n} × ${status}`).join(', ') || '—',
  ];
  publish(
    'work-queue',
    `## Work queues: a victim's evaluate under another account's flood (#36)\n\n` +
      `${FLOODERS} connections of one account evaluating a page of ${DIVS.toLocaleString('en-US')} elements; ` +
      `the victim evaluates a small preview ${REQUESTS} times in a row; /healthz polled every 100 ms. Milliseconds.\n\n` +
      table(
        ['phase', 'victim evaluate p50', 'victim max', 'victim errors', '/healthz p50', '/healthz max', 'flooder answers'],
        [row('alone', alone), row('under the flood', flooded)],
      ),
  );
} finally {
  await t.close();
}
