import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { ConfigError, loadConfig } from '../src/config.ts';

const run = promisify(execFile);

test('PAGEWATCH_YOUNG_GENERATION: fixed unless growing is asked; anything else stops the start', () => {
  assert.equal(loadConfig({}).youngGeneration, 'fixed');
  assert.equal(loadConfig({ PAGEWATCH_YOUNG_GENERATION: 'growing' }).youngGeneration, 'growing');
  assert.throws(() => loadConfig({ PAGEWATCH_YOUNG_GENERATION: 'large' }), ConfigError);
});

/** A fresh process's new space before `sizeYoungGeneration(mode)`, and after it and ~50 MB of short-lived objects. */
async function newSpaceAfterAllocating(mode: string): Promise<{ before: number; after: number }> {
  const script = `import { getHeapSpaceStatistics } from 'node:v8';
const newSpace = () => getHeapSpaceStatistics().find((space) => space.space_name === 'new_space').space_size;
const { sizeYoungGeneration } = await import(${JSON.stringify(import.meta.resolve('../src/heap-sizing.ts'))});
const before = newSpace();
sizeYoungGeneration(${JSON.stringify(mode)});
let kept = [];
for (let i = 0; i < 1e6; i++) { kept.push({ i, text: 'x' + i }); if (kept.length > 100000) kept = []; }
console.log(JSON.stringify({ before, after: newSpace() }));`;
  const { stdout } = await run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { timeout: 60_000 });
  return JSON.parse(stdout) as { before: number; after: number };
}

test('fixed holds the young generation at the size it has, growing lets V8 grow it', async () => {
  const fixed = await newSpaceAfterAllocating('fixed');
  assert.ok(fixed.after <= fixed.before, JSON.stringify(fixed));
  const growing = await newSpaceAfterAllocating('growing');
  assert.ok(growing.after > growing.before, JSON.stringify(growing));
});

test('fixed holds the main thread only: a worker thread started after it still grows its young generation', async () => {
  const script = `import { Worker } from 'node:worker_threads';
import { once } from 'node:events';
const { sizeYoungGeneration } = await import(${JSON.stringify(import.meta.resolve('../src/heap-sizing.ts'))});
sizeYoungGeneration('fixed');
// the thread's source is a module too (it inherits --input-type=module)
const thread = new Worker(\`const { getHeapSpaceStatistics } = await import('node:v8');
const { parentPort } = await import('node:worker_threads');
const newSpace = () => getHeapSpaceStatistics().find((space) => space.space_name === 'new_space').space_size;
const before = newSpace();
let kept = [];
for (let i = 0; i < 1e6; i++) { kept.push({ i, text: 'x' + i }); if (kept.length > 100000) kept = []; }
parentPort.postMessage({ before, after: newSpace() });\`, { eval: true });
const [sizes] = await once(thread, 'message');
console.log(JSON.stringify(sizes));`;
  const { stdout } = await run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { timeout: 60_000 });
  const thread = JSON.parse(stdout) as { before: number; after: number };
  // If a later Node holds threads too, DESIGN.md, operations.md and heap-sizing.ts say otherwise and need changing.
  assert.ok(thread.after > thread.before, JSON.stringify(thread));
});
