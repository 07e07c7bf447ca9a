import { Readable, type Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createBrotliDecompress, createGunzip, createInflate, createInflateRaw } from 'node:zlib';

// Reads a response body, decoding Content-Encoding ourselves, and stops as
// soon as the decoded (or the raw) size passes the limit. zlib streams in a
// pipeline respect backpressure, so a decompression bomb costs at most the
// limit plus a few zlib chunks of memory and CPU before it is cut off.

export class BodyTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`the page is larger than ${limit} bytes`);
    this.name = 'BodyTooLargeError';
  }
}

export class UnsupportedEncodingError extends Error {
  constructor(readonly encoding: string) {
    super(`unsupported content-encoding "${encoding}"`);
    this.name = 'UnsupportedEncodingError';
  }
}

/** What we can decode; the value to send as Accept-Encoding. */
export const ACCEPT_ENCODING = 'gzip, deflate, br';

type Stage = Transform | ((source: AsyncIterable<Buffer>) => AsyncGenerator<Buffer>);

/** The codings applied to the body, in the order they were applied. */
export function contentCodings(header: string | string[] | undefined): string[] {
  const value = Array.isArray(header) ? header.join(',') : (header ?? '');
  return value
    .split(',')
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== '' && coding !== 'identity');
}

// "deflate" is meant to be zlib-wrapped (RFC 9110) but some servers send raw
// deflate; like browsers, tell them apart by the zlib header's checksum.
async function* inflateEither(source: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  const input = source[Symbol.asyncIterator]();
  const first = await input.next();
  if (first.done) return;
  const head: Buffer = first.value;
  const zlibWrapped = head.length >= 2 && (head.readUInt8(0) & 0x0f) === 8 && head.readUInt16BE(0) % 31 === 0;
  const decoder = zlibWrapped ? createInflate() : createInflateRaw();
  const rest = Readable.from(
    (async function* () {
      yield head;
      for (let next = await input.next(); !next.done; next = await input.next()) yield next.value;
    })(),
  );
  rest.on('error', (err) => decoder.destroy(err));
  yield* rest.pipe(decoder);
}

function decoderFor(coding: string): Stage {
  switch (coding) {
    case 'gzip':
    case 'x-gzip':
      return createGunzip();
    case 'br':
      return createBrotliDecompress();
    case 'deflate':
      return inflateEither;
    default:
      // Failing inside the pipeline lets it destroy the body stream cleanly.
      return async function* (): AsyncGenerator<never> {
        yield* [];
        throw new UnsupportedEncodingError(coding);
      };
  }
}

function limitTo(limit: number) {
  return async function* (source: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
    let total = 0;
    for await (const chunk of source) {
      total += chunk.length;
      if (total > limit) throw new BodyTooLargeError(limit);
      yield chunk;
    }
  };
}

/**
 * The decoded body bytes. Throws BodyTooLargeError beyond maxBytes (raw or
 * decoded), UnsupportedEncodingError, a zlib error for corrupt data, or the
 * signal's reason when aborted; the body stream is destroyed in every case.
 */
export async function readDecodedBody(
  body: Readable,
  contentEncoding: string | string[] | undefined,
  maxBytes: number,
  signal: AbortSignal,
): Promise<Buffer> {
  const codings = contentCodings(contentEncoding);
  if (codings.length === 0) return readPlainBody(body, maxBytes, signal);
  const decoders = codings.reverse().map(decoderFor);
  const chunks: Buffer[] = [];
  await pipeline(
    body,
    limitTo(maxBytes),
    ...(decoders as [Stage]),
    limitTo(maxBytes),
    async (source: AsyncIterable<Buffer>) => {
      for await (const chunk of source) chunks.push(chunk);
    },
    { signal },
  );
  return Buffer.concat(chunks);
}

/**
 * A body without content coding (most pages), read as it comes: no stream
 * pipeline, whose set-up and teardown (an AbortController, an AbortError with
 * its stack) are event-loop time every page would pay
 * (docs/decisions/0025-html-checks-where-a-slots-time-goes-and.md).
 * Leaving the loop destroys the body.
 */
async function readPlainBody(body: Readable, maxBytes: number, signal: AbortSignal): Promise<Buffer> {
  const reason = () => (signal.reason instanceof Error ? signal.reason : new Error('the load was aborted'));
  const abort = () => body.destroy(reason());
  if (signal.aborted) {
    abort();
    throw reason();
  }
  signal.addEventListener('abort', abort, { once: true });
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    for await (const chunk of body as AsyncIterable<Buffer>) {
      total += chunk.length;
      if (total > maxBytes) throw new BodyTooLargeError(maxBytes);
      chunks.push(chunk);
    }
  } finally {
    signal.removeEventListener('abort', abort);
  }
  return Buffer.concat(chunks, total);
}
