// Conditional requests (issue #41): what a server said identifies the version
// of a page it sent (ETag, Last-Modified), to be sent back as If-None-Match /
// If-Modified-Since. At least one of the two is set.

export interface PageValidators {
  etag: string | null;
  lastModified: string | null;
}

/** The validators of an answer's headers, or null when it sent neither (or only weak nonsense such as an empty value). */
export function validatorsOf(etag: string | undefined, lastModified: string | undefined): PageValidators | null {
  const tag = etag?.trim() || null;
  const modified = lastModified?.trim() || null;
  return tag === null && modified === null ? null : { etag: tag, lastModified: modified };
}

/** The request headers that ask for the page only if it changed since the answer that sent `validators`. */
export function conditionalHeaders(validators: PageValidators): Record<string, string> {
  const headers: Record<string, string> = {};
  if (validators.etag !== null) headers['if-none-match'] = validators.etag;
  if (validators.lastModified !== null) headers['if-modified-since'] = validators.lastModified;
  return headers;
}

/** Whether two sets of validators (or their absence) are the same. */
export function sameValidators(a: PageValidators | null, b: PageValidators | null): boolean {
  if (a === null || b === null) return a === b;
  return a.etag === b.etag && a.lastModified === b.lastModified;
}
