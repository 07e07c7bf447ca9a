import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../store/database.ts';
import { InMemoryRequestCounts } from './request-counts-in-memory.ts';
import { SqlRequestCounts } from './request-counts-in-sql.ts';
import { RequestLimits, type LimiterDeps, type RequestLimiter } from './request-limits.ts';

/** Exact counts in memory on the single-process embedded store; shared rows on PostgreSQL, which several processes use. */
export function createRequestLimiter(db: Database, deps: LimiterDeps, log: FastifyBaseLogger): RequestLimiter {
  const counts = db.kind === 'pglite' ? new InMemoryRequestCounts(db) : new SqlRequestCounts(db, () => deps.clock.now());
  return new RequestLimits(counts, deps, log);
}
