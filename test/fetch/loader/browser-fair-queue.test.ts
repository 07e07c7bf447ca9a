import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { createBrowserLoader, type BrowserLoaderOptions } from '../../../src/fetch/loader/browser-loader.ts';
import { RendererBusy } from '../../../src/fetch/loader/load-errors.ts';
import type { Lane } from '../../../src/domain/fair-queue.ts';
import type { LoadResult, PageLoader } from '../../../src/fetch/loader/types.ts';
import { startFixtureServer, type FixtureServer } from '../../helpers/fixture-server.ts';
import { createMetrics, queueObserver } from '../../../src/process-metrics.ts';

// The browser's pages are handed out fairly: loads wait in a fair queue
// (accounts take turns), interactive loads are bounded per account and
// overall (past a bound: RendererBusy, the API's 503 with Retry-After), and
// checks keep a page interactive loads cannot take. Real Chromium against a
// fixture server whose pages answer only when the test lets them, so the
// order in which Chromium asks for them is the order their loads started.
// The queue reports its depth and waits like the extraction queue.
const policy = { allowPorts: [80, 443], trustedCidrs: ['127.0.0.0/8'] };

let site: FixtureServer;
/** page names in the order Chromium asked for them */
const arrived: string[] = [];
const answers = new Map<string, () => void>();

before(async () => {
  site = await startFixtureServer();
});
after(() => site.close());

function held(name: string): string {
  site.route(`/held/${name}`, (_req: IncomingMessage, res: ServerResponse) => {
    arrived.push(name);
    answers.set(name, () => void res.writeHead(200, { 'content-type': 'text/html' }).end(`<p>${name}</p>`));
  });
  return `${site.url}/held/${name}`;
}

/** Waits until Chromium has asked for `count` pages in all. */
async function untilArrived(count: number): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (arrived.length < count) {
    assert.ok(Date.now() < deadline, `only ${arrived.join(', ')} arrived`);
    await sleep(10);
  }
}

/** Lets the page `name` answer. */
function answer(name: string): void {
  const send = answers.get(name);
  assert.ok(send, `${name} has not arrived, or was answered`);
  answers.delete(name);
  send();
}

async function withLoader(options: Partial<BrowserLoaderOptions>, use: (loader: PageLoader) => Promise<void>): Promise<void> {
  arrived.length = 0;
  answers.clear();
  const loader = createBrowserLoader({ policy, timeoutMs: 30_000, settleMs: 500, ...options });
  try {
    await use(loader);
  } finally {
    for (const name of [...answers.keys()]) answer(name);
    await loader.close();
  }
}

const load = (loader: PageLoader, name: string, account: string, lane: Lane = 'interactive'): Promise<LoadResult> =>
  loader.load({ url: held(name), mode: 'browser', turn: { account, lane } });

test("one account's flood of previews does not keep another account's preview from its turn", async () => {
  await withLoader({ maxPages: 1, maxInteractivePerAccount: 10, maxInteractiveWaiting: 10 }, async (loader) => {
    const flood = [load(loader, 'flood0', 'flooder')];
    await untilArrived(1);
    for (let i = 1; i < 5; i += 1) flood.push(load(loader, `flood${i}`, 'flooder'));
    const other = load(loader, 'other', 'other');
    for (let served = 1; served <= 6; served += 1) {
      await untilArrived(served);
      answer(arrived[served - 1]!);
    }
    await Promise.all([...flood, other]);
    assert.ok(arrived.indexOf('other') <= 2, `the other account waited behind one flood page at most: ${arrived.join(', ')}`);
    assert.deepEqual(
      arrived.filter((name) => name !== 'other'),
      ['flood0', 'flood1', 'flood2', 'flood3', 'flood4'],
      "an account's own loads keep their order",
    );
  });
});

test("past an account's bound, or the overall bound of waiting previews, a preview is refused with renderer_busy and a time to retry", async () => {
  await withLoader({ maxPages: 1, maxInteractivePerAccount: 2, maxInteractiveWaiting: 2 }, async (loader) => {
    const admitted = [load(loader, 'a1', 'a')];
    await untilArrived(1);
    admitted.push(load(loader, 'a2', 'a'));
    await assert.rejects(load(loader, 'a3', 'a'), (err: unknown) => {
      assert.ok(err instanceof RendererBusy, String(err));
      assert.equal(err.retryAfterSeconds, 30);
      return true;
    });
    admitted.push(load(loader, 'b1', 'b'));
    await assert.rejects(load(loader, 'c1', 'c'), RendererBusy, 'two previews wait already');
    for (let served = 1; served <= 3; served += 1) {
      await untilArrived(served);
      answer(arrived[served - 1]!);
    }
    for (const result of await Promise.all(admitted)) assert.deepEqual(result.issues, []);
    const again = load(loader, 'c2', 'c');
    await untilArrived(4);
    answer('c2');
    assert.deepEqual((await again).issues, [], 'answered previews give their room back');
  });
});

test('a check gets a page while previews flood the renderer', async () => {
  await withLoader({ maxPages: 2, maxInteractivePerAccount: 10, maxInteractiveWaiting: 10 }, async (loader) => {
    const previews = ['p0', 'p1', 'p2'].map((name, i) => load(loader, name, `account${i}`));
    await untilArrived(1);
    const check = load(loader, 'check', 'monitoring', 'check');
    await untilArrived(2);
    assert.deepEqual(arrived, ['p0', 'check'], 'the check started while the first preview still held its page');
    answer('check');
    assert.deepEqual((await check).issues, []);
    answer('p0');
    for (let served = 3; served <= 4; served += 1) {
      await untilArrived(served);
      answer(arrived[served - 1]!);
    }
    await Promise.all(previews);
  });
});

test("the queue's depth and each load's wait for a page are reported as the browser queue's metrics", async () => {
  const metrics = createMetrics();
  const metric = async (pattern: RegExp): Promise<number | undefined> => {
    const value = pattern.exec(await metrics.registry.metrics())?.[1];
    return value === undefined ? undefined : Number(value);
  };
  const WAITING = /pagewatch_work_queue_depth\{queue="browser",kind="page",lane="interactive"\} (\d+)/;
  const WAITED = /pagewatch_work_queue_wait_seconds_count\{queue="browser",kind="page",lane="interactive"\} (\d+)/;
  await withLoader({ maxPages: 1, observer: queueObserver(metrics, 'browser') }, async (loader) => {
    const first = load(loader, 'first', 'a');
    await untilArrived(1);
    const second = load(loader, 'second', 'b');
    assert.equal(await metric(WAITING), 1, 'the second load waits');
    answer('first');
    await untilArrived(2);
    assert.equal(await metric(WAITING), 0);
    answer('second');
    await Promise.all([first, second]);
    assert.equal(await metric(WAITED), 2, 'both loads reported their wait');
  });
});

test('a waiting load whose requester is gone leaves the queue and never reaches Chromium', async () => {
  await withLoader({ maxPages: 1 }, async (loader) => {
    const first = load(loader, 'first', 'a');
    await untilArrived(1);
    const gone = new AbortController();
    const dropped = loader.load({
      url: held('dropped'),
      mode: 'browser',
      turn: { account: 'b', lane: 'interactive' },
      signal: gone.signal,
    });
    const next = load(loader, 'next', 'c');
    gone.abort();
    assert.deepEqual(
      (await dropped).issues.map((i) => i.code),
      ['fetch_failed'],
    );
    answer('first');
    await untilArrived(2);
    answer('next');
    await Promise.all([first, next]);
    assert.deepEqual(arrived, ['first', 'next']);
  });
});
