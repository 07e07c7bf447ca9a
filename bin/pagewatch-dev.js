#!/usr/bin/env node
// The pagewatch command from the TypeScript sources through tsx, for tests and
// development (npm run dev): no build step, every change seen at once.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
