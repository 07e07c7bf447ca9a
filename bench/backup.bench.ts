import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { systemClock } from '../src/clock.ts';
import { takeBackup } from '../src/services/store-backup.ts';
import { openDatabase } from '../src/store/open-database.ts';
import { percentile, sleep } from './lib/measure.ts';
import { PRODUCT_TARGETS } from './lib/pages.ts';
import { fmt, mib, publish, ratio, table } from './lib/report.ts';
import { createAccount, insertMonitors } from './lib/seed.ts';

// What `pagewatch backup` costs a running server on the embedded store: a
// probe reads one monitor by id every 5 ms (what a request or a check claim
// waits behind) first with no backup (the baseline), then while backups run;
// the backup holds the store still only while it copies the data directory.

const MONITORS = Number(process.env.BENCH_BACKUP_MONITORS ?? 100_000);
const BASELINE_MS = 5_000;
const BACKUPS = 3;

const parent = mkdtempSync(join(tmpdir(), 'pw-bench-backup-'));
try {
  const db = await openDatabase({ databaseUrl: null, dataDir: join(parent, 'data') });
  const accountId = await createAccount(db);
  const now = new Date();
  const ids = await insertMonitors(db, {
    accountId,
    loadMode: 'html',
    intervalMinutes: 60,
    targets: PRODUCT_TARGETS,
    monitors: Array.from({ length: MONITORS }, (_, n) => ({ url: `http://shop-${n % 500}.test/p/${n}`, nextCheckAt: now })),
  });

  let probing = true;
  const probe = async (samples: number[]) => {
    for (let i = 0; probing; i++) {
      const started = performance.now();
      await db.query('SELECT id, url FROM monitors WHERE id = $1', [ids[i % ids.length]]);
      samples.push(performance.now() - started);
      await sleep(5);
    }
  };

  const baseline: number[] = [];
  const baselineRun = probe(baseline);
  await sleep(BASELINE_MS);
  probing = false;
  await baselineRun;

  const during: number[] = [];
  const backups: { totalMs: number; heldMs: number; bytes: number }[] = [];
  probing = true;
  const duringRun = probe(during);
  for (let i = 0; i < BACKUPS; i++) {
    const started = performance.now();
    const file = await takeBackup(db, systemClock);
    const header = JSON.parse(file.subarray(file.indexOf(0x0a) + 1, file.indexOf(0x0a, file.indexOf(0x0a) + 1)).toString()) as {
      held_ms: number;
    };
    backups.push({ totalMs: performance.now() - started, heldMs: header.held_ms, bytes: file.length });
  }
  probing = false;
  await duringRun;
  await db.close();

  const sortedBase = [...baseline].sort((a, b) => a - b);
  const sortedDuring = [...during].sort((a, b) => a - b);
  const heldMs = backups.map((b) => b.heldMs).sort((a, b) => a - b);
  const totalMs = backups.map((b) => b.totalMs).sort((a, b) => a - b);
  publish(
    'backup',
    `## Backup of a running embedded store (${MONITORS.toLocaleString('en-US')} monitors)

\`pagewatch backup\` through the operator API takes a checkpoint, then copies PGlite's data directory while holding the
store still (no statement runs), then compresses the copy outside that hold. A probe reads one monitor by id every 5 ms,
first for ${BASELINE_MS / 1000} s without a backup (baseline), then during ${BACKUPS} backups back to back.

${table(
  ['measure', 'baseline (no backup)', 'during backups', 'ratio'],
  [
    [
      'probe p50',
      `${fmt(percentile(sortedBase, 50), 2)} ms`,
      `${fmt(percentile(sortedDuring, 50), 2)} ms`,
      ratio(percentile(sortedDuring, 50), percentile(sortedBase, 50)),
    ],
    [
      'probe p99',
      `${fmt(percentile(sortedBase, 99), 2)} ms`,
      `${fmt(percentile(sortedDuring, 99), 2)} ms`,
      ratio(percentile(sortedDuring, 99), percentile(sortedBase, 99)),
    ],
    [
      'probe max',
      `${fmt(sortedBase.at(-1) ?? null, 1)} ms`,
      `${fmt(sortedDuring.at(-1) ?? null, 1)} ms`,
      ratio(sortedDuring.at(-1) ?? null, sortedBase.at(-1) ?? null),
    ],
  ],
)}

${table(
  ['backup', 'median', 'max'],
  [
    ['store held still (copy of the files)', `${fmt(percentile(heldMs, 50), 0)} ms`, `${fmt(heldMs.at(-1) ?? null, 0)} ms`],
    ['whole backup (checkpoint, copy, gzip)', `${fmt(percentile(totalMs, 50), 0)} ms`, `${fmt(totalMs.at(-1) ?? null, 0)} ms`],
    ['backup file', mib(backups[0]!.bytes), ''],
  ],
)}
`,
  );
} finally {
  rmSync(parent, { recursive: true, force: true });
}
