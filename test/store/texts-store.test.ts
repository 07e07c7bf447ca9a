import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Database } from '../../src/store/database.ts';
import { deleteUnreferencedTexts, LAST_USE_REFRESH_MS, saveTexts, textHash, UNUSED_TEXT_GRACE_MS } from '../../src/store/texts-store.ts';
import { openTestDatabase } from '../helpers/test-database.ts';

// Captured texts are stored once per content; their last use decides when an
// unreferenced one is deleted, and is written again only when it has grown old.

let db: Database;
before(async () => {
  db = await openTestDatabase();
});
after(() => db.close());

const MINUTE = 60_000;
const start = new Date('2026-11-29T08:00:00Z');
const later = (ms: number) => new Date(start.getTime() + ms);

async function stored(hash: string): Promise<{ last_used_at: Date; version: string }> {
  const [row] = await db.query<{ last_used_at: Date; version: string }>(
    'SELECT last_used_at, xmin::text AS version FROM texts WHERE hash = $1',
    [hash],
  );
  assert.ok(row, 'the text is stored');
  return row;
}

function text(content: string, usedAt: Date) {
  return { hash: textHash(content), content, used_at: usedAt };
}

test('a text used again soon after keeps its row as it was: no new row version per check', async () => {
  const page = text('the same page, checked every minute', start);
  await saveTexts(db, [page]);
  const first = await stored(page.hash);
  for (let minute = 1; minute < LAST_USE_REFRESH_MS / MINUTE; minute++) await saveTexts(db, [{ ...page, used_at: later(minute * MINUTE) }]);
  const now = await stored(page.hash);
  assert.equal(now.version, first.version);
  assert.equal(now.last_used_at.getTime(), start.getTime());
});

test('a text used again once its noted use is older than the refresh interval gets the new use', async () => {
  const page = text('a page checked every quarter of an hour', start);
  await saveTexts(db, [page]);
  await saveTexts(db, [{ ...page, used_at: later(LAST_USE_REFRESH_MS + MINUTE) }]);
  assert.equal((await stored(page.hash)).last_used_at.getTime(), later(LAST_USE_REFRESH_MS + MINUTE).getTime());
});

test('a text in use is never old enough for the cleanup: its noted use lags by less than the grace', async () => {
  assert.ok(LAST_USE_REFRESH_MS < UNUSED_TEXT_GRACE_MS);
  const page = text('a page still watched, no baseline yet', start);
  await saveTexts(db, [page]);
  const lastCheck = later(LAST_USE_REFRESH_MS - MINUTE);
  await saveTexts(db, [{ ...page, used_at: lastCheck }]);
  await deleteUnreferencedTexts(db, new Date(lastCheck.getTime() - UNUSED_TEXT_GRACE_MS));
  await stored(page.hash);
});

test('many checks saving one page text at once store it once, each with its own text beside it', async () => {
  const shared = text('one account, one page, many monitors checked at once', start);
  await Promise.all(
    Array.from({ length: 16 }, (_, i) =>
      db.transaction((tx) => saveTexts(tx, [{ ...shared, used_at: later(i * MINUTE) }, text(`monitor ${i}'s own selection`, start)])),
    ),
  );
  const [row] = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM texts WHERE hash = $1', [shared.hash]);
  assert.equal(row!.n, 1);
  const [own] = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM texts WHERE content LIKE 'monitor %''s own selection'");
  assert.equal(own!.n, 16);
});
