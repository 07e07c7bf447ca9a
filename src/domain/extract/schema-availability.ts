import type { Availability } from '../observed-value.ts';

// Availability values as structured data writes them: schema.org ItemAvailability
// ("https://schema.org/InStock", "schema:OutOfStock", "InStock") or Open Graph
// product tags ("instock", "oos", "out of stock"), or the status words of a
// classified ad's microdata ("NOT SOLD", "SOLD").
//
// Pre-orders, pre-sales and back-orders count as out of stock: the item cannot
// be had now, which is what a watcher of stock waits for. Made-to-order,
// limited, in-store-only and online-only items can be bought, so in stock.

const VALUES: Readonly<Record<string, Availability>> = {
  instock: 'in_stock',
  instoreonly: 'in_stock',
  onlineonly: 'in_stock',
  limitedavailability: 'in_stock',
  madetoorder: 'in_stock',
  available: 'in_stock',
  availablefororder: 'in_stock',
  outofstock: 'out_of_stock',
  soldout: 'out_of_stock',
  discontinued: 'out_of_stock',
  preorder: 'out_of_stock',
  presale: 'out_of_stock',
  backorder: 'out_of_stock',
  oos: 'out_of_stock',
  reserved: 'out_of_stock',
  notsold: 'in_stock',
  sold: 'out_of_stock',
};

export function availabilityFromSchema(value: string): Availability | null {
  const token = value.trim().split(/[/:#]/u).pop() ?? '';
  return VALUES[token.toLowerCase().replace(/[^a-z]/gu, '')] ?? null;
}

/** Several offers: the product is in stock when any of them is. */
export function combineAvailability(values: readonly Availability[]): Availability | null {
  if (values.length === 0) return null;
  return values.includes('in_stock') ? 'in_stock' : 'out_of_stock';
}
