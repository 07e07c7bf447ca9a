import type { Cursors } from './cursor.ts';
import type { ErrorCode } from '../errors.ts';
import type { Clock } from '../clock.ts';
import type { Config } from '../config.ts';
import type { Scope } from '../domain/scopes.ts';
import type { Database } from '../store/database.ts';
import type { Loaders } from '../fetch/loaders.ts';
import type { Metrics } from '../process-metrics.ts';
import type { ApiAccess } from '../services/api-access.ts';
import type { MonitorReads } from '../services/monitor-reads.ts';
import type { LimitState, RequestLimiter } from '../services/request-limits.ts';
import type { Principal } from '../services/tokens.ts';

/** What the process gives the HTTP layer. */
export interface CoreDeps {
  config: Config;
  db: Database;
  clock: Clock;
  loaders: Loaders;
  metrics: Metrics;
}

/** What the HTTP layer's plugins use: the process's deps and the API hot path's state, built with the app. */
export interface AppDeps extends CoreDeps {
  /** tokens and the API status, cached in this process */
  access: ApiAccess;
  /** the accounts' request limits */
  limiter: RequestLimiter;
  /** GET /monitors/{id}'s reads, grouped */
  monitorReads: MonitorReads;
  /** list cursors, sealed with the store's key */
  cursors: Cursors;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** the token scope an /api/v1 route requires; routes without one need no token */
    scope?: Scope;
    /** error codes particular to the route, beyond those its schema implies (listed in the OpenAPI document) */
    errors?: ErrorCode[];
  }
  interface FastifyRequest {
    principal: Principal | null;
    limitState: LimitState | null;
  }
}
