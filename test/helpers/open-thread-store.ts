import { openPgliteThreadDatabase } from '../../src/store/pglite-thread-database.ts';
import { migratedSnapshot } from './migrated-snapshot.ts';

// Opens the embedded thread store, queries it, then either leaves it open and
// idle or closes it; either way the process must end on its own (the test
// gives it a timeout), as no thread or handle may be left keeping it alive.
const db = await openPgliteThreadDatabase(null, migratedSnapshot() ?? null);
await db.query('SELECT 1');
console.log('queried');
if (process.argv[2] === 'closed') await db.close();
