import { Worker } from 'node:worker_threads';
import type { TargetExtraction } from '../domain/extract/index.ts';
import type { Target } from '../domain/targets.ts';
import type { ExtractionJob, PreviewOutline } from './extraction-jobs.ts';

// Page parsing and extraction run in a few worker threads, so a huge page or
// a costly selector never blocks the HTTP event loop, and each job has a time
// budget: a thread still busy past it is terminated and replaced, and the job
// fails with ExtractionTimeout. Threads start on first use, not at import.

export interface ExtractionPoolOptions {
  /** threads; default 2 (PAGEWATCH_EXTRACT_WORKERS) */
  size?: number;
  /** budget of one job; default 10000 ms */
  budgetMs?: number;
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
export async function extractWithin(pool: ExtractionPool, html: string, finalUrl: string, targets: Target[]): Promise<TargetExtraction[]> {
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

interface Slot {
  worker: Worker;
  /** set when the thread has loaded its code: a job's budget starts only then */
  ready: boolean;
  busy: { id: number; pending: Pending; timer: NodeJS.Timeout } | null;
}

const WORKER_URL = new URL('./extraction-worker-entry.mjs', import.meta.url);

export class ExtractionPool {
  readonly #size: number;
  readonly #budgetMs: number;
  readonly #slots: Slot[] = [];
  readonly #queue: Pending[] = [];
  #nextId = 0;
  #closed = false;

  constructor(options: ExtractionPoolOptions = {}) {
    this.#size = options.size ?? 2;
    this.#budgetMs = options.budgetMs ?? 10_000;
  }

  /** The title and element list of a preview. */
  preview(html: string, finalUrl: string): Promise<PreviewOutline> {
    return this.#run({ kind: 'preview', html, finalUrl }) as Promise<PreviewOutline>;
  }

  /** Every target read from the page, in order. */
  targets(html: string, finalUrl: string, targets: Target[]): Promise<TargetExtraction[]> {
    return this.#run({ kind: 'targets', html, finalUrl, targets }) as Promise<TargetExtraction[]>;
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
      const slot = this.#slots.find((s) => s.ready && s.busy === null);
      if (!slot) {
        // Start a thread if there is room and none is starting already; it dispatches once ready.
        if (this.#slots.length < this.#size && this.#slots.every((s) => s.ready)) this.#spawn();
        return;
      }
      const pending = this.#queue.shift()!;
      const id = ++this.#nextId;
      const timer = setTimeout(() => void this.#expire(slot), this.#budgetMs);
      slot.busy = { id, pending, timer };
      // A thread with work keeps the process alive; an idle one does not.
      slot.worker.ref();
      slot.worker.postMessage({ id, job: pending.job });
    }
  }

  #spawn(): void {
    const worker = new Worker(WORKER_URL);
    const slot: Slot = { worker, ready: false, busy: null };
    worker.on('message', (message: { ready?: true; id: number; ok: boolean; result?: unknown; message?: string }) => {
      if (message.ready) {
        slot.ready = true;
        this.#dispatch();
        return;
      }
      const busy = slot.busy;
      if (!busy || busy.id !== message.id) return;
      clearTimeout(busy.timer);
      slot.busy = null;
      slot.worker.unref();
      if (message.ok) busy.pending.resolve(message.result);
      else busy.pending.reject(new Error(message.message));
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

  async #replace(slot: Slot, error: Error): Promise<void> {
    const index = this.#slots.indexOf(slot);
    if (index === -1) return;
    this.#slots.splice(index, 1);
    await this.#stop(slot, error);
    if (!this.#closed) this.#dispatch();
  }

  async #stop(slot: Slot, error: Error): Promise<void> {
    const busy = slot.busy;
    slot.busy = null;
    if (busy) {
      clearTimeout(busy.timer);
      busy.pending.reject(error);
    }
    await slot.worker.terminate();
  }
}
