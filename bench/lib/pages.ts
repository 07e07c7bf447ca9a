import type { Target } from '../../src/domain/targets.ts';

// Generated fixture pages. The product page is shaped like a real shop page of
// about 100 KB (navigation, description, reviews, related products, inline
// JSON) around the three watched elements; the small page is the same three
// elements alone. Prices move with `version`, so a check sometimes records a
// change, as it would on a live site.

export const PRODUCT_TARGETS: Target[] = [
  { id: 'title', kind: 'text', selection: { scope: 'selector', selector: '#product-title' }, rule: 'changed' },
  {
    id: 'price',
    kind: 'price',
    selection: { scope: 'selector', selector: '[data-testid="price"]' },
    currency: 'EUR',
    decimal: ',',
    rule: 'changed',
  },
  { id: 'stock', kind: 'availability', selection: { scope: 'selector', selector: '[itemprop="availability"]' }, rule: 'changed' },
];

const WORDS = 'kaffee bohne röstung crema mühle tamper kessel dampf druck aroma säure körper süße milch schaum tasse'.split(' ');

function prose(seed: number, words: number): string {
  let out = '';
  for (let i = 0; i < words; i++) out += `${WORDS[(seed * 7 + i * 13) % WORDS.length]} `;
  return out.trim();
}

function price(n: number, version: number): string {
  const cents = 10_000 + ((n * 37 + version * 101) % 90_000);
  return `${Math.floor(cents / 100).toLocaleString('de-DE')},${String(cents % 100).padStart(2, '0')} €`;
}

function watched(n: number, version: number): string {
  return `<h1 id="product-title">Espressomaschine Modell ${n}</h1>
    <p class="price" data-testid="price">${price(n, version)}</p>
    <p class="stock" itemprop="availability">${(n + version) % 5 === 0 ? 'Ausverkauft' : 'Auf Lager – Lieferung in 2 Tagen'}</p>`;
}

/** About 100 KB. */
export function productPage(n: number, version = 0): string {
  const nav = Array.from({ length: 120 }, (_, i) => `<li><a href="/category/${i}">Kategorie ${i}</a></li>`).join('');
  const reviews = Array.from(
    { length: 115 },
    (_, i) =>
      `<article class="review"><h3>Bewertung ${i}</h3><span class="stars">${(i % 5) + 1}/5</span><p>${prose(n + i, 90)}</p></article>`,
  ).join('\n');
  const related = Array.from(
    { length: 60 },
    (_, i) =>
      `<div class="tile"><a href="/product/${(n + i) % 1000}.html"><img src="/img/${i}.jpg" alt="Produkt ${i}"><span class="tile-name">Produkt ${i}</span></a><span class="tile-price">${i + 10},00 €</span></div>`,
  ).join('\n');
  const json = JSON.stringify({ sku: n, variants: Array.from({ length: 80 }, (_, i) => ({ id: i, name: `Variante ${i}`, stock: i % 3 })) });
  return `<!doctype html>
<html lang="de">
<head>
  <meta charset="utf-8">
  <title>Espressomaschine Modell ${n} – Kaffeehaus</title>
  <style>.price { font-weight: bold } .tile { display: inline-block }</style>
  <script>window.__STATE__ = ${json};</script>
</head>
<body>
  <header><nav><ul>${nav}</ul></nav></header>
  <main>
    ${watched(n, version)}
    <section class="description"><h2>Beschreibung</h2><p>${prose(n, 400)}</p></section>
    <section class="reviews">${reviews}</section>
    <section class="related">${related}</section>
  </main>
  <footer><p>${prose(n * 3, 200)}</p></footer>
</body>
</html>`;
}

/** Which version of small page `n` is served at `atMs`: prices move every `changeSeconds`, staggered per page. */
export function smallPageVersion(n: number, atMs: number, changeSeconds: number): number {
  return Math.floor((atMs / 1000 + n) / changeSeconds);
}

/** The three watched elements alone. */
export function smallPage(n: number, version = 0): string {
  return `<!doctype html><html lang="de"><head><meta charset="utf-8"><title>Modell ${n}</title></head><body><main>
    ${watched(n, version)}
  </main></body></html>`;
}
