import { parentPort } from 'node:worker_threads';
import { runJob, type ExtractionJob } from './extraction-jobs.ts';

// One extraction thread: parses pages and extracts targets off the event
// loop that serves HTTP. The pool terminates it when a job runs past its budget.

/** The thread's entry point (extraction-pool.ts starts it through thread-entry.ts). */
export function runExtractionThread(): void {
  parentPort!.postMessage({ ready: true });
  parentPort!.on('message', ({ id, job }: { id: number; job: ExtractionJob }) => {
    try {
      parentPort!.postMessage({ id, ok: true, result: runJob(job) });
    } catch (error) {
      parentPort!.postMessage({ id, ok: false, message: error instanceof Error ? error.message : String(error) });
    }
  });
}
