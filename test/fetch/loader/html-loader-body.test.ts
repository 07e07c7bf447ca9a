import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { BodyTooLargeError, contentCodings, readDecodedBody } from '../../../src/fetch/loader/http-body.ts';

// readDecodedBody on its own: a bomb is cut off after reading only a little
// of the compressed stream, not after decoding it all.

const MiB = 1024 * 1024;

test('a gzip bomb stops being read shortly after the decoded limit', async () => {
  const member = gzipSync(Buffer.alloc(16 * MiB, 0x20));
  let pulled = 0;
  const source = Readable.from(
    (function* () {
      for (let i = 0; i < 64; i++) {
        for (let at = 0; at < member.length; at += 16 * 1024) {
          const chunk = member.subarray(at, at + 16 * 1024);
          pulled += chunk.length;
          yield chunk;
        }
      }
    })(),
  );
  await assert.rejects(readDecodedBody(source, 'gzip', 5 * MiB, new AbortController().signal), BodyTooLargeError);
  // Stream read-ahead pulls a few members; decoding all 64 would pull them all.
  assert.ok(pulled < (member.length * 64) / 10, `read ${pulled} of ${member.length * 64} compressed bytes`);
  assert.ok(source.destroyed);
});

test('the raw body is limited too', async () => {
  const source = Readable.from([Buffer.alloc(600), Buffer.alloc(600)]);
  await assert.rejects(readDecodedBody(source, undefined, 1000, new AbortController().signal), BodyTooLargeError);
});

test('content codings are listed in the order they were applied, identity dropped', () => {
  assert.deepEqual(contentCodings('identity, GZIP ,br'), ['gzip', 'br']);
  assert.deepEqual(contentCodings(undefined), []);
});

test('stacked codings are undone in reverse order', async () => {
  const { brotliCompressSync } = await import('node:zlib');
  const body = brotliCompressSync(gzipSync('<p>twice</p>'));
  const decoded = await readDecodedBody(Readable.from([body]), 'gzip, br', 1000, new AbortController().signal);
  assert.equal(decoded.toString(), '<p>twice</p>');
});
