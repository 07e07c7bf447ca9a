import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { pagewatchArgs } from '../helpers/pagewatch-bin.ts';

const run = (...args: string[]) =>
  spawnSync(process.execPath, pagewatchArgs(args), { encoding: 'utf8', env: { ...process.env, DATABASE_URL: '' } });

test('pagewatch with no command prints the usage and exits 2', () => {
  const result = run();
  assert.equal(result.status, 2);
  assert.match(result.stderr, /^usage: pagewatch <command>/);
});

test('an unknown command is named, with the usage, and exits 2', () => {
  const result = run('serv');
  assert.equal(result.status, 2);
  assert.match(result.stderr, /^pagewatch: unknown command "serv"\n\nusage: pagewatch <command>/);
});

test('pagewatch help prints the usage on stdout and exits 0', () => {
  const result = run('help');
  assert.equal(result.status, 0);
  assert.match(result.stdout, /^usage: pagewatch <command>/);
});

// A resolve hook, registered before the command loads, that refuses the HTTP server's framework.
const HTTP_SERVER_REFUSED = `export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  if (resolved.url.includes('/node_modules/fastify/')) throw new Error('the command loaded the HTTP server');
  return resolved;
}`;
const REGISTER_REFUSAL = `import { register } from 'node:module';
register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(HTTP_SERVER_REFUSED)}`)});`;

test('a command that serves nothing (restore) loads no HTTP server', () => {
  const result = spawnSync(
    process.execPath,
    ['--import', `data:text/javascript,${encodeURIComponent(REGISTER_REFUSAL)}`, ...pagewatchArgs(['restore', '/no/such/backup'])],
    {
      encoding: 'utf8',
      env: { ...process.env, DATABASE_URL: '' },
    },
  );
  assert.equal(result.stderr, 'pagewatch: /no/such/backup does not exist\n');
  assert.equal(result.status, 1);
});
