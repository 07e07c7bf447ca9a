import type { IncomingHttpHeaders } from 'node:http';
import type { FixtureServer } from './fixture-server.ts';
import { INITIAL_SHOP, shopHtml, type ShopState } from './shop-page.ts';

// A shop page whose server sends validators (ETag, Last-Modified) and, unless
// told to ignore them, answers a matching conditional request with 304 and no
// body, as most servers of static or cached pages do. It records the
// conditional headers of every request, and lets a test change the page
// without changing its ETag (a server that keeps a stale ETag): a check that
// then records no change has read nothing of the page.

export interface ValidatingPage {
  url: string;
  /** the conditional headers of each request, in order */
  requests: Pick<IncomingHttpHeaders, 'if-none-match' | 'if-modified-since'>[];
  /** answers with 304 to matching validators; default true */
  honoursValidators: boolean;
  /** changes the page; with a new version (the default) its ETag and Last-Modified change too */
  setPage(changes: Partial<ShopState>, options?: { newVersion?: boolean }): void;
  /** how many answers were 304 */
  notModifiedAnswers: number;
}

let counter = 0;

export function serveValidatingPage(
  site: FixtureServer,
  options: { honoursValidators?: boolean; lastModifiedOnly?: boolean } = {},
): ValidatingPage {
  const path = `/validating-${process.pid}-${++counter}.html`;
  let state: ShopState = { ...INITIAL_SHOP };
  let version = 1;
  // A whole second per version: HTTP dates have second resolution.
  const modifiedAt = () => new Date(Date.UTC(2026, 0, 1) + version * 1000).toUTCString();
  const etag = () => `"v${version}"`;
  const page: ValidatingPage = {
    url: `${site.url}${path}`,
    requests: [],
    honoursValidators: options.honoursValidators ?? true,
    notModifiedAnswers: 0,
    setPage(changes, { newVersion = true } = {}) {
      state = { ...state, ...changes };
      if (newVersion) version++;
    },
  };
  site.route(path, (req, res) => {
    page.requests.push({ 'if-none-match': req.headers['if-none-match'], 'if-modified-since': req.headers['if-modified-since'] });
    const validators: Record<string, string> = { 'last-modified': modifiedAt() };
    if (!options.lastModifiedOnly) validators.etag = etag();
    const matches =
      req.headers['if-none-match'] !== undefined
        ? req.headers['if-none-match'] === validators.etag
        : req.headers['if-modified-since'] !== undefined && Date.parse(req.headers['if-modified-since']) >= Date.parse(modifiedAt());
    if (page.honoursValidators && matches) {
      page.notModifiedAnswers++;
      res.writeHead(304, validators);
      res.end();
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', ...validators });
    res.end(shopHtml(state));
  });
  return page;
}
