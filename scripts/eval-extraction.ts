// Accuracy of the extraction domain against the shared corpora:
//   npm run eval:extraction [-- <corpora dir>] [--verbose]
// The corpora directory defaults to ../shared/corpora next to the repository.
import { resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { evaluatePriceCases, evaluateAvailabilityCases, loadCorpora, type CaseReport } from './corpus-eval.ts';

const args = process.argv.slice(2);
const verbose = args.includes('--verbose');
const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const dir = resolve(args.find((a) => !a.startsWith('--')) ?? resolve(repoRoot, '../shared/corpora'));

function print(name: string, report: CaseReport): void {
  const pct = report.total === 0 ? 100 : (100 * report.passed) / report.total;
  console.log(`${name}: ${report.passed}/${report.total} (${pct.toFixed(2)}%)`);
  if (verbose) for (const failure of report.failures) console.log(`  ✗ ${failure}`);
}

const corpora = loadCorpora(dir);
if (!corpora) {
  console.error(`no corpora at ${dir}`);
  process.exit(1);
}
const prices = evaluatePriceCases(corpora.prices);
print('prices (not xfail)', prices.strict);
print('prices (xfail, informational)', prices.xfail);
const availability = evaluateAvailabilityCases(corpora.availability);
print('availability pages: stock state', availability.stock);
print('availability pages: price', availability.price);
