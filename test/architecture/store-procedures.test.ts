import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { moduleReferences, sourceFiles, SRC } from './module-references.ts';

// The store procedures (src/store/procedures/, docs/ARCHITECTURE.md) run in
// the embedded store's thread, which has its own copy of every module they
// load: they reach store/ and domain/ only (and the error values and UTC
// calendar below domain/, which store/ uses), and no module they load keeps
// state of its own.

const PROCEDURES = join(SRC, 'store', 'procedures');
const ALLOWED_DIRS = [join(SRC, 'store'), join(SRC, 'domain')];
const ALLOWED_FILES = [join(SRC, 'errors.ts'), join(SRC, 'clock.ts')];

/** Every module of src the procedures load, directly or through others. */
function loadedByProcedures(): string[] {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    if (file.startsWith(`${SRC}/`)) for (const next of moduleReferences(file).loaded) visit(next);
  };
  for (const file of sourceFiles(PROCEDURES)) visit(file);
  return [...seen];
}

// Calls that change a Map, Set or array in place.
const MUTATORS = new Set(['set', 'add', 'delete', 'clear', 'push', 'pop', 'shift', 'unshift', 'splice', 'sort', 'reverse', 'fill']);

/** Module-level variables, and module-level collections something in the module changes. */
function moduleState(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const state: string[] = [];
  const constants = new Set<string>();
  for (const statement of source.statements) {
    if (!ts.isVariableStatement(statement)) continue;
    const constant = (statement.declarationList.flags & ts.NodeFlags.Const) !== 0;
    for (const declaration of statement.declarationList.declarations) {
      const name = declaration.name.getText(source);
      if (!constant) state.push(`${name} (a module-level variable)`);
      else constants.add(name);
    }
  }
  const changed = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression)) {
      const target = node.expression.expression;
      if (ts.isIdentifier(target) && constants.has(target.text) && MUTATORS.has(node.expression.name.text)) {
        state.push(`${target.text} (changed by .${node.expression.name.text})`);
      }
    }
    if (
      ts.isBinaryExpression(node) &&
      node.operatorToken.kind >= ts.SyntaxKind.FirstAssignment &&
      node.operatorToken.kind <= ts.SyntaxKind.LastAssignment
    ) {
      const left = node.left;
      const owner = ts.isPropertyAccessExpression(left) || ts.isElementAccessExpression(left) ? left.expression : null;
      if (owner && ts.isIdentifier(owner) && constants.has(owner.text)) state.push(`${owner.text} (assigned into)`);
    }
    ts.forEachChild(node, changed);
  };
  changed(source);
  return [...new Set(state)];
}

test('the store procedures are registered in one module, src/store/procedures/index.ts', () => {
  const registry = join(PROCEDURES, 'index.ts');
  assert.ok(sourceFiles(PROCEDURES).includes(registry), 'src/store/procedures/index.ts declares the procedures');
});

test('a store procedure loads modules of store/ and domain/ only', () => {
  const outside = loadedByProcedures().filter(
    (file) => !ALLOWED_FILES.includes(file) && !ALLOWED_DIRS.some((dir) => file.startsWith(`${dir}/`)),
  );
  assert.deepEqual(
    outside.map((file) => relative(SRC, file)),
    [],
  );
});

test('no module a store procedure loads keeps state of its own', () => {
  const kept = loadedByProcedures().flatMap((file) => moduleState(file).map((what) => `${relative(SRC, file)}: ${what}`));
  assert.deepEqual(kept, []);
});

test('the embedded store thread runs procedures from the registry only, never a module named at run time', () => {
  const thread = moduleReferences(join(SRC, 'store', 'pglite-thread.ts'));
  assert.ok(thread.local.includes(join(PROCEDURES, 'index.ts')));
  assert.deepEqual(thread.unseen, []);
});
