// The runner's scripts walk the repository's folders in one way.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Every file under `path` (or `path` itself when it is a file), folders in name order. */
export function filesUnder(path) {
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path)
    .sort()
    .flatMap((name) => filesUnder(join(path, name)));
}
