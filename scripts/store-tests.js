// Which test files open a store: those that reach, through their own imports
// inside test/, the module that reads process.env.TEST_DATABASE_URL
// (test-database.ts; a file that only names the variable, in a comment or a
// skip reason, does not count). On PostgreSQL (TEST_DATABASE_URL set) only they run:
// the others never touch a store, so a second pass of them ran the very same
// code again (docs/decisions/0063-test-files-batched-per-process.md).
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve, sep } from 'node:path';

const READS_STORE_CHOICE = /process\.env\.TEST_DATABASE_URL\b/;
// import … from './x.ts', export … from './x.ts', import('./x.ts'), import './x.ts'
const RELATIVE_IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)['"](\.{1,2}\/[^'"]+)['"]/g;

/** The test modules `file` imports directly (relative imports inside `testDir`). */
function importsOf(file, testDir) {
  return [...readFileSync(file, 'utf8').matchAll(RELATIVE_IMPORT)]
    .map(([, spec]) => resolve(dirname(file), spec))
    .filter((imported) => imported.startsWith(testDir + sep) && existsSync(imported));
}

/** Whether `file` or a test module it reaches through imports reads TEST_DATABASE_URL. */
function reachesStoreChoice(file, testDir) {
  const seen = new Set([file]);
  for (const module of seen) {
    if (READS_STORE_CHOICE.test(readFileSync(module, 'utf8'))) return true;
    for (const imported of importsOf(module, testDir)) seen.add(imported);
  }
  return false;
}

/** The test files of `files` (paths from `root`) that open a store. */
export function storeTestFiles(root, files) {
  const testDir = resolve(root, 'test');
  return files.filter((file) => reachesStoreChoice(resolve(root, file), testDir));
}
