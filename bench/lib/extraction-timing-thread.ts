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
// Each message names one page and is answered with the thread's own CPU time
// for it: the benchmark alternates the sides page by page (docs/decisions/0090).

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
  const page = async (i: number): Promise<number> => {
    const started = threadCpuMs();
    if (side === 'parse') parseDocument(texts[i]!);
    else await runJob({ kind: 'targets', html: texts[i]!, finalUrl: 'https://shop.example/item', targets: targets[i]! });
    return threadCpuMs() - started;
  };
  // the benchmark asks for one page at a time and waits for its answer
  parentPort!.on('message', (i: number) => void page(i).then((ms) => parentPort!.postMessage(ms)));
  parentPort!.postMessage(texts.length);
}
