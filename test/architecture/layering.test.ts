import { test } from 'node:test';
import assert from 'node:assert/strict';
import { relative } from 'node:path';
import { moduleReferences, sourceFiles, SRC } from './module-references.ts';

// The layers of docs/ARCHITECTURE.md, lowest first. A module may import from
// its own layer's folder or from a lower layer, never from a higher one nor
// from a sibling on the same level (api and web, engine and notify).
const LAYERS: string[][] = [
  ['errors.ts', 'clock.ts', 'signals.ts', 'thread-entry.ts', 'heap-sizing.ts'],
  ['domain'],
  ['config.ts', 'process-metrics.ts', 'schemas'],
  ['store', 'extraction'],
  ['fetch'],
  ['services'],
  ['engine', 'notify'],
  ['http'],
  ['api', 'web'],
  ['http/app.ts'],
  ['worker.ts'],
  ['server.ts'],
  ['cli'],
];

// The HTTP plugins reach the system through services only: no store query,
// page load or engine call of their own.
const SERVICES_ONLY = ['api', 'web'];
const BEHIND_SERVICES = ['store', 'extraction', 'fetch', 'engine', 'notify'];

/** The most specific layer entry a file belongs to, as [level, entry]. */
function layerOf(file: string): { level: number; unit: string } {
  const path = relative(SRC, file);
  let best: { level: number; unit: string } | null = null;
  LAYERS.forEach((units, level) => {
    for (const unit of units) {
      const matches = path === unit || path.startsWith(`${unit}/`);
      if (matches && (!best || unit.length > best.unit.length)) best = { level, unit };
    }
  });
  if (!best) throw new Error(`${path} belongs to no layer: add it to LAYERS and docs/ARCHITECTURE.md`);
  return best;
}

const files = sourceFiles(SRC);
const references = new Map(files.map((file) => [file, moduleReferences(file)]));
const graph = new Map([...references].map(([file, found]) => [file, found.local]));

test('every source module belongs to a layer', () => {
  for (const file of files) layerOf(file);
});

test('every import names its module, so the layers see it: no dynamic import of a computed name', () => {
  const unseen = [...references].flatMap(([file, found]) => found.unseen.map((call) => `${relative(SRC, file)}: ${call}`));
  assert.deepEqual(unseen, []);
});

test('imports point to the same part or down a layer, never up nor sideways', () => {
  const wrong: string[] = [];
  for (const [file, imports] of graph) {
    const from = layerOf(file);
    for (const target of imports) {
      const to = layerOf(target);
      const skips = SERVICES_ONLY.includes(from.unit) && BEHIND_SERVICES.includes(to.unit);
      if (to.unit === from.unit || (to.level < from.level && !skips)) continue;
      wrong.push(`${relative(SRC, file)} -> ${relative(SRC, target)}`);
    }
  }
  assert.deepEqual(wrong, []);
});

test('no import cycle between modules', () => {
  const cycles: string[] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (file: string) => {
    state.set(file, 'open');
    stack.push(file);
    for (const next of graph.get(file) ?? []) {
      if (state.get(next) === 'open')
        cycles.push(
          stack
            .slice(stack.indexOf(next))
            .concat(next)
            .map((f) => relative(SRC, f))
            .join(' -> '),
        );
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(file, 'done');
  };
  for (const file of files) if (!state.has(file)) visit(file);
  assert.deepEqual(cycles, []);
});
