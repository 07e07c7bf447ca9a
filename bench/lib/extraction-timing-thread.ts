import { readFileSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { parseDocument } from 'htmlparser2';
import { runJob } from '../../src/extraction/extraction-jobs.ts';
import { loadRealPageFixtures, wholePageTargets } from './real-pages.ts';

// One side of the extraction benchmark (realpages.bench.ts) in a thread of its
// own, as the product's extraction thread runs its jobs: `parse` is
// htmlparser2's parseDocument alone, `extraction` the job of a check's
// targets. Apart, neither side's code is compiled for the other's: in one
// isolate htmlparser2's parser is called with both sides' tokenizer and DOM
// handler, which the product's thread never does (docs/decisions/0079).
// Each round over the pages answers the thread's own CPU time per page.

export type TimedSide = 'parse' | 'extraction';

/** This thread's CPU time in ms (Linux: the first field of /proc/thread-self/schedstat, in ns). */
function threadCpuMs(): number {
  return Number(readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[0]) / 1e6;
}

export function runTimingThread(): void {
  const side = (workerData as { side: TimedSide }).side;
  const fixtures = loadRealPageFixtures();
  const texts = fixtures.map((f) => f.html.toString('utf8'));
  const targets = fixtures.map((f) => wholePageTargets(f.currency));
  const round = async (): Promise<number> => {
    const started = threadCpuMs();
    for (const [i, html] of texts.entries()) {
      if (side === 'parse') parseDocument(html);
      else await runJob({ kind: 'targets', html, finalUrl: 'https://shop.example/item', targets: targets[i]! });
    }
    return (threadCpuMs() - started) / texts.length;
  };
  // the benchmark asks for one round at a time and waits for its answer
  parentPort!.on('message', () => void round().then((ms) => parentPort!.postMessage(ms)));
  parentPort!.postMessage('ready');
}
