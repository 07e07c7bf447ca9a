import type { Target } from '../../src/domain/targets.ts';
import type { SteppedEngine } from '../../src/engine/scheduler.ts';
import type { FixtureServer } from './fixture-server.ts';
import { insertMonitorRow } from './monitor-rows.ts';
import { serveShop, type ShopState } from './shop-page.ts';
import { checkDueMonitor } from './test-engine.ts';
import type { TestApp } from './test-app.ts';

let pageCounter = 0;

export const TITLE: Target = { id: 'title', kind: 'text', selection: { scope: 'selector', selector: '#title' }, rule: 'changed' };
/** The shop page's price (`#price`), alerting when it drops. */
export const PRICE: Target = {
  id: 'price',
  label: 'Price',
  kind: 'price',
  selection: { scope: 'selector', selector: '#price' },
  currency: 'EUR',
  rule: 'dropped',
};

/**
 * A monitor of a fresh shop page, and `check(changes)`: change the page, move
 * the clock to the monitor's due time and run one engine cycle. Other monitors
 * are paused first so that they neither fall due nor share the host's slots.
 */
export async function watchPage(
  t: TestApp,
  site: FixtureServer,
  engine: SteppedEngine,
  options: {
    accountId: string;
    targets?: Target[];
    initial?: Partial<ShopState>;
    emailEnabled?: boolean;
    webhookEnabled?: boolean;
    loadMode?: 'html' | 'browser';
  },
) {
  await t.db.query("UPDATE monitors SET status = 'paused'");
  const path = `/watched-${process.pid}-${++pageCounter}.html`;
  const setPage = serveShop(site, path, options.initial);
  const monitorId = await insertMonitorRow(t.db, {
    accountId: options.accountId,
    url: `${site.url}${path}`,
    targets: options.targets ?? [TITLE],
    nextCheckAt: t.clock.now(),
    emailEnabled: options.emailEnabled,
    webhookEnabled: options.webhookEnabled,
    loadMode: options.loadMode,
  });
  const check = async (changes: Partial<ShopState> = {}) => {
    setPage(changes);
    return checkDueMonitor(t, engine, monitorId);
  };
  return { monitorId, path, url: `${site.url}${path}`, setPage, check };
}
