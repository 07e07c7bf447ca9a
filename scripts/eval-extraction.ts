// Accuracy of the extraction domain against the corpora in test/corpora:
//   npm run eval:extraction [-- <corpora dir>] [--verbose]
// The corpora directory defaults to test/corpora.
import { resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  evaluateParserCases,
  evaluatePriceCases,
  evaluateAvailabilityCases,
  loadCorpora,
  type CaseReport,
  type PriceReport,
} from './corpus-eval.ts';

const args = process.argv.slice(2);
const verbose = args.includes('--verbose');
const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const dir = resolve(args.find((a) => !a.startsWith('--')) ?? resolve(repoRoot, 'test/corpora'));

function print(name: string, report: CaseReport): void {
  const pct = report.total === 0 ? 100 : (100 * report.passed) / report.total;
  console.log(`${name}: ${report.passed}/${report.total} (${pct.toFixed(2)}%)`);
  if (verbose) for (const failure of report.failures) console.log(`  ✗ ${failure}`);
}

function printPrices(name: string, report: PriceReport): void {
  print(name, { ...report, failures: [] });
  console.log(
    `  wrong values: ${report.wrong.length}, invented values: ${report.invented.length}, ` +
      `refused (an issue instead of the expected value): ${report.refused.length}, rounded: ${report.rounded.length}`,
  );
  const lists: [string, string[]][] = [
    ['wrong', report.wrong],
    ['invented', report.invented],
    ['refused', report.refused],
  ];
  for (const [kind, lines] of lists) if (verbose || kind !== 'refused') for (const line of lines) console.log(`  ✗ ${kind}: ${line}`);
}

const corpora = loadCorpora(dir);
const prices = evaluatePriceCases(corpora.prices);
// Price cases go through the path a user's request takes: a page holding the
// text, a price target without `decimal` (automatic) validated by the API's
// body validator with its defaults, then the evaluate route's extraction.
printPrices('prices through the evaluate route (not xfail)', prices.strict);
printPrices('prices through the evaluate route (xfail)', prices.xfail);
const parser = evaluateParserCases(corpora.prices);
print('prices, parsePriceText alone (not xfail)', parser.strict);
const availability = evaluateAvailabilityCases(corpora.availability);
print('availability pages: stock state', availability.stock);
print('availability pages: price', availability.price);
