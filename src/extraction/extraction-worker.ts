import { parentPort } from 'node:worker_threads';
import { loadPdfReader, pdfReaderLoading } from '../domain/extract/pdf-text.ts';
import { readsPdf, runJob, type ExtractionJob } from './extraction-jobs.ts';

// One extraction thread: parses pages and extracts targets off the event
// loop that serves HTTP. The pool terminates it when a job runs past its budget.

/** The thread's entry point (extraction-pool.ts starts it through thread-entry.ts). */
export function runExtractionThread(): void {
  parentPort!.postMessage({ ready: true });
  // The pool may send a job behind another, and a PDF is read asynchronously (PDF.js answers in promises): jobs run
  // strictly one after another, so each answer comes back in the order the pool waits for.
  let previous: Promise<void> = Promise.resolve();
  parentPort!.on('message', ({ id, job }: { id: number; job: ExtractionJob }) => {
    previous = previous.then(() => answer(id, job));
  });
}

async function answer(id: number, job: ExtractionJob): Promise<void> {
  try {
    if (readsPdf(job) && !pdfReaderLoading()) {
      // The first PDF of this thread loads PDF.js: its budget starts again once that is done.
      parentPort!.postMessage({ id, loadingPdfReader: true });
      await loadPdfReader();
      parentPort!.postMessage({ id, loadedPdfReader: true });
    }
    parentPort!.postMessage({ id, ok: true, result: await runJob(job) });
  } catch (error) {
    parentPort!.postMessage({ id, ok: false, message: error instanceof Error ? error.message : String(error) });
  }
}
