import { parentPort } from 'node:worker_threads';
import { warmPdfReader } from '../domain/extract/pdf-text.ts';
import { runJob, type ExtractionJob } from './extraction-jobs.ts';

// One extraction thread: parses pages and extracts targets off the event
// loop that serves HTTP. The pool terminates it when a job runs past its budget.

/** The thread's entry point (extraction-pool.ts starts it through thread-entry.ts). */
export function runExtractionThread(): void {
  parentPort!.postMessage({ ready: true });
  void warmPdfReader();
  // A PDF is read asynchronously (PDF.js answers in promises); the pool sends a
  // thread its next job only as this one's result goes back, so jobs still run one at a time.
  parentPort!.on('message', ({ id, job }: { id: number; job: ExtractionJob }) => {
    runJob(job).then(
      (result) => parentPort!.postMessage({ id, ok: true, result }),
      (error: unknown) => parentPort!.postMessage({ id, ok: false, message: error instanceof Error ? error.message : String(error) }),
    );
  });
}
