import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { Target } from '../../src/domain/targets.ts';

// The real shop pages of test/corpora/realpages (snapshots of Zyte's product
// extraction benchmark), in the order of their file names, each with the
// currency a user watching it would name, and the whole-page targets the
// README's first example sets up.

const DIR = join(import.meta.dirname, '..', '..', 'test', 'corpora', 'realpages');

export interface RealPageFixture {
  key: string;
  html: Buffer;
  currency: string;
}

export function loadRealPageFixtures(): RealPageFixture[] {
  const currencies = JSON.parse(readFileSync(join(DIR, 'currencies.json'), 'utf8')) as Record<string, string>;
  return readdirSync(join(DIR, 'html'))
    .filter((name) => name.endsWith('.html.gz'))
    .sort()
    .map((name) => {
      const key = name.slice(0, -'.html.gz'.length);
      const currency = currencies[key];
      if (!currency) throw new Error(`no currency for ${key} in currencies.json`);
      return { key, html: gunzipSync(readFileSync(join(DIR, 'html', name))), currency };
    });
}

export function wholePageTargets(currency: string): Target[] {
  return [
    { id: 'price', kind: 'price', selection: { scope: 'page' }, currency, rule: 'changed' },
    { id: 'stock', kind: 'availability', selection: { scope: 'page' }, rule: 'changed' },
  ] as Target[];
}
