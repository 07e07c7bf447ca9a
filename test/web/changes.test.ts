import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Target } from '../../src/domain/targets.ts';
import type { SteppedEngine } from '../../src/engine/scheduler.ts';
import { type TestApp } from '../helpers/test-app.ts';
import type { FixtureServer } from '../helpers/fixture-server.ts';
import { useMonitoringWorld } from '../helpers/monitoring-world.ts';
import { PRICE, TITLE, watchPage } from '../helpers/watched-page.ts';
import { createOwner, signedIn } from '../helpers/dashboard-client.ts';

let t: TestApp, site: FixtureServer, engine: SteppedEngine;
useMonitoringWorld({}, (w) => ({ t, site, engine } = w));

const STOCK: Target = {
  id: 'stock',
  label: 'Stock',
  kind: 'availability',
  selection: { scope: 'selector', selector: '#stock' },
  rule: 'available',
};

test("a monitor's changes: newest first, rule matches highlighted, price chart, availability timeline, escaped diff", async () => {
  const owner = await createOwner(t.app);
  const page = await watchPage(t, site, engine, { accountId: owner.accountId, targets: [{ ...TITLE, label: 'Title' }, PRICE, STOCK] });
  await page.check();
  await page.check({ price: '€25.00', title: '&lt;script&gt;alert(1)&lt;/script&gt; Espresso' });
  await page.check({ price: '€27.50', stock: 'Out of stock' });
  await page.check({ stock: 'In stock' });

  const client = await signedIn(t.app, owner.email);
  const list = await client.get(`/monitors/${page.monitorId}/changes`);
  assert.equal(list.statusCode, 200);
  const rows = list.body.match(/<a href="\/changes\/[0-9a-f-]{36}">/g) ?? [];
  assert.equal(rows.length, 5, 'title, two prices, two stock changes');
  const table = list.body.slice(list.body.indexOf('All changes, newest first'));
  assert.ok(table.indexOf('Stock <span class="muted">(availability)') < table.indexOf('Title <span class="muted">(text)'), 'newest first');
  // The page's text is "<script>alert(1)</script> Espresso": captured as text, shown escaped.
  assert.ok(!list.body.includes('<script>alert(1)'));
  assert.match(list.body, /&lt;script&gt;alert\(1\)&lt;\/script&gt; Espresso/);
  assert.match(list.body, /<span class="match">dropped<\/span>/);
  assert.match(list.body, /<span class="match">available<\/span>/);
  assert.match(list.body, /<span class="muted">no rule matched<\/span>/);

  assert.match(list.body, /<svg class="chart"[^>]*role="img"/);
  const dots = list.body.match(/<circle class="dot"/g) ?? [];
  assert.equal(dots.length, 3, '29.00, 25.00, 27.50 EUR');
  assert.match(list.body, /lowest 25\.00 EUR, highest 29\.00 EUR, latest 27\.50 EUR/);
  assert.match(list.body, /<ol class="timeline"><li class="state-in_stock">in stock from/);
  assert.match(list.body, /<li class="state-out_of_stock">out of stock from/);

  const titleChange = /<a href="(\/changes\/[0-9a-f-]{36})">(?:(?!<\/tr>)[^])*?&lt;script/.exec(table)![1]!;
  const detail = await client.get(titleChange);
  assert.equal(detail.statusCode, 200);
  assert.match(detail.body, /<h1>Title changed<\/h1>/);
  assert.match(detail.body, /<span class="del"><span class="visually-hidden">removed: <\/span>-Espresso Duo<\/span>/);
  assert.match(
    detail.body,
    /<span class="add"><span class="visually-hidden">added: <\/span>\+&lt;script&gt;alert\(1\)&lt;\/script&gt; Espresso<\/span>/,
  );
  assert.ok(!detail.body.includes('<script>alert(1)'));
});

test("another account's changes are not found", async () => {
  const owner = await createOwner(t.app);
  const page = await watchPage(t, site, engine, { accountId: owner.accountId });
  await page.check();
  await page.check({ title: 'Renamed' });
  const client = await signedIn(t.app, owner.email);
  const changeUrl = /href="(\/changes\/[0-9a-f-]{36})"/.exec((await client.get(`/monitors/${page.monitorId}/changes`)).body)![1]!;
  const stranger = await signedIn(t.app, (await createOwner(t.app)).email);
  assert.equal((await stranger.get(changeUrl)).statusCode, 404);
  assert.equal((await stranger.get(`/monitors/${page.monitorId}/changes`)).statusCode, 404);
  assert.equal((await client.get('/changes/not-a-uuid')).statusCode, 404);
});

test('a long captured value is cut to a short summary in the changes table, with the whole value one click away', async () => {
  const owner = await createOwner(t.app);
  const page = await watchPage(t, site, engine, { accountId: owner.accountId, targets: [{ ...TITLE, label: 'Title' }] });
  await page.check();
  const long = `Espresso ${'very long product title '.repeat(12)}end`;
  await page.check({ title: long });
  const client = await signedIn(t.app, owner.email);
  const list = await client.get(`/monitors/${page.monitorId}/changes`);
  assert.match(list.body, /<table class="cards changes">/);
  const cell = /<td class="value" data-label="After"><details class="long"><summary>([^<]*)<\/summary>([^<]*)<\/details><\/td>/.exec(
    list.body,
  );
  assert.ok(cell, 'the long value is folded');
  assert.equal(cell[1], `${long.slice(0, 160)}…`);
  assert.equal(cell[2], long);
  assert.match(list.body, /<td class="value" data-label="Before">Espresso Duo<\/td>/, 'a short value is shown as it is');
});
