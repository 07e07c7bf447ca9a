import { after, before } from 'node:test';
import { startFixtureServer, type FixtureServer } from './fixture-server.ts';
import { ProcessGroup } from './pagewatch-process.ts';
import { createSharedSchema, type SharedSchema } from './shared-schema.ts';
import { testDatabaseUrl } from './test-database.ts';

/** What the multi-process tests run against: one PostgreSQL schema shared by the test and the processes it starts. */
export interface SharedWorld {
  /** the schema (migrated) and the test's own connection to it */
  shared: SharedSchema;
  /** local fixture web servers for the monitors to point at */
  sites: FixtureServer[];
  /** the pagewatch processes the test starts (DATABASE_URL: shared.url); all killed after the file's tests */
  group: ProcessGroup;
}

export interface SharedWorldOptions {
  /** how many fixture servers to start (default none) */
  sites?: number;
  /** runs after the processes are killed and before the sites close */
  beforeClose?: () => void;
}

/**
 * The skip reason of every test of a file that uses a shared world, or false
 * on PostgreSQL: `pagewatch api` and `pagewatch worker` refuse the embedded store.
 */
export const SHARED_WORLD_SKIP = testDatabaseUrl
  ? false
  : 'needs PostgreSQL (TEST_DATABASE_URL): pagewatch api and worker refuse the single-process embedded store';

/**
 * On PostgreSQL, makes a fresh shared schema and starts `sites` fixture
 * servers before the file's tests, then calls `use` (which may start the
 * file's processes); after the tests, kills every process, closes the sites
 * and drops the schema. Without TEST_DATABASE_URL nothing is started and
 * `use` is not called: the tests skip with SHARED_WORLD_SKIP, e.g.
 * `useSharedWorld({ sites: 3 }, (w) => ({ shared, sites, group } = w))` and
 * `test(name, { skip: SHARED_WORLD_SKIP }, …)`.
 */
export function useSharedWorld(options: SharedWorldOptions, use: (world: SharedWorld) => unknown): void {
  const group = new ProcessGroup();
  const sites: FixtureServer[] = [];
  let shared: SharedSchema | null = null;
  before(async () => {
    if (SHARED_WORLD_SKIP) return;
    shared = await createSharedSchema();
    for (let i = 0; i < (options.sites ?? 0); i++) sites.push(await startFixtureServer());
    await use({ shared, sites, group });
  });
  after(async () => {
    await group.killAll();
    options.beforeClose?.();
    await Promise.all(sites.map((s) => s.close()));
    await shared?.drop();
  });
}
