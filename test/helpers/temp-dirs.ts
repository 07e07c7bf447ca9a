import { after } from 'node:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * For a test file's data directories: returns a function making a fresh
 * `<tmp>/<prefix>XXXXXX/data` path (the directory itself not created, as
 * pagewatch creates it), and removes every one of them after the file's tests.
 */
export function useTempDataDirs(prefix: string): () => string {
  const parents: string[] = [];
  after(() => {
    for (const parent of parents) rmSync(parent, { recursive: true, force: true });
  });
  return () => {
    const parent = mkdtempSync(join(tmpdir(), prefix));
    parents.push(parent);
    return join(parent, 'data');
  };
}
