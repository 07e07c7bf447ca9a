import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Target } from '../../../src/domain/targets.ts';
import type { SteppedEngine } from '../../../src/engine/scheduler.ts';
import { MAX_WATCHED_LINKS } from '../../../src/domain/plans.ts';
import { createAccountWithToken, type TestApp } from '../../helpers/test-app.ts';
import type { FixtureServer } from '../../helpers/fixture-server.ts';
import { useMonitoringWorld } from '../../helpers/monitoring-world.ts';
import { watchPage } from '../../helpers/watched-page.ts';

// A links target watches every link of its selection (up to MAX_WATCHED_LINKS),
// not the ten an evaluate answer shows.

let t: TestApp, site: FixtureServer, engine: SteppedEngine;
useMonitoringWorld({}, (w) => ({ t, site, engine } = w));

const NEWS: Target = { id: 'l', kind: 'links', selection: { scope: 'selector', selector: '#links' }, rule: 'new_links' };
const thirty = Array.from({ length: 30 }, (_, i) => `/p/${String(i).padStart(4, '0')}`);

async function watchLinks(links: string[]) {
  const { accountId } = await createAccountWithToken(t.app);
  const page = await watchPage(t, site, engine, { accountId, targets: [NEWS], initial: { links } });
  const changes = () =>
    t.db.query<{ rule_matches: unknown; before_value: string[]; after_value: string[] }>(
      'SELECT rule_matches, before_value, after_value FROM changes WHERE monitor_id = $1 ORDER BY detected_at, id',
      [page.monitorId],
    );
  const issues = async () =>
    (
      await t.db.query<{ last_issues: { code: string }[] }>('SELECT last_issues FROM check_state WHERE monitor_id = $1', [page.monitorId])
    )[0]?.last_issues.map((i) => i.code);
  return { ...page, changes, issues, url: (path: string) => new URL(path, page.url).href };
}

test('a new link sorting after the tenth of thirty is reported as new', async () => {
  const m = await watchLinks(thirty);
  await m.check();
  await m.check({ links: [...thirty, '/p/9999'] });
  const [change, ...more] = await m.changes();
  assert.equal(more.length, 0);
  assert.deepEqual(change?.rule_matches, [{ target_id: 'l', rule: 'new_links' }]);
  assert.equal(change?.before_value.length, 30);
  assert.deepEqual(
    change?.after_value.filter((url) => !change.before_value.includes(url)),
    [m.url('/p/9999')],
  );
});

test('a new link sorting first is reported, and no watched link is reported gone', async () => {
  const m = await watchLinks(thirty);
  await m.check();
  await m.check({ links: ['/a/first', ...thirty] });
  const [change] = await m.changes();
  assert.deepEqual(change?.rule_matches, [{ target_id: 'l', rule: 'new_links' }]);
  assert.deepEqual(
    change?.before_value.filter((url) => !change.after_value.includes(url)),
    [],
  );
  assert.deepEqual(
    change?.after_value.filter((url) => !change.before_value.includes(url)),
    [m.url('/a/first')],
  );
});

test(`past ${MAX_WATCHED_LINKS} links the check reports links_too_many and the baseline stays`, async () => {
  const m = await watchLinks(thirty);
  await m.check();
  const many = Array.from({ length: MAX_WATCHED_LINKS + 1 }, (_, i) => `/q/${i}`);
  await m.check({ links: many });
  assert.deepEqual(await m.issues(), ['links_too_many']);
  assert.equal((await m.changes()).length, 0);
  await m.check({ links: thirty });
  assert.deepEqual(await m.issues(), []);
  assert.equal((await m.changes()).length, 0, 'the thirty links came back unchanged');
});
