import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../store/database.ts';
import { EmbeddedLimiter } from './request-limits-embedded.ts';
import type { LimiterDeps, RequestLimiter } from './request-limits.ts';
import { SharedLimiter } from './request-limits-shared.ts';

/** Exact counts in memory on the single-process embedded store; shared rows on PostgreSQL, which several processes use. */
export function createRequestLimiter(db: Database, deps: LimiterDeps, log: FastifyBaseLogger): RequestLimiter {
  return db.kind === 'pglite' ? new EmbeddedLimiter(db, deps, log) : new SharedLimiter(db, deps, log);
}
