import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { signWebhook } from '../../src/notify/webhook-signature.ts';
import type * as ClientModule from '../../packages/client/src/index.ts';

// The package as it is published: types generated from openapi.json, built
// by tsc, and its webhook verification agreeing with the server's signer.

const ROOT = new URL('../../', import.meta.url).pathname;
const CLIENT = join(ROOT, 'packages/client');
const bin = (name: string) => join(ROOT, 'node_modules/.bin', name);

async function withTempDir(use: (dir: string) => void | Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'pw-client-'));
  try {
    await use(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test("the client's types are the ones openapi-typescript generates from the committed openapi.json", async () => {
  await withTempDir((dir) => {
    execFileSync(bin('openapi-typescript'), [join(ROOT, 'openapi.json'), '-o', join(dir, 'schema.ts')], { stdio: 'pipe' });
    const fresh = readFileSync(join(dir, 'schema.ts'), 'utf8');
    assert.equal(
      readFileSync(join(CLIENT, 'src/schema.ts'), 'utf8'),
      fresh,
      'run `npm run openapi` to regenerate packages/client/src/schema.ts',
    );
  });
});

test('the client builds with tsc, and the built module verifies a delivery the server signed', async () => {
  await withTempDir(async (dir) => {
    execFileSync(bin('tsc'), ['-p', join(CLIENT, 'tsconfig.json'), '--outDir', dir], { stdio: 'pipe' });
    const built = (await import(pathToFileURL(join(dir, 'index.js')).href)) as typeof ClientModule;
    const secret = `whsec_${Buffer.from('0123456789abcdef0123456789abcdef').toString('base64')}`;
    const body = '{"type":"change.detected"}';
    const timestamp = Math.floor(Date.now() / 1000);
    const headers = {
      'webhook-id': 'msg_1',
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signWebhook(secret, 'msg_1', timestamp, body),
    };
    assert.deepEqual(built.verifyWebhook(secret, headers, body), { ok: true, id: 'msg_1', timestamp });
    assert.equal(built.verifyWebhook(secret, headers, `${body} `).ok, false, 'a changed body fails');
    assert.equal(
      built.verifyWebhook(secret, headers, body, { now: new Date((timestamp + 301) * 1000) }).ok,
      false,
      'an old delivery fails',
    );
    assert.equal(typeof built.PagewatchClient, 'function');
  });
});
