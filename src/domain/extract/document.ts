import type { IssueCode } from '../issues.ts';
import { pageText, sourceFormat, type PageSource } from '../page-source.ts';
import type { Target } from '../targets.ts';
import { extractTarget } from './extract-target.ts';
import { listJsonElements } from './json-elements.ts';
import { readJson, type JsonValue } from './json-document.ts';
import { extractJsonTarget } from './json-target.ts';
import { pageTitle, parsePage, type ParsedPage } from './parse-page.ts';
import { listElements, type PreviewElement } from './preview-elements.ts';
import { failed, type TargetExtraction } from './target-extraction.ts';

// A loaded document read once for a check or a preview, whatever its format:
// an HTML page parsed into its tree, a JSON document parsed into its value.
// A document that cannot be read (JSON that does not parse or nests too deep)
// is an issue for every target and refuses a preview, never an empty value.

export type Unreadable = { code: IssueCode; message: string };

export type ParsedDocument =
  { format: 'html'; page: ParsedPage } | { format: 'json'; value: JsonValue } | { format: 'unreadable'; problem: Unreadable };

export interface DocumentOutline {
  title: string | null;
  elements: PreviewElement[];
  /** set when the document could not be read: a preview of it is refused */
  unreadable: Unreadable | null;
}

export function readDocument(source: PageSource, finalUrl: string): ParsedDocument {
  if (sourceFormat(source) === 'json' && typeof source !== 'string') {
    const reading = readJson(source.bytes);
    return reading.ok ? { format: 'json', value: reading.value } : { format: 'unreadable', problem: reading };
  }
  return { format: 'html', page: parsePage(pageText(source), finalUrl) };
}

export function extractFromDocument(document: ParsedDocument, target: Target): TargetExtraction {
  switch (document.format) {
    case 'html':
      return extractTarget(document.page, target);
    case 'json':
      return extractJsonTarget(document.value, target);
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
    case 'unreadable':
      return { title: null, elements: [], unreadable: document.problem };
  }
}
