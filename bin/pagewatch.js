#!/usr/bin/env node
// The pagewatch command, run from the JavaScript that `npm run build` compiles
// into dist/ (npm ci builds it too): no TypeScript compiler at run time.
// bin/pagewatch-dev.js runs the TypeScript sources instead.
import { existsSync } from 'node:fs';

const compiled = new URL('../dist/cli/main.js', import.meta.url);
if (!existsSync(compiled)) {
  console.error('pagewatch is not built: run `npm run build` (npm ci does it)');
  process.exit(1);
}
const { main } = await import(compiled.href);
process.exitCode = await main(process.argv.slice(2));
