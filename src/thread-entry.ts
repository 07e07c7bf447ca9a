// Worker threads run the same code as the process that starts them: the
// JavaScript compiled by `npm run build` (what `npm start` runs; the
// extraction thread's as one bundled module, scripts/bundle-threads.js), or
// the TypeScript sources through tsx (tests and development). tsx's hooks,
// registered in the main thread, do not reach worker threads on Node 20, so a
// thread started from the sources registers them itself; a compiled one never
// loads the TypeScript compiler.

/** Whether the module whose `import.meta.url` is `moduleUrl` runs from the TypeScript sources. */
export function runsFromSources(moduleUrl: string): boolean {
  return moduleUrl.endsWith('.ts');
}

/**
 * The source of a worker thread (`new Worker(source, { eval: true })`) that
 * loads `sibling` (a module next to `moduleUrl`, named without its extension)
 * and calls its export `start`.
 */
export function threadBootstrap(moduleUrl: string, sibling: string, start: string): string {
  const fromSources = runsFromSources(moduleUrl);
  const entry = new URL(`./${sibling}.${fromSources ? 'ts' : 'js'}`, moduleUrl).href;
  const load = fromSources
    ? `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry)}); })`
    : `import(${JSON.stringify(entry)})`;
  return `${load}.then((thread) => thread[${JSON.stringify(start)}]());`;
}
