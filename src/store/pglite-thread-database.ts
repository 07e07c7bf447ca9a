import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { Worker } from 'node:worker_threads';
import type { DataDirDump, Database, Queryable, StoreProcedure } from './database.ts';
import { threadBootstrap } from '../thread-entry.ts';
import { lockEmbeddedDataDir } from './data-dir-lock.ts';
import { directoryBytes, pgliteMemoryFor, type PgliteMemory } from './pglite-memory.ts';
import { storeTemplate, unpackStoreTemplate } from './store-template.ts';
import type { ThreadData, ThreadError, ThreadReply, ThreadRequest } from './pglite-thread.ts';

// The embedded store with PGlite in a worker thread (pglite-thread.ts), behind
// the same Database interface: HTTP, extraction and the database use both
// cores. Measured against PGlite on the event loop in BENCHMARKS.md.

type Answer = { rows?: unknown[]; value?: unknown };
type Pending = { resolve: (answer: Answer) => void; reject: (err: Error) => void };
type Outgoing<R = ThreadRequest> = R extends unknown ? Omit<R, 'id'> : never;

/** An Error with the fields a PostgreSQL error has (code, constraint, …), as the in-process PGlite throws. */
function rebuild(error: ThreadError): Error {
  return Object.assign(new Error(error.message), error.fields);
}

type Artifacts = Omit<ThreadData, 'dataDir' | 'snapshot' | 'memory'>;

let compiled: Promise<Artifacts> | null = null;

/**
 * PGlite's WebAssembly, compiled once per process and handed to every thread:
 * in-process PGlite caches its compiled module, a fresh thread would compile
 * 9 MB of WebAssembly again on every open. Its file-system bundle is not
 * handed over: the thread reads it itself, since a copy cloned into the
 * thread stayed resident (25–60 MiB more at rest, BENCHMARKS.md §9).
 *
 * Its functions are compiled, and the hot ones recompiled optimised, on one
 * background task instead of V8's default of one per platform thread: the
 * compilers' memory on those threads stayed resident after the work (~50 MiB
 * more at rest for an empty install, docs/decisions/0058). The flag
 * is read per compilation job, so setting it here, before the first, is enough.
 */
function pgliteArtifacts(): Promise<Artifacts> {
  compiled ??= (async () => {
    setFlagsFromString('--wasm-num-compilation-tasks=1');
    const dist = import.meta.resolve('@electric-sql/pglite');
    const [pglite, initdb] = await Promise.all(['./pglite.wasm', './initdb.wasm'].map((name) => readFile(new URL(name, dist))));
    const [pgliteWasmModule, initdbWasmModule] = await Promise.all([WebAssembly.compile(pglite!), WebAssembly.compile(initdb!)]);
    return { pgliteWasmModule, initdbWasmModule };
  })();
  return compiled;
}

/**
 * Embedded PGlite in a worker thread: in memory when dataDir is null (started
 * from `snapshot` when given, a data directory as PGlite's dumpDataDir writes
 * it), else in that directory (locked).
 */
export async function openPgliteThreadDatabase(
  dataDir: string | null,
  snapshot: Uint8Array<ArrayBuffer> | null = null,
  options: { sharedBuffersMiB?: number | null } = {},
): Promise<Database> {
  if (dataDir !== null && snapshot !== null) throw new Error('a snapshot starts an in-memory store only; restoreDataDir fills a directory');
  // Creating a data directory (initdb) leaves its WebAssembly memory behind
  // in its thread for as long as that thread lives (docs/decisions/0020-embedded-store-initdbs-memory-stayed-for-the-stores.md): a new directory is
  // created by a thread of its own, which then ends, and is opened afresh.
  if (dataDir !== null && !existsSync(join(dataDir, 'PG_VERSION'))) {
    // A new directory is unpacked from the build's template when there is one (store-template.ts).
    const template = storeTemplate();
    if (template) unpackLocked(dataDir, template);
    else await (await openThread(dataDir, null, pgliteMemoryFor(0))).close();
  }
  // Sized when the store opens: a store that grew gets more at its next start.
  const storeBytes = dataDir !== null ? directoryBytes(dataDir) : (snapshot?.byteLength ?? 0);
  return openThread(dataDir, snapshot, pgliteMemoryFor(storeBytes, options.sharedBuffersMiB ?? null));
}

/** The template into a new data directory, under the directory's lock (another process may be creating it too). */
function unpackLocked(dataDir: string, template: URL): void {
  const lock = lockEmbeddedDataDir(dataDir)!;
  try {
    if (!existsSync(join(dataDir, 'PG_VERSION'))) unpackStoreTemplate(template, dataDir);
  } finally {
    lock.release();
  }
}

/** Writes a data directory from its tarball (PGlite's dumpDataDir output) into `dataDir`, which holds no store yet. */
export async function restorePgliteDataDir(dataDir: string, tarball: Uint8Array<ArrayBuffer>): Promise<void> {
  if (existsSync(join(dataDir, 'PG_VERSION'))) throw new Error(`${dataDir} already holds a store`);
  await (await openThread(dataDir, tarball, pgliteMemoryFor(tarball.byteLength))).close();
}

async function openThread(dataDir: string | null, snapshot: Uint8Array<ArrayBuffer> | null, memory: PgliteMemory): Promise<Database> {
  const artifacts = await pgliteArtifacts();
  const lock = lockEmbeddedDataDir(dataDir);
  const workerData: ThreadData = { dataDir, snapshot, memory, ...artifacts };
  const worker = new Worker(threadBootstrap(import.meta.url, 'pglite-thread', 'runPgliteThread'), { eval: true, workerData });
  const pending = new Map<number, Pending>();
  const listeners = new Map<number, (payload: string) => void>();
  let nextId = 0;
  let stopped: Error | null = null;
  let closed = false;

  const ready = new Promise<void>((resolve, reject) => {
    worker.on('message', (reply: ThreadReply) => {
      if ('ready' in reply) return resolve();
      if ('failed' in reply) return reject(rebuild(reply.failed));
      if ('notification' in reply) return listeners.get(reply.notification)?.(reply.payload);
      const call = pending.get(reply.id);
      if (!call) return;
      pending.delete(reply.id);
      // An idle thread must not keep the process alive, a busy one must.
      if (pending.size === 0) worker.unref();
      if (reply.error) call.reject(rebuild(reply.error));
      else call.resolve(reply);
    });
    const stop = (err: Error) => {
      // The exit that follows a failure must not hide its reason.
      stopped ??= err;
      reject(err);
      for (const call of pending.values()) call.reject(err);
      pending.clear();
    };
    worker.on('error', (err) => stop(new Error(`the embedded database thread failed: ${err.message}`)));
    worker.on('exit', () => stop(new Error('the embedded database is closed')));
  });
  try {
    await ready;
  } catch (err) {
    await worker.terminate();
    lock?.release();
    throw err;
  }
  worker.unref();

  const call = (message: Outgoing): Promise<Answer> => {
    if (stopped) return Promise.reject(stopped);
    const id = nextId++;
    return new Promise((resolve, reject) => {
      if (pending.size === 0) worker.ref();
      pending.set(id, { resolve, reject });
      worker.postMessage({ ...message, id });
    });
  };
  const queryable = (tx: number | null): Queryable => ({
    query: async <R>(sql: string, params?: unknown[]) => ((await call({ op: 'query', sql, params, tx })).rows ?? []) as R[],
    exec: async (sql: string) => {
      await call({ op: 'exec', sql, tx });
    },
  });

  return {
    kind: 'pglite',
    ...queryable(null),
    async transaction(fn) {
      const tx = nextId++;
      await call({ op: 'begin', tx });
      let result;
      try {
        result = await fn(queryable(tx));
      } catch (err) {
        await call({ op: 'rollback', tx }).catch(() => undefined);
        throw err;
      }
      await call({ op: 'commit', tx });
      return result;
    },
    // One message: the procedure's statements run in the thread, back to back.
    transact: async <I, O>({ name }: StoreProcedure<I, O>, input: I) => (await call({ op: 'transact', name, input })).value as O,
    // In-process for the store: nothing can be missed, so onReset never runs.
    async listen(channel, onMessage) {
      const subscription = nextId++;
      listeners.set(subscription, onMessage);
      await call({ op: 'listen', channel, subscription });
      return async () => {
        listeners.delete(subscription);
        // A closed database has no subscriptions left to end.
        if (!stopped) await call({ op: 'unlisten', subscription });
      };
    },
    dumpDataDir: async () => (await call({ op: 'dump' })).value as DataDirDump,
    async close() {
      if (closed) return;
      closed = true;
      if (!stopped) await call({ op: 'close' });
      await worker.terminate();
      lock?.release();
    },
  };
}
