import type { Database } from '../../src/store/database.ts';
import { startFixtureServer } from './fixture-server.ts';
import { createAccountWithToken, startTestApp } from './test-app.ts';
import { startTestEngine } from './test-engine.ts';
import { watchPage } from './watched-page.ts';

// An embedded store as a user's would be before `pagewatch migrate-store`:
// one account with a token and a watched page checked three times, so that it
// holds monitors, check history, two changes and their queued deliveries.
// Written through the product's own API and engine, against a local page.

export interface PopulatedStore {
  accountId: string;
  token: string;
  monitorId: string;
}

/** Fills `db` (an open, migrated store) and leaves it open. */
export async function populateStore(db: Database): Promise<PopulatedStore> {
  const t = await startTestApp({ sharedDb: db });
  const site = await startFixtureServer();
  const engine = startTestEngine(t);
  try {
    const account = await createAccountWithToken(t.app);
    const page = await watchPage(t, site, engine, { accountId: account.accountId, emailEnabled: true, webhookEnabled: true });
    await page.check();
    await page.check({ title: 'Espresso Trio' });
    await page.check({ title: 'Espresso Quartet' });
    return { accountId: account.accountId, token: account.token, monitorId: page.monitorId };
  } finally {
    await engine.stop();
    await t.close();
    await site.close();
  }
}
