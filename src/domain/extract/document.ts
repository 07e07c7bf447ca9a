import type { IssueCode } from '../issues.ts';
import { pageText, sourceFormat, type PageSource } from '../page-source.ts';
import type { Target } from '../targets.ts';
import { extractTarget } from './extract-target.ts';
import { listJsonElements } from './json-elements.ts';
import { readJson, type JsonValue } from './json-document.ts';
import { extractJsonTarget } from './json-target.ts';
import { pageTitle, parsePage, type ParseOptions, type ParsedPage } from './parse-page.ts';
import { listPdfElements, pdfAsPage } from './pdf-document.ts';
import { readPdf, type PdfPageText } from './pdf-text.ts';
import { listElements, type PreviewElement } from './preview-elements.ts';
import { failed, type TargetExtraction } from './target-extraction.ts';

// A loaded document read once for a check or a preview, whatever its format:
// an HTML page parsed into its tree, a JSON document parsed into its value, a
// PDF read as text into a page of its lines (pdf-document.ts).
// A document that cannot be read (JSON that does not parse or nests too deep,
// an encrypted or textless PDF)
// is an issue for every target and refuses a preview, never an empty value.

export type Unreadable = { code: IssueCode; message: string };

export type ParsedDocument =
  | { format: 'html'; page: ParsedPage }
  | { format: 'json'; value: JsonValue }
  | { format: 'pdf'; page: ParsedPage; pages: PdfPageText[] }
  | { format: 'unreadable'; problem: Unreadable };

export interface DocumentOutline {
  title: string | null;
  elements: PreviewElement[];
  /** set when the document could not be read: a preview of it is refused */
  unreadable: Unreadable | null;
}

/**
 * Whether extracting the targets from an HTML page reads the whole page's
 * visible text: a whole-page target does; a selected element's text, price,
 * stock wording and links are read from the element alone. A preview reads it
 * too (its main offer is what whole-page targets read, main-offer-elements.ts).
 */
export function readsPageText(targets: readonly Target[]): boolean {
  return targets.some((target) => target.selection.scope === 'page');
}

/** An HTML page (parsed with the options) or a JSON document, read at once (a PDF is read by readDocument). */
export function readTextDocument(source: PageSource, finalUrl: string, options: ParseOptions = {}): ParsedDocument {
  if (sourceFormat(source) === 'json' && typeof source !== 'string') {
    const reading = readJson(source.bytes);
    return reading.ok ? { format: 'json', value: reading.value } : { format: 'unreadable', problem: reading };
  }
  return { format: 'html', page: parsePage(pageText(source), finalUrl, options) };
}

/** Any document; the options are an HTML page's (a PDF's page is read whole, its text always noted). */
export async function readDocument(source: PageSource, finalUrl: string, options: ParseOptions = {}): Promise<ParsedDocument> {
  if (sourceFormat(source) !== 'pdf' || typeof source === 'string') return readTextDocument(source, finalUrl, options);
  const reading = await readPdf(source.bytes);
  if (!reading.ok) return { format: 'unreadable', problem: reading };
  return { format: 'pdf', page: pdfAsPage(reading.pages, reading.links, finalUrl), pages: reading.pages };
}

export function extractFromDocument(document: ParsedDocument, target: Target): TargetExtraction {
  switch (document.format) {
    case 'html':
      return extractTarget(document.page, target);
    case 'json':
      return extractJsonTarget(document.value, target);
    case 'pdf':
      if (target.selection.scope !== 'page') {
        return failed(target, 'selector_missing', 'a PDF is read whole: choose the whole page (scope page)', null);
      }
      return extractTarget(document.page, target);
    case 'unreadable':
      return failed(target, document.problem.code, document.problem.message, null);
  }
}

export function outlineDocument(document: ParsedDocument): DocumentOutline {
  switch (document.format) {
    case 'html':
      return { title: pageTitle(document.page), elements: listElements(document.page), unreadable: null };
    case 'json':
      return { title: null, elements: listJsonElements(document.value), unreadable: null };
    case 'pdf':
      return { title: document.pages.flatMap((p) => p.headings)[0] ?? null, elements: listPdfElements(document.pages), unreadable: null };
    case 'unreadable':
      return { title: null, elements: [], unreadable: document.problem };
  }
}
