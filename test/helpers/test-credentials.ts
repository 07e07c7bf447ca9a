import { SCOPES } from '../../src/domain/scopes.ts';

// Apart from test-app.ts, which opens stores: a file that starts pagewatch
// processes on embedded stores only does not reach the store choice through
// these, so it does not run again on PostgreSQL (scripts/store-tests.js).

export const ADMIN_TOKEN = 'test-admin-token-0123456789';
/** Every scope a token can have (src/domain/scopes.ts). */
export const ALL_SCOPES: string[] = [...SCOPES];
