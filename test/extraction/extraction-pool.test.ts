import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ExtractionPool } from '../../src/extraction/extraction-pool.ts';
import { ExtractionTimeout } from '../../src/extraction/queue-errors.ts';
import { extractWithin } from '../../src/extraction/timed-extraction.ts';
import type { Target } from '../../src/domain/targets.ts';
import type { JobTicket } from '../../src/domain/fair-queue.ts';
import { makePdf } from '../helpers/pdf-documents.ts';

// The extraction threads: results as the domain functions give them, a time
// budget no job outlives, and no thread left running after close().

const TITLE: Target = { id: 't', kind: 'text', selection: { scope: 'selector', selector: '#t' } };
/** An extraction thread whose jobs block it for as many milliseconds as their page says. */
const SLOW_WORKER = new URL('../helpers/slow-extraction-worker.mjs', import.meta.url);
/** An extraction thread whose jobs answer with its thread id. */
const THREAD_ID_WORKER = new URL('../helpers/thread-id-extraction-worker.mjs', import.meta.url);
const CHECK: JobTicket = { account: 'acct', lane: 'check' };
const BIG = `<html><body>${Array.from({ length: 150_000 }, (_, i) => `<div><span class="price">€${i}.99</span></div>`).join('')}</body></html>`;
/** A page whose whole text takes several seconds to read (47 MB: made when a test sends it, not kept by the batch's process). */
const hugePage = () => `<html><body>${'<div><span class="price">EUR 10.99</span></div>'.repeat(1_000_000)}</body></html>`;
const PAGE_TEXT: Target = { id: 't', kind: 'text', selection: { scope: 'page' } };
// A budget a small page meets even on a loaded machine (a fresh thread's first
// job, cold, behind other processes), while BIG's preview and the huge page's text
// take over ten times as long on a quiet one: no race either way.
const BUDGET_MS = 500;

test('targets are read in a thread, as extractTarget reads them', async () => {
  const pool = new ExtractionPool({ size: 1 });
  try {
    const [result] = await pool.targets('<html><body><h1 id="t">Kettle</h1></body></html>', 'http://x/', [TITLE], CHECK);
    assert.deepEqual([result?.ok, result?.value], [true, 'Kettle']);
  } finally {
    await pool.close();
  }
});

test('a page handed over as bytes is decoded in the thread, by its charset, with what the store cannot hold replaced', async () => {
  const pool = new ExtractionPool({ size: 1 });
  try {
    const bytes = Buffer.from('<html><body><h1 id="t">Caf\xe9\u0000</h1></body></html>', 'latin1');
    const [result] = await pool.targets({ bytes, charset: 'windows-1252' }, 'http://x/', [TITLE], CHECK);
    assert.equal(result?.value, 'Caf\u00e9\ufffd');
  } finally {
    await pool.close();
  }
});

test('a job past its budget is stopped with an extraction_timeout issue per target, and the pool goes on', async () => {
  const pool = new ExtractionPool({ size: 1, budgetMs: BUDGET_MS });
  try {
    await assert.rejects(pool.preview(BIG, 'http://x/', CHECK), ExtractionTimeout);
    const [late] = await extractWithin(pool, hugePage(), 'http://x/', [PAGE_TEXT], CHECK);
    assert.equal(late?.issues[0]?.code, 'extraction_timeout');
    const [next] = await pool.targets('<h1 id="t">Next</h1>', 'http://x/', [TITLE], CHECK);
    assert.equal(next?.value, 'Next', 'a fresh thread took over');
  } finally {
    await pool.close();
  }
});

test('a job sent to a thread behind one that runs out of budget is not failed with it: the fresh thread runs it', async () => {
  const pool = new ExtractionPool({ size: 1, budgetMs: BUDGET_MS });
  try {
    const [late, next] = await Promise.allSettled([
      pool.preview(BIG, 'http://x/', CHECK),
      pool.targets('<h1 id="t">Next</h1>', 'http://x/', [TITLE], CHECK),
    ]);
    assert.ok(late.status === 'rejected' && late.reason instanceof ExtractionTimeout);
    assert.equal(next.status === 'fulfilled' ? next.value[0]?.value : next.reason, 'Next');
  } finally {
    await pool.close();
  }
});

test("a job's budget starts when its thread takes it, not while it waits behind another", async () => {
  // Each job blocks its thread for 650 ms: alone within the 1,000 ms budget, but not if the second job's budget ran from
  // when it was sent, behind the first (1,300 ms).
  const pool = new ExtractionPool({ size: 1, budgetMs: 1000, workerUrl: SLOW_WORKER });
  try {
    const results = await Promise.all([
      extractWithin(pool, '650', 'http://x/', [TITLE], CHECK),
      extractWithin(pool, '650', 'http://x/', [TITLE], CHECK),
    ]);
    assert.deepEqual(
      results.map((targets) => targets.flatMap((target) => target.issues.map((issue) => issue.code))),
      [[], []],
    );
  } finally {
    await pool.close();
  }
});

test('close() leaves no thread running and refuses later jobs', async () => {
  const pool = new ExtractionPool({ size: 2 });
  await Promise.all([
    pool.targets('<h1 id="t">a</h1>', 'http://x/', [TITLE], CHECK),
    pool.targets('<h1 id="t">b</h1>', 'http://x/', [TITLE], CHECK),
  ]);
  assert.equal(pool.threads, 2);
  await pool.close();
  assert.equal(pool.threads, 0);
  await assert.rejects(pool.targets('<h1 id="t">c</h1>', 'http://x/', [TITLE], CHECK), /closed/);
});

test('threads start on first use, not when the pool is made', async () => {
  const pool = new ExtractionPool({ size: 2 });
  try {
    assert.equal(pool.threads, 0);
    await pool.targets('<h1 id="t">Kettle</h1>', 'http://x/', [TITLE], CHECK);
    assert.ok(pool.threads >= 1);
  } finally {
    await pool.close();
  }
});

test('a thread without a job for the idle time stops, and the next job starts one again', async () => {
  const pool = new ExtractionPool({ size: 1, idleMs: 200 });
  try {
    await pool.targets('<h1 id="t">Kettle</h1>', 'http://x/', [TITLE], CHECK);
    assert.equal(pool.threads, 1);
    const until = Date.now() + 10_000;
    while (pool.threads > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    assert.equal(pool.threads, 0, 'the idle thread stopped');
    const [again] = await pool.targets('<h1 id="t">Again</h1>', 'http://x/', [TITLE], CHECK);
    assert.equal(again?.value, 'Again');
    assert.equal(pool.threads, 1);
  } finally {
    await pool.close();
  }
});

test('a thread that gets a job within each idle time is kept, not replaced', async () => {
  const pool = new ExtractionPool({ size: 1, idleMs: 400, workerUrl: THREAD_ID_WORKER });
  try {
    const ran: unknown[] = [];
    // Six jobs 150 ms apart: 0.9 s in all, more than two idle times, never one idle time without a job.
    for (let i = 0; i < 6; i++) {
      ran.push(await pool.preview('', 'http://x/', CHECK));
      await new Promise((r) => setTimeout(r, 150));
    }
    assert.equal(new Set(ran).size, 1, `one thread ran every job: ${ran.join(', ')}`);
    await new Promise((r) => setTimeout(r, 1000));
    assert.notEqual(await pool.preview('', 'http://x/', CHECK), ran[0], 'after an idle time, a new thread');
  } finally {
    await pool.close();
  }
});

const pdfSource = () => ({ bytes: makePdf([{ lines: [{ text: 'Timetable 2026' }] }]), charset: null, format: 'pdf' as const });

test('loading PDF.js for a thread’s first PDF does not count against that PDF’s budget', async () => {
  // Loading PDF.js takes longer than this budget; reading a one-line PDF does not.
  const pool = new ExtractionPool({ size: 1, budgetMs: 1000 });
  try {
    const [result] = await pool.targets(pdfSource(), 'http://x/t.pdf', [PAGE_TEXT], CHECK);
    assert.deepEqual([result?.ok, result?.text], [true, 'Timetable 2026']);
  } finally {
    await pool.close();
  }
});

test('a job sent behind a PDF to the same thread answers after it, each with its own result', async () => {
  const pool = new ExtractionPool({ size: 1, budgetMs: 5000 });
  try {
    const [pdf, page] = await Promise.all([
      pool.targets(pdfSource(), 'http://x/t.pdf', [PAGE_TEXT], CHECK),
      pool.targets('<html><body><h1 id="t">Kettle</h1></body></html>', 'http://x/', [TITLE], CHECK),
    ]);
    assert.equal(pdf[0]?.text, 'Timetable 2026');
    assert.equal(page[0]?.value, 'Kettle');
  } finally {
    await pool.close();
  }
});
