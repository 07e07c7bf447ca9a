import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readImportSource, IMPORT_LIMITS, ImportSourceError } from '../../src/domain/imports/import-source.ts';
import { buildZip } from '../helpers/zip-builder.ts';

// Reading what people bring from changedetection.io: its backup archive (a ZIP
// with url-watches.json), that file alone, or a plain list of URLs. The
// fixture follows url-watches.json's documented layout.

const TAGS = { 'tag-shop': { title: 'shop', uuid: 'tag-shop' }, 'tag-rivals': { title: 'competitor', uuid: 'tag-rivals' } };
const WATCHES = {
  watching: {
    'w-1': {
      url: 'https://shop.example.com/espresso',
      title: 'Espresso machine',
      tags: ['tag-shop', 'tag-rivals'],
      time_between_check: { weeks: null, days: null, hours: 3, minutes: 30, seconds: null },
      include_filters: ['#price', '.availability'],
      fetch_backend: 'html_requests',
      paused: false,
    },
    'w-2': {
      url: 'https://rival.example.com/news',
      title: '',
      tags: [],
      include_filters: ['//div[@id="news"]', 'h1.headline'],
      fetch_backend: 'html_webdriver',
      browser_steps: [
        { operation: 'Click element', selector: '#accept', optional_value: '' },
        { operation: 'Choose one', selector: '', optional_value: '' },
      ],
      notification_urls: ['mailto://me@example.com', 'tgram://bot/chat'],
      subtractive_selectors: ['.ads'],
    },
    'w-3': { url: 'https://old.example.com/page', tag: 'legacy, docs', paused: true, time_between_check: { weeks: 2 } },
    'w-4': { url: 'ftp://files.example.com/list' },
    'w-5': { url: 'https://shop.example.com/espresso', title: 'the same page again' },
  },
  settings: { application: { tags: TAGS } },
};

const archive = () => buildZip([{ name: 'url-watches.json', content: JSON.stringify(WATCHES) }]);

test('a changedetection.io backup maps URL, title, tags to labels, interval, CSS filters to selector targets and paused', () => {
  const plan = readImportSource(archive());
  assert.deepEqual(plan.drafts[0], {
    url: 'https://shop.example.com/espresso',
    name: 'Espresso machine',
    labels: ['shop', 'competitor'],
    interval_minutes: 210,
    schedule: null,
    load_mode: 'html',
    targets: [
      { id: 'css-1', kind: 'text', selection: { scope: 'selector', selector: '#price' }, rule: 'changed' },
      { id: 'css-2', kind: 'text', selection: { scope: 'selector', selector: '.availability' }, rule: 'changed' },
    ],
    status: 'active',
    not_carried: [],
  });
  const legacy = plan.drafts[2]!;
  assert.deepEqual(legacy.labels, ['legacy', 'docs']);
  assert.equal(legacy.status, 'paused');
  assert.deepEqual(legacy.targets, [{ id: 'page', kind: 'text', selection: { scope: 'page' }, rule: 'changed' }]);
});

test('XPath filters become XPath targets and json: filters JSONPath targets', () => {
  const [, rival] = readImportSource(archive()).drafts;
  assert.deepEqual(
    rival!.targets.map((t) => [t.id, t.selection]),
    [
      ['xpath-1', { scope: 'xpath', expression: '//div[@id="news"]' }],
      ['css-2', { scope: 'selector', selector: 'h1.headline' }],
    ],
  );
  const json = readImportSource(
    Buffer.from(
      JSON.stringify({ watching: { j: { url: 'https://api.example/p', include_filters: ['json:$.offers[0].price', 'xpath:(//h2)[1]'] } } }),
    ),
  ).drafts[0]!;
  assert.deepEqual(
    json.targets.map((t) => t.selection),
    [
      { scope: 'json', path: '$.offers[0].price' },
      { scope: 'xpath', expression: '(//h2)[1]' },
    ],
  );
});

test('what cannot be carried over is said for each watch, with its values: browser steps, notification URLs, removed elements, a too long interval', () => {
  const [, rival, legacy] = readImportSource(archive()).drafts;
  assert.equal(rival!.load_mode, 'browser');
  assert.deepEqual(rival!.not_carried, [
    '1 browser step: not supported',
    '2 notification URLs: add the services as channels (POST /api/v1/channels)',
    'elements removed before comparing (".ads"): not carried over',
  ]);
  assert.deepEqual(legacy!.not_carried, ['its interval of 20160 minutes: the longest is 10080 (one week), taken instead']);
  assert.equal(legacy!.interval_minutes, 10_080);
});

test('watches without a web URL, and second watches of one URL, are listed as skipped with the reason', () => {
  const plan = readImportSource(archive());
  assert.equal(plan.drafts.length, 3);
  assert.deepEqual(plan.skipped, [
    { source: 'watch w-4', reason: 'no http:// or https:// URL' },
    { source: 'watch w-5', reason: 'a second watch of https://shop.example.com/espresso' },
  ]);
});

test('url-watches.json alone reads as the archive does', () => {
  assert.deepEqual(readImportSource(Buffer.from(JSON.stringify(WATCHES))), readImportSource(archive()));
});

test('a plain URL list gives one whole-page monitor per URL and lists the lines it could not use', () => {
  const plan = readImportSource(
    Buffer.from(
      '# my pages\nhttps://a.example.com/\n\n  https://b.example.com/x  \nnot a url\nhttps://a.example.com/\njavascript:alert(1)\n',
    ),
  );
  assert.deepEqual(
    plan.drafts.map((d) => [d.url, d.targets[0]!.selection.scope]),
    [
      ['https://a.example.com/', 'page'],
      ['https://b.example.com/x', 'page'],
    ],
  );
  assert.deepEqual(plan.skipped, [
    { source: 'line 5', reason: 'not an http:// or https:// URL: not a url' },
    { source: 'line 6', reason: 'https://a.example.com/ is listed twice' },
    { source: 'line 7', reason: 'not an http:// or https:// URL: javascript:alert(1)' },
  ]);
});

test('entry names are only compared, never followed: a path-escaping entry is ignored and the archive still reads', () => {
  const zip = buildZip([
    { name: '../../../../tmp/pagewatch-zip-slip.txt', content: 'owned' },
    { name: '../url-watches.json', content: '{"watching": {"x": {"url": "https://evil.example.com/"}}}' },
    { name: 'url-watches.json', content: JSON.stringify(WATCHES) },
  ]);
  assert.deepEqual(readImportSource(zip), readImportSource(archive()));
  const onlyEscaping = buildZip([{ name: '../url-watches.json', content: '{"watching": {}}' }]);
  assert.throws(() => readImportSource(onlyEscaping), /has no url-watches.json/);
});

test('a zip bomb is refused when its inflated size passes the limit, whatever size the archive claims', () => {
  const bomb = buildZip([{ name: 'url-watches.json', content: Buffer.alloc(IMPORT_LIMITS.maxFileBytes + 1, 0x20), claimedSize: 100 }]);
  assert.ok(bomb.length < 100_000, `the bomb is small (${bomb.length} bytes)`);
  assert.throws(
    () => readImportSource(bomb),
    (err: Error) => err instanceof ImportSourceError && /inflates to more than 20971520 bytes/.test(err.message),
  );
  const storedBomb = buildZip([{ name: 'url-watches.json', content: Buffer.alloc(2000, 0x20), stored: true }]);
  assert.throws(() => readImportSource(storedBomb, { ...IMPORT_LIMITS, maxFileBytes: 1000 }), /inflates to more than 1000 bytes/);
});

test('an archive with too many entries, too large, encrypted, damaged or not deflated is refused with the reason', () => {
  const many = buildZip(Array.from({ length: IMPORT_LIMITS.maxEntries + 1 }, (_, i) => ({ name: `f${i}`, content: '', stored: true })));
  assert.throws(() => readImportSource(many), /has 10001 entries, more than the 10000 read/);
  assert.throws(() => readImportSource(archive(), { ...IMPORT_LIMITS, maxArchiveBytes: 100 }), /larger than 100 bytes/);
  const encrypted = buildZip([{ name: 'url-watches.json', content: '{}', encrypted: true }]);
  assert.throws(() => readImportSource(encrypted), /url-watches.json is encrypted/);
  const whole = archive();
  const damaged = Buffer.concat([whole.subarray(0, 40), whole.subarray(whole.length - 22)]);
  assert.throws(() => readImportSource(damaged), ImportSourceError);
  assert.throws(() => readImportSource(Buffer.from('PK\u0003\u0004 and nothing else')), /not a ZIP archive/);
});

test('a JSON file that is not url-watches.json is refused, not read as an empty import', () => {
  assert.throws(() => readImportSource(Buffer.from('{"monitors": []}')), /has no "watching" object/);
  assert.throws(() => readImportSource(Buffer.from('{"watching": ')), /not valid JSON/);
});

test('more watches than one import takes are listed as skipped', () => {
  const watching = Object.fromEntries(Array.from({ length: 3 }, (_, i) => [`w${i}`, { url: `https://s.example.com/${i}` }]));
  const plan = readImportSource(Buffer.from(JSON.stringify({ watching })), { ...IMPORT_LIMITS, maxMonitors: 2 });
  assert.equal(plan.drafts.length, 2);
  assert.deepEqual(plan.skipped, [{ source: 'watch w2', reason: 'more than 2 watches in one import' }]);
});

function scheduledWatch(limit: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  const watches = { watching: { 'w-1': { url: 'https://shop.example.com/', time_schedule_limit: { enabled: true, ...limit }, ...extra } } };
  return readImportSource(Buffer.from(JSON.stringify(watches))).drafts[0]!;
}
const day = (start_time: string, hours: number | string, enabled = true) => ({ enabled, start_time, duration: { hours, minutes: '00' } });
const WEEK = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday'];
const weekdays = (window: object) => Object.fromEntries(WEEK.map((d) => [d, window]));

test("a changedetection.io scheduler with the same whole hours on its days becomes the monitor's days and hours, in its time zone", () => {
  const draft = scheduledWatch({ timezone: 'America/New_York', ...weekdays(day('09:00', '8')), saturday: day('09:00', 8, false) });
  assert.deepEqual(draft.schedule, { timezone: 'America/New_York', days: ['mon', 'tue', 'wed', 'thu', 'fri'], hours: { from: 9, to: 17 } });
  assert.deepEqual(draft.not_carried, []);
});

test("a scheduler window past midnight wraps, a whole-day window leaves the hours out, and no time zone means the installation's", () => {
  const night = scheduledWatch({ ...weekdays(day('22:00', 8)) });
  assert.deepEqual(night.schedule, { timezone: 'UTC', days: ['mon', 'tue', 'wed', 'thu', 'fri'], hours: { from: 22, to: 6 } });
  const watches = {
    watching: { 'w-1': { url: 'https://shop.example.com/', time_schedule_limit: { enabled: true, sunday: day('00:00', 24) } } },
    settings: { application: { timezone: 'Europe/Berlin' } },
  };
  assert.deepEqual(readImportSource(Buffer.from(JSON.stringify(watches))).drafts[0]!.schedule, {
    timezone: 'Europe/Berlin',
    days: ['sun'],
  });
});

test("a watch that uses the installation's defaults takes the installation's scheduler", () => {
  const watches = {
    watching: { 'w-1': { url: 'https://shop.example.com/', time_between_check_use_default: true } },
    settings: { requests: { time_schedule_limit: { enabled: true, timezone: 'Asia/Tokyo', saturday: day('10:00', 2) } } },
  };
  assert.deepEqual(readImportSource(Buffer.from(JSON.stringify(watches))).drafts[0]!.schedule, {
    timezone: 'Asia/Tokyo',
    days: ['sat'],
    hours: { from: 10, to: 12 },
  });
});

test('a scheduler pagewatch cannot express is listed as not carried over, and the monitor checks around the clock', () => {
  const cases: [Record<string, unknown>, Record<string, unknown>, RegExp][] = [
    [{ monday: day('09:00', 8), tuesday: day('10:00', 8) }, {}, /different hours/],
    [{ monday: day('09:30', 8) }, {}, /do not start and end on the hour/],
    [{ monday: day('09:00', 8, false) }, {}, /no day is enabled/],
    [{ timezone: 'Mars/Olympus', monday: day('09:00', 8) }, {}, /Mars\/Olympus is not an IANA time zone/],
    [
      { monday: day('09:00', 8) },
      { time_between_check: { days: 1 } },
      /8 active hours a day are shorter than its interval of 1440 minutes/,
    ],
  ];
  for (const [limit, extra, reason] of cases) {
    const draft = scheduledWatch(limit, extra);
    assert.equal(draft.schedule, null);
    assert.match(draft.not_carried.join('\n'), reason);
    assert.match(draft.not_carried.join('\n'), /the monitor checks around the clock/);
  }
});

test('a disabled scheduler is no schedule and nothing left out', () => {
  const draft = scheduledWatch({ enabled: false, monday: day('09:00', 8) });
  assert.equal(draft.schedule, null);
  assert.deepEqual(draft.not_carried, []);
});
