import { Worker } from 'node:worker_threads';
import type { TargetExtraction } from '../domain/extract/index.ts';
import type { PageSource } from '../domain/page-source.ts';
import type { Target } from '../domain/targets.ts';
import type { ChangeDiff } from '../domain/text-diff.ts';
import type { ExtractionJob, PreviewOutline } from './extraction-jobs.ts';

// Page parsing and extraction (and the diffs of changes) run in a few worker threads, so a huge page or
// a costly selector never blocks the HTTP event loop, and each job has a time
// budget: a thread still busy past it is terminated and replaced, and the job
// fails with ExtractionTimeout. Threads start on first use, not at import.
// A thread is sent its next job before it has finished the current one, so it
// goes on at once instead of idling while its result travels to the event loop
// and the next job comes back (on a busy loop, longer than a job itself).

export interface ExtractionPoolOptions {
  /** threads; default 2 (PAGEWATCH_EXTRACT_WORKERS) */
  size?: number;
  /** budget of one job; default 10000 ms */
  budgetMs?: number;
  /** the threads' entry module; default the extraction thread (tests give one whose jobs take a set time) */
  workerUrl?: URL;
}

/** Every target of a job that ran out of time: an issue each, never a value. */
export function timedOut(targets: Target[], error: ExtractionTimeout): TargetExtraction[] {
  return targets.map((target) => ({
    target_id: target.id,
    ok: false,
    value: null,
    display: null,
    links: null,
    issues: [
      { target_id: target.id, code: 'extraction_timeout', message: `${error.message}; the page is too large or the selection too costly` },
    ],
    text: null,
  }));
}

/** The targets read by the pool, or an extraction_timeout issue for each when the budget ran out. */
export async function extractWithin(
  pool: ExtractionPool,
  html: PageSource,
  finalUrl: string,
  targets: Target[],
): Promise<TargetExtraction[]> {
  try {
    return await pool.targets(html, finalUrl, targets);
  } catch (error) {
    if (error instanceof ExtractionTimeout) return timedOut(targets, error);
    throw error;
  }
}

export class ExtractionTimeout extends Error {
  constructor(readonly budgetMs: number) {
    super(`extracting this page took longer than ${budgetMs / 1000} s`);
    this.name = 'ExtractionTimeout';
  }
}

interface Pending {
  job: ExtractionJob;
  resolve(value: unknown): void;
  reject(error: Error): void;
}

interface Sent {
  id: number;
  pending: Pending;
  /** the budget, running for the job the thread is on (the first sent) only */
  timer: NodeJS.Timeout | null;
}

interface Slot {
  worker: Worker;
  /** set when the thread has loaded its code: a job's budget starts only then */
  ready: boolean;
  /** jobs sent to the thread, in its order: the one it is on, then the one it takes next */
  sent: Sent[];
}

const WORKER_URL = new URL('./extraction-worker-entry.mjs', import.meta.url);
// Jobs a thread holds at once: the one it runs and the next.
const JOBS_PER_THREAD = 2;

export class ExtractionPool {
  readonly #size: number;
  readonly #budgetMs: number;
  readonly #workerUrl: URL;
  readonly #slots: Slot[] = [];
  readonly #queue: Pending[] = [];
  #nextId = 0;
  #closed = false;

  constructor(options: ExtractionPoolOptions = {}) {
    this.#size = options.size ?? 2;
    this.#budgetMs = options.budgetMs ?? 10_000;
    this.#workerUrl = options.workerUrl ?? WORKER_URL;
  }

  /** The title and element list of a preview. */
  preview(html: PageSource, finalUrl: string): Promise<PreviewOutline> {
    return this.#run({ kind: 'preview', html, finalUrl }) as Promise<PreviewOutline>;
  }

  /** Every target read from the page, in order. */
  targets(html: PageSource, finalUrl: string, targets: Target[]): Promise<TargetExtraction[]> {
    return this.#run({ kind: 'targets', html, finalUrl, targets }) as Promise<TargetExtraction[]>;
  }

  /** The diff of a change's captured texts (its own size and time budget keeps it well inside the job's). */
  diff(before: string | null, after: string | null): Promise<ChangeDiff> {
    return this.#run({ kind: 'diff', before, after }) as Promise<ChangeDiff>;
  }

  /** Threads alive now (for tests that no thread outlives close()). */
  get threads(): number {
    return this.#slots.length;
  }

  async close(): Promise<void> {
    this.#closed = true;
    for (const pending of this.#queue.splice(0)) pending.reject(new Error('the extraction pool is closed'));
    await Promise.all(this.#slots.splice(0).map((slot) => this.#stop(slot, new Error('the extraction pool is closed'))));
  }

  #run(job: ExtractionJob): Promise<unknown> {
    if (this.#closed) return Promise.reject(new Error('the extraction pool is closed'));
    return new Promise((resolve, reject) => {
      this.#queue.push({ job, resolve, reject });
      this.#dispatch();
    });
  }

  #dispatch(): void {
    while (this.#queue.length > 0) {
      const idle = this.#slots.find((s) => s.ready && s.sent.length === 0);
      // Start a thread if there is room and none is starting already; it dispatches once ready.
      if (!idle && this.#slots.length < this.#size && this.#slots.every((s) => s.ready)) this.#spawn();
      const slot = idle ?? this.#slots.find((s) => s.ready && s.sent.length < JOBS_PER_THREAD);
      if (!slot) return;
      const pending = this.#queue.shift()!;
      const sent: Sent = { id: ++this.#nextId, pending, timer: null };
      slot.sent.push(sent);
      // The budget of a job sent behind another starts when that one's result arrives, about when the thread begins it.
      if (slot.sent.length === 1) this.#startBudget(slot);
      // A thread with work keeps the process alive; an idle one does not.
      slot.worker.ref();
      slot.worker.postMessage({ id: sent.id, job: pending.job });
    }
  }

  #startBudget(slot: Slot): void {
    slot.sent[0]!.timer = setTimeout(() => void this.#expire(slot), this.#budgetMs);
  }

  #spawn(): void {
    const worker = new Worker(this.#workerUrl);
    const slot: Slot = { worker, ready: false, sent: [] };
    worker.on('message', (message: { ready?: true; id: number; ok: boolean; result?: unknown; message?: string }) => {
      if (message.ready) {
        slot.ready = true;
        this.#dispatch();
        return;
      }
      const current = slot.sent[0];
      if (!current || current.id !== message.id) return;
      clearTimeout(current.timer ?? undefined);
      slot.sent.shift();
      if (slot.sent.length > 0) this.#startBudget(slot);
      else slot.worker.unref();
      if (message.ok) current.pending.resolve(message.result);
      else current.pending.reject(new Error(message.message));
      this.#dispatch();
    });
    worker.on('error', (error) => {
      // A thread that cannot even start would be restarted forever: the jobs waiting for it fail instead.
      if (!slot.ready) for (const pending of this.#queue.splice(0)) pending.reject(error);
      void this.#replace(slot, error);
    });
    this.#slots.push(slot);
  }

  async #expire(slot: Slot): Promise<void> {
    await this.#replace(slot, new ExtractionTimeout(this.#budgetMs));
  }

  /** The thread's current job fails with `error`; the job it would have taken next goes back to the front of the queue. */
  async #replace(slot: Slot, error: Error): Promise<void> {
    const index = this.#slots.indexOf(slot);
    if (index === -1) return;
    this.#slots.splice(index, 1);
    const [current, ...next] = slot.sent.splice(0);
    this.#queue.unshift(...next.map((sent) => sent.pending));
    if (current) {
      clearTimeout(current.timer ?? undefined);
      current.pending.reject(error);
    }
    await slot.worker.terminate();
    if (!this.#closed) this.#dispatch();
  }

  async #stop(slot: Slot, error: Error): Promise<void> {
    for (const sent of slot.sent.splice(0)) {
      clearTimeout(sent.timer ?? undefined);
      sent.pending.reject(error);
    }
    await slot.worker.terminate();
  }
}
