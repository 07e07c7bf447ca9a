import { parentPort, threadId } from 'node:worker_threads';

// An extraction thread for tests of the pool's idle stop: each job answers
// with the id of the thread that ran it, so a test sees whether a thread was
// replaced between two jobs.

parentPort.postMessage({ ready: true });
parentPort.on('message', ({ id }) => parentPort.postMessage({ id, ok: true, result: threadId }));
