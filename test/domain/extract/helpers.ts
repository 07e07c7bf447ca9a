import { parsePage, type ParsedPage } from '../../../src/domain/extract/parse-page.ts';
import type { Target } from '../../../src/domain/targets.ts';

export const PAGE_URL = 'https://shop.example/products/kettle?ref=home';

export function page(html: string, url: string = PAGE_URL): ParsedPage {
  return parsePage(html, url);
}

export function priceTarget(fields: Partial<Target> = {}): Target {
  return { id: 'price', kind: 'price', selection: { scope: 'page' }, currency: 'EUR', ...fields };
}

export function selector(css: string): Target['selection'] {
  return { scope: 'selector', selector: css };
}
