import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ExtractionPool, ExtractionTimeout, extractWithin } from '../../src/extraction/extraction-pool.ts';
import type { Target } from '../../src/domain/targets.ts';
import type { JobTicket } from '../../src/domain/fair-queue.ts';

// The extraction threads: results as the domain functions give them, a time
// budget no job outlives, and no thread left running after close().

const TITLE: Target = { id: 't', kind: 'text', selection: { scope: 'selector', selector: '#t' } };
/** An extraction thread whose jobs block it for as many milliseconds as their page says. */
const SLOW_WORKER = new URL('../helpers/slow-extraction-worker.mjs', import.meta.url);
const CHECK: JobTicket = { account: 'acct', lane: 'check' };
const BIG = `<html><body>${Array.from({ length: 150_000 }, (_, i) => `<div><span class="price">€${i}.99</span></div>`).join('')}</body></html>`;

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
  const pool = new ExtractionPool({ size: 1, budgetMs: 50 });
  try {
    await assert.rejects(pool.preview(BIG, 'http://x/', CHECK), ExtractionTimeout);
    const [late] = await extractWithin(pool, BIG, 'http://x/', [TITLE], CHECK);
    assert.equal(late?.issues[0]?.code, 'extraction_timeout');
    const [next] = await pool.targets('<h1 id="t">Next</h1>', 'http://x/', [TITLE], CHECK);
    assert.equal(next?.value, 'Next', 'a fresh thread took over');
  } finally {
    await pool.close();
  }
});

test('a job sent to a thread behind one that runs out of budget is not failed with it: the fresh thread runs it', async () => {
  const pool = new ExtractionPool({ size: 1, budgetMs: 50 });
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
