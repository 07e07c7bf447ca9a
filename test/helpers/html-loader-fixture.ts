import { after, before } from 'node:test';
import { createHtmlLoader, type HtmlLoaderOptions } from '../../src/fetch/loader/html-loader.ts';
import type { LoadResult, PageLoader } from '../../src/fetch/loader/types.ts';
import { guardPolicy } from '../../src/fetch/ssrf/guard.ts';
import { startFixtureServer, type FixtureRoute, type FixtureServer } from './fixture-server.ts';
import { loaderRoutes } from './loader-routes.ts';

// The html loader against the loader fixture routes on the local fixture
// server (127.0.0.1, trusted like the test configuration does). Call
// useHtmlLoaderFixture() at the top of a test file: the server and a default
// loader start before its tests and close after them.

export const loopbackPolicy = guardPolicy({ trustedCidrs: ['127.0.0.0/8'] });

export interface HtmlLoaderFixture {
  /** the fixture server's base URL */
  readonly url: string;
  /** the default loader: the loopback policy, default limits */
  readonly loader: PageLoader;
  /** loads a path of the fixture server in html mode, with the default loader unless given another */
  load(path: string, target?: PageLoader): Promise<LoadResult>;
  /** adds or replaces a route of the fixture server */
  route(path: string, handler: FixtureRoute): void;
  /** runs with a loader of other options (the loopback policy unless given), closed afterwards */
  withLoader<T>(options: Partial<HtmlLoaderOptions>, run: (loader: PageLoader) => Promise<T>): Promise<T>;
}

export function useHtmlLoaderFixture(): HtmlLoaderFixture {
  let server: FixtureServer;
  let loader: PageLoader;
  before(async () => {
    server = await startFixtureServer(loaderRoutes());
    loader = createHtmlLoader({ policy: loopbackPolicy });
  });
  after(async () => {
    await loader.close();
    await server.close();
  });
  return {
    get url() {
      return server.url;
    },
    get loader() {
      return loader;
    },
    route: (path, handler) => server.route(path, handler),
    load: (path, target = loader) => target.load({ url: `${server.url}${path}`, mode: 'html' }),
    async withLoader(options, run) {
      const custom = createHtmlLoader({ policy: loopbackPolicy, ...options });
      try {
        return await run(custom);
      } finally {
        await custom.close();
      }
    },
  };
}
