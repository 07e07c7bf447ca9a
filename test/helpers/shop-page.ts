import type { FixtureServer } from './fixture-server.ts';

// A product page whose parts a test changes between checks.

export interface ShopState {
  title: string;
  /** e.g. "€29.00"; empty leaves the price out */
  price: string;
  stock: 'In stock' | 'Out of stock' | '';
  links: string[];
  note: string;
}

export const INITIAL_SHOP: ShopState = { title: 'Espresso Duo', price: '€29.00', stock: 'In stock', links: ['/a'], note: 'Welcome' };

export function shopHtml(state: ShopState): string {
  return `<!doctype html><html><head><title>${state.title}</title></head><body>
<h1 id="title">${state.title}</h1>
${state.price ? `<p id="price">${state.price}</p>` : ''}
<p id="stock">${state.stock}</p>
<ul id="links">${state.links.map((href) => `<li><a href="${href}">${href}</a></li>`).join('')}</ul>
<p id="note">${state.note}</p>
</body></html>`;
}

/** Serves a shop page at `path` and returns a setter that changes it. */
export function serveShop(site: FixtureServer, path: string, initial: Partial<ShopState> = {}): (changes: Partial<ShopState>) => void {
  let state: ShopState = { ...INITIAL_SHOP, ...initial };
  site.route(path, (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(shopHtml(state));
  });
  return (changes) => {
    state = { ...state, ...changes };
  };
}
