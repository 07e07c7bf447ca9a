// Accuracy of whole-page price and availability targets on real shop pages:
//   npm run eval:realpages [-- [--browser] <realpages dir>]
// The directory defaults to test/corpora/realpages; see scripts/realpages-eval.ts.
// --browser previews in browser mode (the default Chromium, src/config.ts); run it
// with loopback only, e.g. unshare -n sh -c 'ip link set lo up && exec npm run eval:realpages -- --browser',
// so the pages' third-party hosts are unreachable as they are behind a blocker.
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { evaluateRealPages, loadRealPages, scoreAvailability, scorePrices, type PageOutcome, type Score } from './realpages-eval.ts';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const dir = resolve(process.argv.slice(2).find((a) => !a.startsWith('--')) ?? resolve(repoRoot, 'test/corpora/realpages'));

const loadMode = process.argv.includes('--browser') ? 'browser' : 'html';
const { outcomes, refused, warnings } = await evaluateRealPages(loadRealPages(dir), loadMode);
console.log(`load mode ${loadMode}: ${refused.length} previews refused, ${warnings.size} read with load issues\n`);
const cell = (s: Score): string => `${s.f1.toFixed(2)} | ${s.precision.toFixed(2)} | ${s.recall.toFixed(2)}`;
const row = (name: string, of: readonly PageOutcome[]): string =>
  `| ${name} (${of.length} pages) | ${cell(scorePrices(of))} | ${cell(scoreAvailability(of))} |`;

console.log('| pages | price F1 | price precision | price recall | availability F1 | availability precision | availability recall |');
console.log('|---|---|---|---|---|---|---|');
console.log(row('all', outcomes));
console.log(
  row(
    'even index',
    outcomes.filter((o) => o.page.index % 2 === 0),
  ),
);
console.log(
  row(
    'odd index',
    outcomes.filter((o) => o.page.index % 2 === 1),
  ),
);
for (const [name, s] of [
  ['price', scorePrices(outcomes)],
  ['availability', scoreAvailability(outcomes)],
] as const) {
  console.log(`\n${name}: tp ${s.tp}, fp ${s.fp}, fn ${s.fn}; wrong and missing values:`);
  for (const miss of s.misses) console.log(`  ${miss}`);
}
for (const { page, status, body } of refused)
  console.log(`refused #${page.index} ${page.key.slice(0, 8)}: HTTP ${status} ${body.slice(0, 300)}`);
for (const [key, codes] of warnings) console.log(`load issues ${key.slice(0, 8)}: ${codes.join(', ')}`);
