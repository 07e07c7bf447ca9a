import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ExtractionPool } from '../../src/extraction/extraction-pool.ts';
import { JobCancelled, QueueFull } from '../../src/extraction/queue-errors.ts';
import type { JobTicket, Lane, QueueObserver } from '../../src/domain/fair-queue.ts';

// The extraction queue is fair and bounded: accounts take turns, checks keep a
// thread interactive work cannot take, an account's interactive jobs are
// bounded, and a job whose requester is gone is dropped. Jobs run on a thread
// that blocks for as many milliseconds as the job's page says, and the tests
// assert the order jobs are answered in, never a duration.

const SLOW_WORKER = new URL('../helpers/slow-extraction-worker.mjs', import.meta.url);

function ticket(account: string, lane: Lane = 'interactive', signal?: AbortSignal): JobTicket {
  return { account, lane, signal };
}

/** Runs a job that blocks its thread `ms` milliseconds; its name joins `answered` when it is answered. */
function job(pool: ExtractionPool, name: string, ms: number, at: JobTicket, answered: string[]): Promise<void> {
  return pool.targets(String(ms), 'http://x/', [], at).then(() => void answered.push(name));
}

test("a flooding account does not delay another account's job beyond its turn", async () => {
  const pool = new ExtractionPool({ size: 1, workerUrl: SLOW_WORKER, maxPerAccount: 20 });
  const answered: string[] = [];
  try {
    const flood = Array.from({ length: 8 }, (_, i) => job(pool, `flood${i}`, 20, ticket('flooder'), answered));
    const victim = job(pool, 'victim', 20, ticket('victim'), answered);
    await Promise.all([...flood, victim]);
    assert.ok(answered.indexOf('victim') <= 1, `the victim waited behind one flood job at most: ${answered.join(', ')}`);
    assert.deepEqual(
      answered.filter((name) => name !== 'victim'),
      flood.map((_, i) => `flood${i}`),
      "an account's own jobs keep their order",
    );
  } finally {
    await pool.close();
  }
});

test('checks keep a thread of their own: a check never waits behind interactive work', async () => {
  const pool = new ExtractionPool({ size: 2, workerUrl: SLOW_WORKER, maxPerAccount: 20 });
  const answered: string[] = [];
  // Long interactive jobs, so the check's thread has started long before the second one is answered.
  const first = job(pool, 'interactive0', 5000, ticket('flooder'), answered);
  const rest = Array.from({ length: 2 }, (_, i) => job(pool, `interactive${i + 1}`, 5000, ticket('flooder'), answered));
  // They end with the pool, refused or stopped, not after their 10 s.
  const restEnded = Promise.allSettled(rest);
  try {
    await first;
    await job(pool, 'check', 1, ticket('monitor', 'check'), answered);
    assert.deepEqual(answered, ['interactive0', 'check'], 'the check was answered while interactive jobs still waited');
  } finally {
    await pool.close();
    await restEnded;
  }
});

test("past an account's bound its interactive job is refused with a time to retry; other accounts and checks still queue", async () => {
  const pool = new ExtractionPool({ size: 1, workerUrl: SLOW_WORKER, maxPerAccount: 2, budgetMs: 5000 });
  const answered: string[] = [];
  try {
    const admitted = [job(pool, 'a1', 50, ticket('a'), answered), job(pool, 'a2', 50, ticket('a'), answered)];
    await assert.rejects(job(pool, 'a3', 50, ticket('a'), answered), (error: unknown) => {
      assert.ok(error instanceof QueueFull);
      assert.equal(error.retryAfterSeconds, 5);
      return true;
    });
    await Promise.all([...admitted, job(pool, 'b1', 50, ticket('b'), answered), job(pool, 'a-check', 50, ticket('a', 'check'), answered)]);
    await job(pool, 'a4', 1, ticket('a'), answered);
    assert.ok(answered.includes('a4'), 'answered jobs give their room back');
  } finally {
    await pool.close();
  }
});

test('past the overall bound of waiting interactive jobs any account is refused', async () => {
  const pool = new ExtractionPool({ size: 1, workerUrl: SLOW_WORKER, maxPerAccount: 10, maxWaiting: 2 });
  const answered: string[] = [];
  try {
    // Submitted at once, before the thread has started: both wait, and the queue is full.
    const admitted = ['a', 'b'].map((account) => job(pool, account, 50, ticket(account), answered));
    await assert.rejects(job(pool, 'c', 50, ticket('c'), answered), QueueFull);
    await assert.doesNotReject(job(pool, 'c-check', 1, ticket('c', 'check'), answered), 'checks are not bounded');
    await Promise.all(admitted);
  } finally {
    await pool.close();
  }
});

test('a waiting job whose requester is gone is dropped and never reaches a thread', async () => {
  const sentKinds: string[] = [];
  const observer: QueueObserver = { depth: () => undefined, waited: (kind) => void sentKinds.push(kind) };
  const pool = new ExtractionPool({ size: 1, workerUrl: SLOW_WORKER, maxPerAccount: 10, observer });
  const answered: string[] = [];
  try {
    const running = [job(pool, 'a1', 300, ticket('a'), answered), job(pool, 'a2', 300, ticket('a'), answered)];
    const gone = new AbortController();
    const dropped = pool.preview('1', 'http://x/', ticket('b', 'interactive', gone.signal));
    gone.abort();
    await assert.rejects(dropped, JobCancelled);
    await Promise.all(running);
    assert.deepEqual(sentKinds, ['targets', 'targets'], 'only the two targets jobs were sent to the thread');
  } finally {
    await pool.close();
  }
});

test('a running job whose requester is gone is stopped, and the next job runs on a fresh thread', async () => {
  let sent = 0;
  const observer: QueueObserver = { depth: () => undefined, waited: () => void (sent += 1) };
  const pool = new ExtractionPool({ size: 1, workerUrl: SLOW_WORKER, maxPerAccount: 10, observer });
  const answered: string[] = [];
  try {
    const gone = new AbortController();
    const stopped = job(pool, 'long', 120_000, ticket('a', 'interactive', gone.signal), answered);
    await waitFor(() => sent === 1);
    const next = job(pool, 'next', 1, ticket('a'), answered);
    gone.abort();
    await assert.rejects(stopped, JobCancelled);
    await next;
    assert.deepEqual(answered, ['next']);
  } finally {
    await pool.close();
  }
});

test('a check sent to a thread behind one whose requester is gone is not lost: a fresh thread runs it', async () => {
  let sent = 0;
  const observer: QueueObserver = { depth: () => undefined, waited: () => void (sent += 1) };
  const pool = new ExtractionPool({ size: 1, workerUrl: SLOW_WORKER, observer });
  const answered: string[] = [];
  try {
    const gone = new AbortController();
    const stopped = job(pool, 'long', 120_000, ticket('a', 'check', gone.signal), answered);
    const next = job(pool, 'next', 1, ticket('b', 'check'), answered);
    await waitFor(() => sent === 2);
    gone.abort();
    await assert.rejects(stopped, JobCancelled);
    await next;
    assert.deepEqual(answered, ['next']);
  } finally {
    await pool.close();
  }
});

async function waitFor(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
