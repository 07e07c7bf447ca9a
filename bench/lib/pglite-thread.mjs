// The worker thread of bench/pglite-thread-probe.ts: PGlite on the data
// directory it is given, answering one message per query with the rows.
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';

const db = new PGlite(workerData.dataDir);
await db.waitReady;
parentPort.on('message', async ({ id, sql, params }) => {
  try {
    const result = await db.query(sql, params);
    parentPort.postMessage({ id, rows: result.rows });
  } catch (err) {
    parentPort.postMessage({ id, error: String(err) });
  }
});
parentPort.postMessage({ ready: true });
