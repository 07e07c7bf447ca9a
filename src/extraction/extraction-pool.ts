import { Worker } from 'node:worker_threads';
import type { TargetExtraction } from '../domain/extract/index.ts';
import { FairQueue, type JobTicket, type Lane, type QueueObserver } from '../domain/fair-queue.ts';
import type { PageSource } from '../domain/page-source.ts';
import type { Target } from '../domain/targets.ts';
import type { AtomFeed } from '../domain/atom-feed.ts';
import type { ChangeDiff } from '../domain/text-diff.ts';
import { threadBootstrap } from '../thread-entry.ts';
import type { CheckReading, ExtractionJob, JobResult, PreviewOutline, ResponseMarks, ScreenEvidence } from './extraction-jobs.ts';
import { ExtractionTimeout, JobCancelled, QueueFull } from './queue-errors.ts';

// Page parsing and extraction (and the diffs of changes) run in a few worker threads, so a huge page or
// a costly selector never blocks the HTTP event loop, and each job has a time
// budget: a thread still busy past it is terminated and replaced, and the job
// fails with ExtractionTimeout. Threads start on first use, not at import, and
// stop when idle (idleMs): a small install pays for them only while it checks.
// A thread is sent its next job before it has finished the current one, so it
// goes on at once instead of idling while its result travels to the event loop
// and the next job comes back (on a busy loop, longer than a job itself).
// Jobs wait in a fair queue (domain/fair-queue.ts): checks and interactive
// requests take turns, accounts take turns within each, and interactive jobs
// never hold every thread, so monitoring keeps a thread of its own. An
// account's interactive jobs, and all waiting ones, are bounded (past it:
// QueueFull); a job whose requester went away is dropped, or stopped if running.

export interface ExtractionPoolOptions {
  /** threads; default 2 (PAGEWATCH_EXTRACT_WORKERS) */
  size?: number;
  /** budget of one job; default 10000 ms */
  budgetMs?: number;
  /** the threads' entry module; default the extraction thread (tests give one whose jobs take a set time) */
  workerUrl?: URL;
  /** a thread without a job for this long stops; default 60000 ms (PAGEWATCH_IDLE_STOP_SECONDS) */
  idleMs?: number;
  /** interactive jobs one account may have waiting or running; default 4 */
  maxPerAccount?: number;
  /** interactive jobs waiting overall; default 32 */
  maxWaiting?: number;
  /** where queue depth and waits are reported */
  observer?: QueueObserver;
}

interface Pending {
  job: ExtractionJob;
  ticket: JobTicket;
  queuedAt: number;
  /** set once the job's promise is settled: a dropped job's late result is ignored */
  settled: boolean;
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
  /** stops the thread once it has been idle for idleMs */
  idleTimer: NodeJS.Timeout | null;
}

// Checks a thread holds at once: the one it runs and the next.
const JOBS_PER_THREAD = 2;
/** The longest a thread may take to load PDF.js for its first PDF, before that PDF's own budget starts. */
const PDF_READER_LOAD_MS = 60_000;

/** What a thread says: it is ready, a job's answer, or that it is loading PDF.js for the job it is on. */
interface ThreadMessage {
  ready?: true;
  id: number;
  ok?: boolean;
  result?: unknown;
  message?: string;
  loadingPdfReader?: true;
  loadedPdfReader?: true;
}

export class ExtractionPool {
  readonly #size: number;
  readonly #budgetMs: number;
  readonly #workerUrl: URL | null;
  readonly #idleMs: number;
  readonly #maxPerAccount: number;
  readonly #maxWaiting: number;
  readonly #observer: QueueObserver | undefined;
  readonly #slots: Slot[] = [];
  readonly #queue = new FairQueue<Pending>();
  /** interactive jobs per account, waiting or in a thread */
  readonly #interactive = new Map<string, number>();
  #nextId = 0;
  #closed = false;

  constructor(options: ExtractionPoolOptions = {}) {
    this.#size = options.size ?? 2;
    this.#budgetMs = options.budgetMs ?? 10_000;
    this.#workerUrl = options.workerUrl ?? null;
    this.#idleMs = options.idleMs ?? 60_000;
    this.#maxPerAccount = options.maxPerAccount ?? 4;
    this.#maxWaiting = options.maxWaiting ?? 32;
    this.#observer = options.observer;
  }

  /** The title and element list of a preview. */
  preview(html: PageSource, finalUrl: string, ticket: JobTicket): Promise<PreviewOutline> {
    return this.run({ kind: 'preview', html, finalUrl }, ticket);
  }

  /** Every target read from the page, in order. */
  targets(html: PageSource, finalUrl: string, targets: Target[], ticket: JobTicket): Promise<TargetExtraction[]> {
    return this.run({ kind: 'targets', html, finalUrl, targets }, ticket);
  }

  /** A check's page screened for a wall and, unless it is one, its targets read: one job. */
  check(html: PageSource, finalUrl: string, targets: Target[], marks: ResponseMarks, ticket: JobTicket): Promise<CheckReading> {
    return this.run({ kind: 'check', html, finalUrl, targets, marks }, ticket);
  }

  /** Runs any job kind of extraction-jobs.ts in a thread, in its ticket's turn. */
  run<J extends ExtractionJob>(job: J, ticket: JobTicket): Promise<JobResult<J>> {
    if (this.#closed) return Promise.reject(new Error('the extraction pool is closed'));
    if (ticket.signal?.aborted) return Promise.reject(new JobCancelled());
    if (ticket.lane === 'interactive') {
      const refusal = this.#admit(ticket.account);
      if (refusal) return Promise.reject(refusal);
    }
    return new Promise<JobResult<J>>((resolve, reject) => {
      const pending: Pending = {
        job,
        ticket,
        queuedAt: performance.now(),
        settled: false,
        resolve: (value) => this.#settle(pending, () => resolve(value as JobResult<J>)),
        reject: (error) => this.#settle(pending, () => reject(error)),
      };
      ticket.signal?.addEventListener('abort', () => this.#cancel(pending), { once: true });
      this.#queue.push(ticket.lane, ticket.account, pending);
      this.#reportDepth(job.kind, ticket.lane);
      this.#dispatch();
    });
  }

  /** Why the load is an anti-bot wall (domain/blocked-page.ts), or null when it is not one. */
  screen(evidence: ScreenEvidence, ticket: JobTicket): Promise<string | null> {
    return this.run({ kind: 'screen', evidence }, ticket);
  }

  /** The diff of a change's captured texts (its own size and time budget keeps it well inside the job's). */
  diff(before: string | null, after: string | null, ticket: JobTicket): Promise<ChangeDiff> {
    return this.run({ kind: 'diff', before, after }, ticket);
  }

  /** An Atom feed's XML document. */
  atom(feed: AtomFeed, ticket: JobTicket): Promise<string> {
    return this.run({ kind: 'atom', feed }, ticket);
  }

  /** Threads alive now (for tests that no thread outlives close()). */
  get threads(): number {
    return this.#slots.length;
  }

  async close(): Promise<void> {
    this.#closed = true;
    for (const pending of this.#queue.drain()) pending.reject(new Error('the extraction pool is closed'));
    await Promise.all(this.#slots.splice(0).map((slot) => this.#stop(slot, new Error('the extraction pool is closed'))));
  }

  /** Counts an interactive job in, or says why there is no room for it (past its account's bound or the overall one). */
  #admit(account: string): QueueFull | null {
    // A thread frees at the latest when its job's budget runs out.
    const retryAfter = Math.ceil(this.#budgetMs / 1000);
    const held = this.#interactive.get(account) ?? 0;
    if (held >= this.#maxPerAccount)
      return new QueueFull(`this account already has ${this.#maxPerAccount} extractions waiting or running; try again later`, retryAfter);
    if (this.#queue.size('interactive') >= this.#maxWaiting)
      return new QueueFull('the extraction threads are busy; try again later', retryAfter);
    this.#interactive.set(account, held + 1);
    return null;
  }

  #settle(pending: Pending, settle: () => void): void {
    if (pending.settled) return;
    pending.settled = true;
    if (pending.ticket.lane === 'interactive') {
      const left = (this.#interactive.get(pending.ticket.account) ?? 1) - 1;
      if (left > 0) this.#interactive.set(pending.ticket.account, left);
      else this.#interactive.delete(pending.ticket.account);
    }
    settle();
  }

  /** A waiting job leaves the queue; a running one takes its thread down with it, freeing the thread for others. */
  #cancel(pending: Pending): void {
    if (pending.settled) return;
    if (this.#queue.remove(pending.ticket.lane, pending.ticket.account, pending)) {
      this.#reportDepth(pending.job.kind, pending.ticket.lane);
      pending.reject(new JobCancelled());
      return;
    }
    const slot = this.#slots.find((s) => s.sent[0]?.pending === pending);
    if (slot) void this.#replace(slot, new JobCancelled());
    // A job sent behind another runs when the thread gets to it; its result is ignored.
    else pending.reject(new JobCancelled());
  }

  /**
   * A ready thread that may take a job of this lane. Interactive jobs go to an idle thread only, never sent ahead
   * behind another job: a job sent early would hold its place even when another account's turn comes first. Checks
   * may be sent behind a check, keeping their threads busy.
   */
  #slotFor(lane: Lane): Slot | undefined {
    const ready = this.#slots.filter((s) => s.ready);
    const idle = ready.find((s) => s.sent.length === 0);
    if (lane === 'interactive') {
      // Interactive jobs never occupy every thread, so a check always has one.
      const holding = ready.filter((s) => s.sent.length > 0 && s.sent[0]!.pending.ticket.lane === 'interactive').length;
      return this.#size === 1 || holding < this.#size - 1 ? idle : undefined;
    }
    return idle ?? ready.find((s) => s.sent.length < JOBS_PER_THREAD && s.sent.every((sent) => sent.pending.ticket.lane === 'check'));
  }

  #dispatch(): void {
    while (this.#queue.size() > 0) {
      const idle = this.#slots.some((s) => s.ready && s.sent.length === 0);
      // Start a thread if there is room and none is starting already; it dispatches once ready.
      if (!idle && this.#slots.length < this.#size && this.#slots.every((s) => s.ready)) this.#spawn();
      const taken = this.#queue.next((lane) => this.#slotFor(lane) !== undefined);
      if (!taken) return;
      const { item: pending, lane } = taken;
      const slot = this.#slotFor(lane)!;
      clearTimeout(slot.idleTimer ?? undefined);
      this.#reportDepth(pending.job.kind, lane);
      this.#observer?.waited(pending.job.kind, lane, (performance.now() - pending.queuedAt) / 1000);
      const sent: Sent = { id: ++this.#nextId, pending, timer: null };
      slot.sent.push(sent);
      // The budget of a job sent behind another starts when that one's result arrives, about when the thread begins it.
      if (slot.sent.length === 1) this.#startBudget(slot);
      // A thread with work keeps the process alive; an idle one does not.
      slot.worker.ref();
      slot.worker.postMessage({ id: sent.id, job: pending.job });
    }
  }

  #reportDepth(kind: string, lane: Lane): void {
    if (!this.#observer) return;
    // Few jobs wait at a time (interactive ones are bounded), so counting them is cheap.
    this.#observer.depth(
      kind,
      lane,
      this.#queue.count(lane, (pending) => pending.job.kind === kind),
    );
  }

  #startBudget(slot: Slot): void {
    slot.sent[0]!.timer = setTimeout(() => void this.#expire(slot), this.#budgetMs);
  }

  #spawn(): void {
    const worker = this.#workerUrl
      ? new Worker(this.#workerUrl)
      : new Worker(threadBootstrap(import.meta.url, 'extraction-worker', 'runExtractionThread'), { eval: true });
    const slot: Slot = { worker, ready: false, sent: [], idleTimer: null };
    worker.on('message', (message: ThreadMessage) => {
      if (message.ready) {
        slot.ready = true;
        this.#dispatch();
        this.#stopWhenIdle(slot);
        return;
      }
      const current = slot.sent[0];
      if (!current || current.id !== message.id) return;
      if (message.loadingPdfReader || message.loadedPdfReader) {
        // Loading PDF.js is the thread's, not the document's: the PDF's own budget starts once it is loaded.
        clearTimeout(current.timer ?? undefined);
        current.timer = setTimeout(() => void this.#expire(slot), message.loadingPdfReader ? PDF_READER_LOAD_MS : this.#budgetMs);
        return;
      }
      clearTimeout(current.timer ?? undefined);
      slot.sent.shift();
      if (slot.sent.length > 0) this.#startBudget(slot);
      else slot.worker.unref();
      if (message.ok) current.pending.resolve(message.result);
      else current.pending.reject(new Error(message.message));
      this.#dispatch();
      this.#stopWhenIdle(slot);
    });
    worker.on('error', (error) => {
      // A thread that cannot even start would be restarted forever: the jobs waiting for it fail instead.
      if (!slot.ready) for (const pending of this.#queue.drain()) pending.reject(error);
      void this.#replace(slot, error);
    });
    this.#slots.push(slot);
  }

  /** A thread left without work stops after idleMs, unless a job reaches it first (#dispatch clears the timer). */
  #stopWhenIdle(slot: Slot): void {
    if (slot.sent.length > 0) return;
    clearTimeout(slot.idleTimer ?? undefined);
    slot.idleTimer = setTimeout(() => {
      const index = this.#slots.indexOf(slot);
      if (index === -1 || slot.sent.length > 0) return;
      this.#slots.splice(index, 1);
      void slot.worker.terminate();
    }, this.#idleMs);
    // An idle thread's timer must not keep the process alive either.
    slot.idleTimer.unref();
  }

  async #expire(slot: Slot): Promise<void> {
    await this.#replace(slot, new ExtractionTimeout(this.#budgetMs));
  }

  /** The thread's current job fails with `error`; the job it would have taken next goes back to the front of its line. */
  async #replace(slot: Slot, error: Error): Promise<void> {
    const index = this.#slots.indexOf(slot);
    if (index === -1) return;
    this.#slots.splice(index, 1);
    clearTimeout(slot.idleTimer ?? undefined);
    const [current, ...next] = slot.sent.splice(0);
    for (const { pending } of next.reverse())
      if (!pending.settled) this.#queue.putBack(pending.ticket.lane, pending.ticket.account, pending);
    if (current) {
      clearTimeout(current.timer ?? undefined);
      current.pending.reject(error);
    }
    await slot.worker.terminate();
    if (!this.#closed) this.#dispatch();
  }

  async #stop(slot: Slot, error: Error): Promise<void> {
    clearTimeout(slot.idleTimer ?? undefined);
    for (const sent of slot.sent.splice(0)) {
      clearTimeout(sent.timer ?? undefined);
      sent.pending.reject(error);
    }
    await slot.worker.terminate();
  }
}
