import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import ts from 'typescript';

// What a source module loads, read from its syntax tree: static imports and
// re-exports, import('…'), import.meta.resolve('…') and module files named by
// new URL('…', import.meta.url) (worker entries, thread modules). A dynamic
// import of a computed name is reported as unseen: nothing can check where it
// leads.

export const SRC = resolve(import.meta.dirname, '..', '..', 'src');

const MODULE_FILE = /\.(ts|mts|js|mjs)$/;

export function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return MODULE_FILE.test(path) && !path.endsWith('.d.ts') ? [path] : [];
  });
}

export interface ModuleReferences {
  /** absolute paths of the modules it refers to by a relative name */
  local: string[];
  /** those of `local` it loads when it runs: not the ones it imports types from only */
  loaded: string[];
  /** package and built-in modules it imports */
  packages: string[];
  /** dynamic imports whose module is computed, as written */
  unseen: string[];
}

function isImportMetaUrl(node: ts.Node | undefined): boolean {
  return (
    node !== undefined &&
    ts.isPropertyAccessExpression(node) &&
    ts.isMetaProperty(node.expression) &&
    node.expression.keywordToken === ts.SyntaxKind.ImportKeyword &&
    node.name.text === 'url'
  );
}

function isImportMetaResolve(node: ts.Node): boolean {
  return (
    ts.isPropertyAccessExpression(node) &&
    ts.isMetaProperty(node.expression) &&
    node.expression.keywordToken === ts.SyntaxKind.ImportKeyword &&
    node.name.text === 'resolve'
  );
}

function typesOnly(node: ts.ImportDeclaration | ts.ExportDeclaration): boolean {
  if (ts.isExportDeclaration(node)) return node.isTypeOnly;
  const clause = node.importClause;
  if (!clause) return false;
  if (clause.isTypeOnly) return true;
  const named = clause.namedBindings;
  return (
    clause.name === undefined && named !== undefined && ts.isNamedImports(named) && named.elements.every((element) => element.isTypeOnly)
  );
}

export function moduleReferences(file: string): ModuleReferences {
  const text = readFileSync(file, 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: ModuleReferences = { local: [], loaded: [], packages: [], unseen: [] };
  const add = (specifier: string, urlOnly: boolean, typesOnly = false) => {
    if (specifier.startsWith('.')) {
      if (urlOnly && !MODULE_FILE.test(specifier)) return;
      found.local.push(resolve(dirname(file), specifier));
      if (!typesOnly) found.loaded.push(resolve(dirname(file), specifier));
    } else if (!urlOnly) found.packages.push(specifier);
  };
  const visit = (node: ts.Node) => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      add(node.moduleSpecifier.text, false, typesOnly(node));
    } else if (
      ts.isCallExpression(node) &&
      (node.expression.kind === ts.SyntaxKind.ImportKeyword || isImportMetaResolve(node.expression))
    ) {
      const [argument] = node.arguments;
      if (argument && ts.isStringLiteralLike(argument)) add(argument.text, false);
      else found.unseen.push(node.getText(source));
    } else if (ts.isNewExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'URL') {
      const [location, base] = node.arguments ?? [];
      if (location && ts.isStringLiteralLike(location) && isImportMetaUrl(base)) add(location.text, true);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}
