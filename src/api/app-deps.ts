import type { Clock } from '../clock.ts';
import type { Config } from '../config.ts';
import type { Scope } from '../domain/scopes.ts';
import type { Database } from '../store/database.ts';
import type { Loaders } from '../engine/loaders.ts';
import type { Metrics } from '../metrics.ts';
import type { LimitState } from '../services/request-limits.ts';
import type { Principal } from '../services/tokens.ts';

/** What the HTTP layer needs from the rest of the process, built once at start. */
export interface AppDeps {
  config: Config;
  db: Database;
  clock: Clock;
  loaders: Loaders;
  metrics: Metrics;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** the token scope an /api/v1 route requires; routes without one need no token */
    scope?: Scope;
  }
  interface FastifyRequest {
    principal: Principal | null;
    limitState: LimitState | null;
  }
}
