// Scores whole-page price and availability targets on the real shop pages of
// test/corpora/realpages (see SOURCE.md there) through the API's path: each
// snapshot served by a local fixture server, a preview of it, then
// POST /previews/{id}/evaluate with a page-scope price target in the page's
// currency (no `decimal`) and a page-scope availability target, the body's
// defaults filled in by the API. Scored as the upstream benchmark scores,
// with the errata applied. Used by scripts/eval-realpages.ts and
// test/extraction/realpages.test.ts.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { currencyExponent, parseDotDecimal, toMinorUnits } from '../src/domain/extract/money.ts';
import { evaluateLikeTheApi } from './corpus-eval.ts';
import { startFixtureServer } from '../test/helpers/fixture-server.ts';
import { bearer, createAccountWithToken, startTestApp } from '../test/helpers/test-app.ts';

export interface RealPage {
  key: string;
  /** the page's index in the corpus's key order (even and odd halves) */
  index: number;
  url: string;
  /** acceptable dot-decimal amounts, errata applied; empty when the page shows no price */
  prices: string[];
  currency: string;
  availability: 'in_stock' | 'out_of_stock' | null;
  html: Buffer;
}

interface Truth {
  price?: string[];
  availability?: string[];
  url: string;
}

/** Throws when a corpus file is missing: accuracy is checked, never skipped. */
export function loadRealPages(dir: string): RealPage[] {
  const read = (name: string): unknown => {
    const file = join(dir, name);
    if (!existsSync(file)) throw new Error(`corpus file ${file} is missing: test/corpora is part of the repository`);
    return JSON.parse(readFileSync(file, 'utf8'));
  };
  const truth = read('ground-truth.json') as Record<string, Truth>;
  const errata = read('errata.json') as Record<string, { price?: string[]; availability?: string[] }>;
  const currencies = read('currencies.json') as Record<string, string>;
  return Object.keys(truth)
    .sort()
    .map((key, index) => {
      const t = truth[key]!;
      const currency = currencies[key];
      assert.ok(currency, `no currency for ${key}`);
      const availability = (errata[key]?.availability ?? t.availability)?.[0];
      return {
        key,
        index,
        url: t.url,
        prices: (errata[key]?.price ?? t.price ?? []).map((p) => p.trim()),
        currency,
        availability: availability === 'InStock' ? 'in_stock' : availability === 'OutOfStock' ? 'out_of_stock' : null,
        html: gunzipSync(readFileSync(join(dir, 'html', `${key}.html.gz`))),
      };
    });
}

interface TargetAnswer {
  ok: boolean;
  value: number | string | string[] | null;
  display: string | null;
  issues: { code: string; message: string }[];
}

export interface PageOutcome {
  page: RealPage;
  price: TargetAnswer;
  availability: TargetAnswer;
}

/** A page whose preview was refused: nothing to evaluate, so its targets count as missed. */
export interface RefusedPreview {
  page: RealPage;
  status: number;
  body: string;
}

export interface RealPagesRun {
  outcomes: PageOutcome[];
  refused: RefusedPreview[];
  /** load issues the successful previews carried (load_incomplete), by page key */
  warnings: Map<string, string[]>;
}

/**
 * Every page through preview + evaluate on the real application (embedded
 * store) and a loopback fixture server, loaded in `loadMode` (browser: the
 * default Chromium (defaultChromiumPath), confined to loopback by the caller's netns).
 */
export async function evaluateRealPages(pages: readonly RealPage[], loadMode: 'html' | 'browser' = 'html'): Promise<RealPagesRun> {
  // quotas, spacing of previews and the extraction budget (a busy shared
  // machine's speed) are not what is measured here
  const app = await startTestApp({
    loaders: { extractionBudgetMs: 120_000 },
    plans: { pro: { previews_per_day: 10_000, previews_per_month: 10_000, preview_spacing_seconds: 0, requests_per_minute: 10_000 } },
  });
  const site = await startFixtureServer();
  for (const page of pages) {
    site.route(`/${page.key}`, (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(page.html);
    });
  }
  try {
    const { token } = await createAccountWithToken(app.app);
    const headers = { ...bearer(token), 'content-type': 'application/json' };
    const outcomes: PageOutcome[] = [];
    const refused: RefusedPreview[] = [];
    const warnings = new Map<string, string[]>();
    for (const page of pages) {
      const created = await app.app.inject({
        method: 'POST',
        url: '/api/v1/previews',
        headers,
        payload: { url: `${site.url}/${page.key}`, load_mode: loadMode },
      });
      if (created.statusCode !== 201) {
        refused.push({ page, status: created.statusCode, body: created.body });
        const none = {
          ok: false,
          value: null,
          display: null,
          issues: [{ code: 'preview_refused', message: `HTTP ${created.statusCode}` }],
        };
        outcomes.push({ page, price: none, availability: none });
        continue;
      }
      const issues = created.json<{ data: { issues: { code: string }[] } }>().data.issues;
      if (issues.length > 0)
        warnings.set(
          page.key,
          issues.map((i) => i.code),
        );
      const evaluated = await app.app.inject({
        method: 'POST',
        url: `/api/v1/previews/${created.json<{ data: { id: string } }>().data.id}/evaluate`,
        headers,
        payload: {
          targets: targetsFor(page),
        },
      });
      assert.equal(evaluated.statusCode, 200, `${page.key}: ${evaluated.body}`);
      const [price, availability] = evaluated.json<{ data: { targets: TargetAnswer[] } }>().data.targets;
      assert.ok(price && availability);
      outcomes.push({ page, price, availability });
    }
    return { outcomes, refused, warnings };
  } finally {
    await site.close();
    await app.close();
  }
}

const targetsFor = (page: RealPage) => [
  { id: 'price', kind: 'price', selection: { scope: 'page' }, currency: page.currency },
  { id: 'stock', kind: 'availability', selection: { scope: 'page' } },
];

/**
 * The same targets through the function the extraction threads run for the
 * evaluate route, body validated with the API's defaults (evaluateLikeTheApi),
 * without HTTP and the store: what the tests check, in seconds.
 */
export function evaluateRealPagesDirectly(pages: readonly RealPage[]): PageOutcome[] {
  return pages.map((page) => {
    const [price, availability] = evaluateLikeTheApi(page.html.toString('utf8'), targetsFor(page));
    assert.ok(price && availability);
    return { page, price, availability };
  });
}

export interface Score {
  tp: number;
  fp: number;
  fn: number;
  precision: number;
  recall: number;
  f1: number;
  /** every wrong or missing value, with why */
  misses: string[];
}

function score(tp: number, fp: number, fn: number, misses: string[]): Score {
  const precision = tp + fp === 0 ? 1 : tp / (tp + fp);
  const recall = tp + fn === 0 ? 1 : tp / (tp + fn);
  const f1 = precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
  return { tp, fp, fn, precision, recall, f1, misses };
}

const said = (answer: TargetAnswer): string =>
  answer.ok ? String(answer.display) : `${answer.issues[0]?.code}: ${answer.issues[0]?.message}`;

/** A value equal to an annotated amount is right; any other value is wrong (fp, and fn too where one is annotated); none where one is annotated is missed (fn). */
export function scorePrices(outcomes: readonly PageOutcome[]): Score {
  let tp = 0,
    fp = 0,
    fn = 0;
  const misses: string[] = [];
  for (const { page, price } of outcomes) {
    const exponent = currencyExponent(page.currency) ?? 2;
    const wanted = page.prices.map((p) => toMinorUnits(parseDotDecimal(p)!, exponent));
    const name = `#${page.index} ${page.key.slice(0, 8)} ${page.url.split('/')[2]}`;
    const expected = page.prices.length === 0 ? 'no price' : `${page.prices.join(' or ')} ${page.currency}`;
    if (price.ok) {
      if (wanted.includes(price.value as number)) tp++;
      else {
        fp++;
        if (wanted.length > 0) fn++;
        misses.push(`${name}: WRONG ${said(price)}, expected ${expected}`);
      }
    } else if (wanted.length > 0) {
      fn++;
      misses.push(`${name}: none (${said(price)}), expected ${expected}`);
    }
  }
  return score(tp, fp, fn, misses);
}

export function scoreAvailability(outcomes: readonly PageOutcome[]): Score {
  let tp = 0,
    fp = 0,
    fn = 0;
  const misses: string[] = [];
  for (const { page, availability } of outcomes) {
    const name = `#${page.index} ${page.key.slice(0, 8)} ${page.url.split('/')[2]}`;
    if (availability.ok) {
      if (availability.value === page.availability) tp++;
      else {
        fp++;
        if (page.availability !== null) fn++;
        misses.push(`${name}: WRONG ${said(availability)}, expected ${page.availability ?? 'none'}`);
      }
    } else if (page.availability !== null) {
      fn++;
      misses.push(`${name}: none (${said(availability)}), expected ${page.availability}`);
    }
  }
  return score(tp, fp, fn, misses);
}

export const formatScore = (s: Score): string =>
  `F1 ${s.f1.toFixed(2)}, precision ${s.precision.toFixed(2)}, recall ${s.recall.toFixed(2)} (tp ${s.tp}, fp ${s.fp}, fn ${s.fn})`;
