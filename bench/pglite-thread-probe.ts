import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import autocannon from 'autocannon';
import Fastify from 'fastify';
import { openDatabase } from '../src/store/open-database.ts';
import { PRODUCT_TARGETS } from './lib/pages.ts';
import { fmt, table } from './lib/report.ts';
import { createAccount, insertMonitors } from './lib/seed.ts';

// Issue #13 item 3, measured before building it: would PGlite in a
// worker_thread (one message per query) serve the API's stored read faster than
// PGlite on the HTTP event loop? Both serve baseline (b) of bench/api.bench.ts,
// a Fastify route that reads one monitor row with one SELECT, from the same
// data directory (opened by one of them at a time), interleaved.
//
//   BENCH_THREAD_SECONDS  duration of each autocannon run (default 10)
//   BENCH_THREAD_ROUNDS   rounds of the pair (default 2)

const SECONDS = Number(process.env.BENCH_THREAD_SECONDS ?? 10);
const ROUNDS = Number(process.env.BENCH_THREAD_ROUNDS ?? 2);
const SQL = 'SELECT * FROM monitors WHERE id = $1';

type Query = (sql: string, params: unknown[]) => Promise<unknown[]>;

async function serve(query: Query, id: string): Promise<{ rps: number; p50: number; p99: number; non2xx: number }> {
  const app = Fastify({ logger: false });
  app.get<{ Params: { id: string } }>('/monitors/:id', async (request) => ({ data: (await query(SQL, [request.params.id]))[0] }));
  await app.listen({ port: 0, host: '127.0.0.1' });
  const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/monitors/${id}`;
  try {
    await autocannon({ url, connections: 50, duration: 1, workers: 1 });
    const r = await autocannon({ url, connections: 50, duration: SECONDS, workers: 1 });
    return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx + r.errors + r.timeouts };
  } finally {
    await app.close();
  }
}

async function inThread(dataDir: string, id: string) {
  const db = await openDatabase({ databaseUrl: null, dataDir });
  try {
    return await serve((sql, params) => db.query(sql, params), id);
  } finally {
    await db.close();
  }
}

async function inWorker(dataDir: string, id: string) {
  const worker = new Worker(new URL('./lib/pglite-thread.mjs', import.meta.url), { workerData: { dataDir } });
  const waiting = new Map<number, { resolve: (rows: unknown[]) => void; reject: (err: Error) => void }>();
  let next = 0;
  await new Promise<void>((resolve) => {
    worker.on('message', (m: { ready?: boolean; id: number; rows?: unknown[]; error?: string }) => {
      if (m.ready) return resolve();
      const w = waiting.get(m.id)!;
      waiting.delete(m.id);
      if (m.error) w.reject(new Error(m.error));
      else w.resolve(m.rows!);
    });
  });
  const query: Query = (sql, params) =>
    new Promise((resolve, reject) => {
      const n = next++;
      waiting.set(n, { resolve, reject });
      worker.postMessage({ id: n, sql, params });
    });
  try {
    return await serve(query, id);
  } finally {
    await worker.terminate();
  }
}

const dataDir = mkdtempSync(join(tmpdir(), 'pagewatch-thread-'));
try {
  const db = await openDatabase({ databaseUrl: null, dataDir });
  const accountId = await createAccount(db);
  const [id] = await insertMonitors(db, {
    accountId,
    loadMode: 'html',
    intervalMinutes: 60,
    targets: PRODUCT_TARGETS,
    monitors: [{ url: 'https://shop.example/product/1.html', nextCheckAt: new Date(Date.now() + 3_600_000) }],
  });
  await db.close();
  const rows: (string | number)[][] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    for (const [what, run] of [
      ['on the event loop', inThread],
      ['in a worker_thread', inWorker],
    ] as const) {
      const f = await run(dataDir, id!);
      rows.push([round, what, fmt(f.rps, 0), fmt(f.p50, 0), fmt(f.p99, 0), f.non2xx]);
    }
  }
  console.log(table(['round', 'PGlite', 'req/s', 'p50 ms', 'p99 ms', 'non-2xx'], rows));
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
