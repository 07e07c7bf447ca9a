// test-lane: waits (a build and a pagewatch process it starts)
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { startFixtureServer } from '../helpers/fixture-server.ts';
import { baseEnv, createAccountVia, waitUntil } from '../helpers/pagewatch-process.ts';
import { useTempDataDirs } from '../helpers/temp-dirs.ts';

// No TypeScript compiler at run time: the build (npm run build, npm ci's
// prepare) compiles the sources to JavaScript, and a server started from it
// runs its store thread and extraction threads from that JavaScript. Node 20
// refuses a .ts module without a loader, and tsx runs esbuild as a child
// process, so a server that loads any TypeScript either fails or shows it.

const ROOT = new URL('../..', import.meta.url).pathname;
const dataDir = useTempDataDirs('pw-compiled-');
// Inside the checkout, so the compiled modules find node_modules as dist/ does.
const out = mkdtempSync(join(ROOT, '.test-build-'));
after(() => rmSync(out, { recursive: true, force: true }));

before(() => {
  const build = spawnSync(process.execPath, [join(ROOT, 'scripts/build.js'), out], { encoding: 'utf8' });
  assert.equal(build.status, 0, build.stdout + build.stderr);
});

function childNames(pid: number): string[] {
  const names: string[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const status = readFileSync(`/proc/${entry}/status`, 'utf8');
      if (Number(/PPid:\s+(\d+)/.exec(status)?.[1]) === pid) names.push(/Name:\s+(\S+)/.exec(status)?.[1] ?? '?');
    } catch {
      // The process ended while we looked.
    }
  }
  return names;
}

test(
  'serve from the compiled JavaScript answers /readyz and previews a page, its threads loading no TypeScript',
  { timeout: 600_000 },
  async () => {
    const site = await startFixtureServer();
    const main = pathToFileURL(join(out, 'cli/main.js')).href;
    const child = spawn(
      process.execPath,
      ['--input-type=module', '-e', `const { main } = await import(${JSON.stringify(main)}); process.exitCode = await main(['serve']);`],
      { env: baseEnv({ PAGEWATCH_DATA_DIR: dataDir() }), stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    try {
      await waitUntil(
        'the listening line',
        () => /listening on http:\/\/127\.0\.0\.1:\d+/.test(output) || child.exitCode !== null,
        120_000,
      );
      const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1];
      assert.ok(url, output);
      assert.equal((await fetch(`${url}/readyz`)).status, 200);

      const { token } = await createAccountVia(url, { email: 'compiled@example.com', tokenName: 'compiled' });
      const preview = await fetch(`${url}/api/v1/previews`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ url: `${site.url}/shop/espresso.html`, load_mode: 'html' }),
      });
      assert.equal(preview.status, 201, await preview.clone().text());
      assert.ok((await preview.json()).data.title, 'the extraction thread read the page');
      assert.deepEqual(
        childNames(child.pid!).filter((name) => name.includes('esbuild')),
        [],
        'no TypeScript compiler process',
      );
    } finally {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
      await site.close();
    }
    assert.doesNotMatch(output, /ERR_UNKNOWN_FILE_EXTENSION/);
  },
);

test('the built extraction thread is one module: it imports only Node modules and PDF.js, loaded on a first PDF', () => {
  // Its code lines, not the comments of the packages inside it (JSDoc names modules in import() types).
  const code = readFileSync(join(out, 'extraction/extraction-worker.js'), 'utf8')
    .split('\n')
    .filter((line) => !/^\s*(\*|\/\/|\/\*)/.test(line));
  const imported = code.flatMap((line) =>
    [...line.matchAll(/^import\s.*?from\s*["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']\s*\)/g)].map(
      ([, statically, dynamically]) => statically ?? dynamically,
    ),
  );
  assert.ok(imported.length > 0, 'the thread imports node:worker_threads at least');
  assert.deepEqual(
    imported.filter((name) => !name!.startsWith('node:') && !name!.startsWith('pdfjs-dist/')),
    [],
  );
});
