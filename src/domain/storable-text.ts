// Text from a page goes into the store (previews, captured texts, values,
// titles), and PostgreSQL text refuses the NUL character; a lone surrogate
// cannot be encoded as UTF-8 either. Both become U+FFFD, as an HTML parser
// would show them, so a page that holds one still loads, previews and checks.

const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
// Most pages hold neither NUL nor any surrogate: this scan is a few times
// cheaper than the one above on a whole page, and skips it.
const SUSPECT = /[\u0000\uD800-\uDFFF]/;

export function storableText(text: string): string {
  return SUSPECT.test(text) ? text.replace(UNSTORABLE, '\uFFFD') : text;
}
