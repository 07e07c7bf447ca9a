import type { LoadResult } from './types.ts';

// A secret typed into a page must not come back in what the load returns: a
// site may echo it (a form sent by GET puts it in the URL, a script may copy
// it into the DOM). Every text the result carries has each secret value, as
// typed and as URL-encoded, replaced before anything stores or shows it.

export const SECRET_MASK = '[secret]';

export function scrubSecrets(result: LoadResult, values: readonly string[]): LoadResult {
  const forms = [...new Set(values.flatMap((v) => [v, encodeURIComponent(v), new URLSearchParams({ v }).toString().slice(2)]))]
    // Longer forms first, so a value that contains another is replaced whole.
    .sort((a, b) => b.length - a.length);
  const scrub = (text: string) => forms.reduce((out, form) => out.split(form).join(SECRET_MASK), text);
  return {
    ...result,
    finalUrl: scrub(result.finalUrl),
    html: typeof result.html === 'string' ? scrub(result.html) : result.html,
    issues: result.issues.map((i) => ({ ...i, message: scrub(i.message) })),
    ...(result.steps
      ? { steps: result.steps.map((s) => ({ ...s, url: scrub(s.url), title: s.title === null ? null : scrub(s.title) })) }
      : {}),
  };
}
