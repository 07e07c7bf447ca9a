import { parentPort } from 'node:worker_threads';

// An extraction thread for tests of the pool's scheduling: each job blocks the
// thread for as many milliseconds as its page says, as a long parse would, and
// then answers with no targets. Blocking on a clock, not on CPU work, keeps a
// test's timing the same however busy the machine is.

const blocker = new Int32Array(new SharedArrayBuffer(4));
parentPort.postMessage({ ready: true });
parentPort.on('message', ({ id, job }) => {
  // A diff job's "after" text stands for its milliseconds, as a page does for the others.
  Atomics.wait(blocker, 0, 0, Number(job.kind === 'diff' ? job.after : job.html));
  parentPort.postMessage({ id, ok: true, result: [] });
});
