// The extraction thread's entry: the thread runs TypeScript through tsx, as
// the rest of the process does (see bin/run-ts.js).
import { register } from 'tsx/esm/api';

register();
await import('./extraction-worker.ts');
