import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { PGlite, type Transaction } from '@electric-sql/pglite';
import type { DataDirDump, Queryable } from './database.ts';
import { preparedStatements } from './pglite-statements.ts';
import { isPreparable } from './preparable.ts';
import { pgliteMemoryParams, type PgliteMemory } from './pglite-memory.ts';
import { SnapshotFilesystem } from './pglite-snapshot-fs.ts';
import { storeProcedureNamed } from './procedures/index.ts';

// The thread side of the embedded store (pglite-thread-database.ts is the
// other): PGlite runs here, so its query execution does not take turns with
// HTTP, extraction and the engine on the main event loop. One message per
// query; a transaction stays open across messages until commit or rollback,
// or runs here whole, one message, when it is a store procedure (the
// registry in procedures/index.ts: the engine's claims and commits). Statements are kept prepared
// (pglite-statements.ts).

export type ThreadRequest = { id: number } & (
  | { op: 'query'; sql: string; params: unknown[] | undefined; tx: number | null }
  | { op: 'exec'; sql: string; tx: number | null }
  | { op: 'begin' | 'commit' | 'rollback'; tx: number }
  | { op: 'transact'; name: string; input: unknown }
  | { op: 'listen'; channel: string; subscription: number }
  | { op: 'unlisten'; subscription: number }
  | { op: 'dump' }
  | { op: 'close' }
);

/** What a PostgreSQL error carries that callers read (SQLSTATE, constraint): Error's own cloning would drop it. */
export interface ThreadError {
  message: string;
  fields: Record<string, string | undefined>;
}

export type ThreadReply =
  | { id: number; rows?: unknown[]; value?: unknown; error?: ThreadError }
  | { notification: number; payload: string }
  | { ready: true }
  | { failed: ThreadError };

export interface ThreadData {
  /** null keeps PGlite in memory */
  dataDir: string | null;
  /** the starting data directory, as PGlite's dumpDataDir writes it, of an in-memory store or a new directory; null creates a new one */
  snapshot: Uint8Array<ArrayBuffer> | null;
  /** PGlite's WebAssembly, compiled once by the main thread (its file-system bundle the thread reads itself) */
  pgliteWasmModule: WebAssembly.Module;
  initdbWasmModule: WebAssembly.Module;
  /** PostgreSQL's memory settings (pglite-memory.ts) */
  memory: PgliteMemory;
}

const ERROR_FIELDS = ['code', 'severity', 'detail', 'hint', 'schema', 'table', 'column', 'constraint', 'position', 'where'] as const;

function describe(err: unknown): ThreadError {
  const source = (err ?? {}) as Record<string, unknown>;
  const fields: Record<string, string | undefined> = {};
  for (const name of ERROR_FIELDS) if (typeof source[name] === 'string') fields[name] = source[name];
  return { message: err instanceof Error ? err.message : String(err), fields };
}

interface OpenTransaction {
  tx: Transaction | null;
  finish: { commit: () => void; rollback: (reason: Error) => void } | null;
  finished: Promise<void>;
}

const ROLLBACK = new Error('rolled back by the caller');

/**
 * The data directory as a tarball, taken between transactions: a checkpoint
 * first (so the copy needs no WAL replay), then the copy under PGlite's
 * transaction lock, which waits for an open transaction to end and holds
 * every other statement until the files are read.
 */
async function dumpDataDir(db: PGlite): Promise<DataDirDump> {
  await db.exec('CHECKPOINT');
  let heldMs = 0;
  const dump = await db._runExclusiveTransaction(async () => {
    const started = performance.now();
    const blob = await db.dumpDataDir('none');
    heldMs = performance.now() - started;
    return blob;
  });
  return { tarball: new Uint8Array(await dump.arrayBuffer()), heldMs };
}

/**
 * A data directory's tarball as the Blob PGlite reads it from, answering its
 * bytes as they are: Node 20's own Blob hands them over in 64 KiB chunks
 * joined again, a large share of a store's start from a snapshot
 * (docs/decisions/0063-test-files-batched-per-process.md). PGlite reads a
 * data directory's Blob by arrayBuffer() alone; holding no copy of its own
 * (which cost most of the gain), this Blob answers nothing else. A store
 * restored from a backup is unpacked through it, so a PGlite that read it
 * otherwise fails the restore tests.
 */
class TarballBlob extends Blob {
  readonly #bytes: Uint8Array<ArrayBuffer>;
  constructor(bytes: Uint8Array<ArrayBuffer>) {
    super([]);
    this.#bytes = bytes;
  }
  override get size(): number {
    return this.#bytes.byteLength;
  }
  override arrayBuffer(): Promise<ArrayBuffer> {
    const { buffer, byteOffset, byteLength } = this.#bytes;
    return Promise.resolve(
      byteOffset === 0 && byteLength === buffer.byteLength ? buffer : buffer.slice(byteOffset, byteOffset + byteLength),
    );
  }
}

/** The thread's entry point: opens PGlite and answers the main thread until told to close. */
export async function runPgliteThread(): Promise<void> {
  const port = parentPort as MessagePort;
  const { dataDir, snapshot, pgliteWasmModule, initdbWasmModule, memory } = workerData as ThreadData;
  let db: PGlite;
  try {
    db = new PGlite({
      dataDir: dataDir ?? undefined,
      // in memory from a snapshot: written here (pglite-snapshot-fs.ts); into a new directory: PGlite unpacks it
      fs: snapshot && dataDir === null ? new SnapshotFilesystem(snapshot) : undefined,
      loadDataDir: snapshot && dataDir !== null ? new TarballBlob(snapshot) : undefined,
      pgliteWasmModule,
      initdbWasmModule,
      startParams: [...PGlite.defaultStartParams, ...pgliteMemoryParams(memory)],
    });
    await db.waitReady;
  } catch (err) {
    port.postMessage({ failed: describe(err) } satisfies ThreadReply);
    return;
  }
  const statements = preparedStatements(db);
  const transactions = new Map<number, OpenTransaction>();
  const subscriptions = new Map<number, () => Promise<void>>();
  const reply = (message: ThreadReply) => port.postMessage(message);

  const target = (tx: number | null): PGlite | Transaction => {
    if (tx === null) return db;
    const open = transactions.get(tx)?.tx;
    if (!open) throw new Error('the transaction is already over');
    return open;
  };

  const begin = (id: number, tx: number) => {
    const open: OpenTransaction = { tx: null, finish: null, finished: Promise.resolve() };
    transactions.set(tx, open);
    open.finished = db.transaction(
      (handle) =>
        new Promise<void>((commit, rollback) => {
          open.tx = handle;
          open.finish = { commit, rollback };
          reply({ id });
        }),
    );
    // BEGIN itself failed: the callback never ran, so nobody was answered yet.
    open.finished.catch((err: unknown) => {
      if (open.tx === null) {
        transactions.delete(tx);
        reply({ id, error: describe(err) });
      }
    });
  };

  // One statement on the store or in an open transaction; planned ones run prepared.
  const run = async (on: PGlite | Transaction, sql: string, params: unknown[] | undefined): Promise<unknown[]> =>
    isPreparable(sql) ? statements.query(sql, params ?? [], on !== db) : (await on.query(sql, params)).rows;

  // A procedure's statements, inside its PGlite transaction.
  const local = (handle: Transaction): Queryable => ({
    query: async <R>(sql: string, params?: unknown[]) => (await run(handle, sql, params)) as R[],
    exec: async (sql: string) => {
      await handle.exec(sql);
    },
  });

  const transact = async (name: string, input: unknown): Promise<unknown> => {
    const procedure = storeProcedureNamed(name);
    return db.transaction((handle) => procedure.run(local(handle), input));
  };

  const end = async (tx: number, commit: boolean): Promise<void> => {
    const open = transactions.get(tx);
    if (!open?.finish) throw new Error('the transaction is already over');
    transactions.delete(tx);
    if (commit) {
      open.finish.commit();
      await open.finished;
    } else {
      open.finish.rollback(ROLLBACK);
      await open.finished.catch(() => undefined);
    }
  };

  const handle = async (request: ThreadRequest): Promise<unknown[] | undefined> => {
    switch (request.op) {
      case 'query':
        return run(target(request.tx), request.sql, request.params);
      case 'exec':
        await target(request.tx).exec(request.sql);
        return undefined;
      case 'commit':
      case 'rollback':
        await end(request.tx, request.op === 'commit');
        return undefined;
      case 'listen':
        subscriptions.set(
          request.subscription,
          await db.listen(request.channel, (payload) => reply({ notification: request.subscription, payload })),
        );
        return undefined;
      case 'unlisten':
        await subscriptions.get(request.subscription)?.();
        subscriptions.delete(request.subscription);
        return undefined;
      case 'close':
        await db.close();
        return undefined;
      case 'dump':
        throw new Error('dump is answered on its own');
      case 'begin':
      case 'transact':
        throw new Error(`${request.op} is answered on its own`);
    }
  };

  port.on('message', (request: ThreadRequest) => {
    if (request.op === 'begin') return begin(request.id, request.tx);
    if (request.op === 'dump') {
      dumpDataDir(db).then(
        // Handed over, not copied: a large store's copy would otherwise be in memory twice.
        (value) => port.postMessage({ id: request.id, value } satisfies ThreadReply, [value.tarball.buffer]),
        (err: unknown) => reply({ id: request.id, error: describe(err) }),
      );
      return;
    }
    if (request.op === 'transact') {
      transact(request.name, request.input).then(
        (value) => {
          // Committed, but an output that cannot be copied (a function, say) must still be answered.
          try {
            reply({ id: request.id, value });
          } catch (err) {
            reply({ id: request.id, error: describe(err) });
          }
        },
        (err: unknown) => reply({ id: request.id, error: describe(err) }),
      );
      return;
    }
    handle(request).then(
      (rows) => {
        reply(rows === undefined ? { id: request.id } : { id: request.id, rows });
        // The port is what keeps this thread alive; closing it lets the thread end.
        if (request.op === 'close') port.close();
      },
      (err: unknown) => reply({ id: request.id, error: describe(err) }),
    );
  });
  reply({ ready: true });
}
