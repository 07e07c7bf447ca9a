import type { Dispatcher } from 'undici';
import { SCREENED_CHARS, WALL_STATUSES } from '../../domain/blocked-page.ts';
import type { PageSource } from '../../domain/page-source.ts';
import { firstHeader, isHtmlMime, parseContentType } from './http-headers.ts';
import { readDecodedBody } from './http-body.ts';
import type { LoadResult } from './types.ts';

// What a load keeps so that a wall (an anti-bot challenge or block page) can
// be recognised later, in an extraction thread (DESIGN §4 Blocked pages): the
// response's cf-mitigated header and, for a 403, 429 or 503, the start of the
// body that any other error status leaves unread.

/** The body of a wall status, when it is HTML and small enough to be a wall; every other body is discarded unread. */
export async function readErrorPage(response: Dispatcher.ResponseData, signal: AbortSignal): Promise<PageSource | undefined> {
  const type = parseContentType(response.headers['content-type']);
  if (!WALL_STATUSES.has(response.statusCode) || (type.mime !== null && !isHtmlMime(type.mime))) {
    await response.body.dump();
    return undefined;
  }
  try {
    const bytes = await readDecodedBody(response.body, response.headers['content-encoding'], SCREENED_CHARS, signal);
    return { bytes, charset: type.charset };
  } catch {
    // An error page too large or unreadable is no wall page: the status says what happened.
    return undefined;
  }
}

/** The result with the response's wall evidence attached, when there is any. */
export function withWallEvidence(
  result: LoadResult,
  headers: Record<string, string | string[] | undefined>,
  errorPage?: PageSource,
): LoadResult {
  const cfMitigated = firstHeader(headers['cf-mitigated']);
  return {
    ...result,
    ...(cfMitigated === undefined ? {} : { cfMitigated }),
    ...(errorPage === undefined ? {} : { errorPage }),
  };
}
