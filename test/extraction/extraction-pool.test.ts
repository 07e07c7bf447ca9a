import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ExtractionPool, ExtractionTimeout, extractWithin } from '../../src/extraction/extraction-pool.ts';
import type { Target } from '../../src/domain/targets.ts';

// The extraction threads: results as the domain functions give them, a time
// budget no job outlives, and no thread left running after close().

const TITLE: Target = { id: 't', kind: 'text', selection: { scope: 'selector', selector: '#t' } };
const BIG = `<html><body>${Array.from({ length: 150_000 }, (_, i) => `<div><span class="price">€${i}.99</span></div>`).join('')}</body></html>`;

test('targets are read in a thread, as extractTarget reads them', async () => {
  const pool = new ExtractionPool({ size: 1 });
  try {
    const [result] = await pool.targets('<html><body><h1 id="t">Kettle</h1></body></html>', 'http://x/', [TITLE]);
    assert.deepEqual([result?.ok, result?.value], [true, 'Kettle']);
  } finally {
    await pool.close();
  }
});

test('a job past its budget is stopped with an extraction_timeout issue per target, and the pool goes on', async () => {
  const pool = new ExtractionPool({ size: 1, budgetMs: 50 });
  try {
    await assert.rejects(pool.preview(BIG, 'http://x/'), ExtractionTimeout);
    const [late] = await extractWithin(pool, BIG, 'http://x/', [TITLE]);
    assert.equal(late?.issues[0]?.code, 'extraction_timeout');
    const [next] = await pool.targets('<h1 id="t">Next</h1>', 'http://x/', [TITLE]);
    assert.equal(next?.value, 'Next', 'a fresh thread took over');
  } finally {
    await pool.close();
  }
});

test('close() leaves no thread running and refuses later jobs', async () => {
  const pool = new ExtractionPool({ size: 2 });
  await Promise.all([pool.targets('<h1 id="t">a</h1>', 'http://x/', [TITLE]), pool.targets('<h1 id="t">b</h1>', 'http://x/', [TITLE])]);
  assert.equal(pool.threads, 2);
  await pool.close();
  assert.equal(pool.threads, 0);
  await assert.rejects(pool.targets('<h1 id="t">c</h1>', 'http://x/', [TITLE]), /closed/);
});
