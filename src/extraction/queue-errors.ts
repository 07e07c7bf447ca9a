// Why a job never ran or never finished: the queue had no room for its
// account, its requester went away while it waited or ran, or it ran past
// the budget.

/** The account (or the server) has as much interactive work queued as it may: try again later. */
export class QueueFull extends Error {
  override readonly name = 'QueueFull';

  constructor(
    message: string,
    /** seconds after which a new try may find room */
    readonly retryAfterSeconds: number,
  ) {
    super(message);
  }
}

/** The job's signal was aborted (its HTTP client disconnected). */
export class JobCancelled extends Error {
  override readonly name = 'JobCancelled';

  constructor() {
    super('the job was dropped: its requester is gone');
  }
}

/** The job ran past the pool's budget: its thread was stopped and replaced. */
export class ExtractionTimeout extends Error {
  constructor(readonly budgetMs: number) {
    super(`extracting this page took longer than ${budgetMs / 1000} s`);
    this.name = 'ExtractionTimeout';
  }
}
