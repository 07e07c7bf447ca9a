import { main } from '../../src/cli/main.ts';

// `pagewatch` from the run's compiled JavaScript: the entry pagewatchArgs (pagewatch-bin.ts) starts when the tests run
// compiled (scripts/compile-tests.js), as bin/pagewatch.js runs dist/.
process.exitCode = await main(process.argv.slice(2));
