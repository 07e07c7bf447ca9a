import { parsePage, type ParsedPage } from './parse-page.ts';
import type { PdfPageText } from './pdf-text.ts';
import type { PreviewElement } from './preview-elements.ts';
import { capString } from './target-extraction.ts';

// A PDF's text as the page every kind reads: each PDF page a section of
// paragraphs (headings as headings), its link annotations as links. So a
// price in a price list is found as on a web page, a heading changes a text
// target's lines, and links are watched as links.

const MAX_ELEMENT_TEXT = 200;

function escapeHtml(text: string): string {
  return text.replace(/[&<>"]/gu, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);
}

export function pdfAsPage(pages: readonly PdfPageText[], links: readonly string[], finalUrl: string): ParsedPage {
  const sections = pages.map(({ lines, headings }) => {
    const isHeading = new Set(headings);
    const blocks = lines.map((line) => (isHeading.has(line) ? `<h2>${escapeHtml(line)}</h2>` : `<p>${escapeHtml(line)}</p>`));
    return `<section>${blocks.join('')}</section>`;
  });
  const anchors = links.map((url) => `<a href="${escapeHtml(url)}">${escapeHtml(url)}</a>`).join(' ');
  return parsePage(`<!doctype html><html><body>${sections.join('')}<nav>${anchors}</nav></body></html>`, finalUrl);
}

/** The preview's element list of a PDF: each page (its first words) and each heading, for orientation; targets read the whole document. */
export function listPdfElements(pages: readonly PdfPageText[]): PreviewElement[] {
  return pages.flatMap(({ number, lines, headings }) => [
    { selector: `page ${number}`, tag: 'page', text: capString(lines.join(' '), MAX_ELEMENT_TEXT), hints: [] },
    ...headings.map((heading) => ({
      selector: `page ${number}`,
      tag: 'heading',
      text: capString(heading, MAX_ELEMENT_TEXT),
      hints: ['heading' as const],
    })),
  ]);
}
