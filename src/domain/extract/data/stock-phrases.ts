import { UPSTREAM_IN_STOCK_PHRASES, UPSTREAM_OUT_OF_STOCK_PHRASES } from './upstream-stock-phrases.ts';

// Stock wording with a strength. A strong phrase states the stock of the item
// ("out of stock", "in stock"); a weak one only suggests it: buy buttons stay
// in the markup of sold-out pages, and "notify me" or "coming soon" appear on
// pages of items that are in stock. A stronger statement outweighs a weaker
// one; statements of equal strength that disagree leave the state unknown.
//
// The upstream lists (see upstream-stock-phrases.ts) are extended with our
// own phrases below: in-stock wording in the languages of the upstream list,
// and the negations of that wording that upstream lacks ("sem estoque"), so an
// in-stock phrase is never read out of its own negation.

export type Strength = 'strong' | 'weak';

export interface StockPhrase {
  readonly phrase: string;
  readonly strength: Strength;
}

const WEAK_OUT = new Set(['notify me', 'coming soon', 'nachricht bei', 'benachrichtigt mich', 'more on order', 'vorbestellen']);

const OWN_OUT_OF_STOCK = [
  'sem estoque',
  'sin stock',
  'sin existencias',
  'fuera de stock',
  'agotados',
  'ei varastossa',
  'ikke på lager',
  'inte i lager',
  'slut i lager',
  'není skladem',
  'nincs készleten',
  'esaurito',
  'non disponibili',
  '在庫なし',
  '缺货',
  '无货',
  '재고 없음',
];

const STRONG_IN = [
  'in stock',
  'arrives approximately',
  'available',
  'auf lager',
  'lieferbar',
  'sofort lieferbar',
  'verfügbar',
  'vorrätig',
  'en stock',
  'disponible',
  'op voorraad',
  'leverbaar',
  'disponibile',
  'na stanie',
  'dostępny',
  'em estoque',
  'disponível',
  'en existencia',
  'i lager',
  'på lager',
  'varastossa',
  'skladem',
  'készleten',
  'stokta var',
  'tersedia',
  '在庫あり',
  '有货',
  '재고 있음',
];

const WEAK_IN = [
  'add to cart',
  'add to basket',
  'add to bag',
  'buy now',
  'in den warenkorb',
  'ajouter au panier',
  'añadir al carrito',
  'aggiungi al carrello',
  'in winkelwagen',
  'do koszyka',
  'adicionar ao carrinho',
  'lägg i varukorgen',
  'kosárba',
  'do košíku',
  'do košíka',
  'sepete ekle',
  'in winkelmand',
  'legg i handlekurven',
  'lisää ostoskoriin',
  'добавить в корзину',
  'הוסף לסל',
  'הוספה לסל',
  '加入購物車',
  '放入購物車',
  '立即購買',
  '加入购物车',
  '立即购买',
  '장바구니 담기',
  '바로구매',
  '구매하기',
];

function unique(phrases: readonly StockPhrase[]): StockPhrase[] {
  const seen = new Map<string, StockPhrase>();
  for (const entry of phrases) {
    const phrase = entry.phrase.trim();
    if (!seen.has(phrase)) seen.set(phrase, { phrase, strength: entry.strength });
  }
  return [...seen.values()];
}

export const OUT_OF_STOCK_PHRASES: readonly StockPhrase[] = unique(
  [...UPSTREAM_OUT_OF_STOCK_PHRASES, ...OWN_OUT_OF_STOCK].map((phrase) => ({
    phrase,
    strength: WEAK_OUT.has(phrase) ? 'weak' : 'strong',
  })),
);

export const IN_STOCK_PHRASES: readonly StockPhrase[] = unique([
  ...UPSTREAM_IN_STOCK_PHRASES.map((phrase) => ({ phrase, strength: WEAK_IN.includes(phrase) ? ('weak' as const) : ('strong' as const) })),
  ...STRONG_IN.map((phrase) => ({ phrase, strength: 'strong' as const })),
  ...WEAK_IN.map((phrase) => ({ phrase, strength: 'weak' as const })),
]);
