import type * as PdfJsModule from 'pdfjs-dist/legacy/build/pdf.mjs';
import type { PDFPageProxy } from 'pdfjs-dist/legacy/build/pdf.mjs';

// A PDF file read as text by Mozilla's PDF.js (pdfjs-dist), in an extraction
// thread within its job budget: its pages' lines (text items grouped by their
// baseline), lines set in a larger font than the body as headings, and its
// link annotations. Scripts are never run (no eval, no XFA, no scripting), and
// nothing is fetched: the bytes are all it reads. A PDF that is encrypted,
// broken, too long, or has no text layer at all (a scan) is unreadable, with
// the reason, never an empty text.

export const MAX_PDF_PAGES = 1000;
// A line whose font is this much larger than the document's usual one is a heading.
const HEADING_RATIO = 1.25;

export interface PdfPageText {
  number: number;
  lines: string[];
  headings: string[];
}

export type PdfReading = { ok: true; pages: PdfPageText[]; links: string[] } | { ok: false; code: 'pdf_unreadable'; message: string };

interface Line {
  y: number;
  text: string;
  size: number;
}

type TextItem = Extract<Awaited<ReturnType<PDFPageProxy['getTextContent']>>['items'][number], { str: string }>;

/** The page's text items as lines, top to bottom: items on one baseline joined in order. */
function linesOf(items: readonly TextItem[]): Line[] {
  const lines: Line[] = [];
  for (const item of items) {
    // PDF.js types the text matrix loosely: [a, b, c, d, e, f], d the vertical scale (the font size), f the baseline
    const matrix = item.transform as number[];
    const y = Math.round(matrix[5] ?? 0);
    const size = Math.abs(matrix[3] ?? item.height);
    const last = lines.at(-1);
    if (last && last.y === y) {
      last.text += item.str;
      last.size = Math.max(last.size, size);
    } else lines.push({ y, text: item.str, size });
  }
  return lines.map((l) => ({ ...l, text: l.text.replace(/\s+/gu, ' ').trim() })).filter((l) => l.text !== '');
}

function mostCommonSize(lines: readonly Line[]): number {
  const counts = new Map<number, number>();
  for (const line of lines) counts.set(Math.round(line.size), (counts.get(Math.round(line.size)) ?? 0) + line.text.length);
  let best = 0;
  let most = -1;
  for (const [size, count] of counts) if (count > most) [best, most] = [size, count];
  return best;
}

function unreadable(message: string): PdfReading {
  return { ok: false, code: 'pdf_unreadable', message };
}

function whyUnreadable(error: unknown): string {
  const name = (error as { name?: string }).name;
  if (name === 'PasswordException') return 'the PDF is encrypted: it cannot be read without its password';
  if (name === 'InvalidPDFException') return 'the file is not a readable PDF';
  return `the PDF could not be read: ${error instanceof Error ? error.message : String(error)}`;
}

type PdfJs = typeof PdfJsModule;

let loading: Promise<PdfJs> | null = null;

/**
 * PDF.js, loaded once per thread, on its first PDF: its modules cost seconds and hundreds of MiB through tsx (tens
 * without), which an install that watches no PDF should not pay in every extraction thread. The thread tells the pool
 * while it loads them, so the load does not count against that PDF's budget (extraction-worker.ts). PDF.js runs its
 * parser in this thread (as it does in Node) from its worker module, handed over here rather than imported on the
 * first document.
 */
export function loadPdfReader(): Promise<PdfJs> {
  loading ??= Promise.all([import('pdfjs-dist/legacy/build/pdf.mjs'), import('pdfjs-dist/legacy/build/pdf.worker.mjs')]).then(
    ([pdfjs, worker]) => {
      (globalThis as { pdfjsWorker?: unknown }).pdfjsWorker = worker;
      return pdfjs;
    },
  );
  return loading;
}

/** Whether this thread has started loading PDF.js. */
export function pdfReaderLoading(): boolean {
  return loading !== null;
}

export async function readPdf(bytes: Uint8Array): Promise<PdfReading> {
  const { getDocument } = await loadPdfReader();
  // PDF.js takes the buffer over: it gets a copy, so the caller's bytes stay usable.
  const task = getDocument({
    data: new Uint8Array(bytes),
    isEvalSupported: false,
    enableXfa: false,
    disableFontFace: true,
    useSystemFonts: false,
    stopAtErrors: false,
    verbosity: 0,
  });
  try {
    const pdf = await task.promise;
    if (pdf.numPages > MAX_PDF_PAGES) return unreadable(`the PDF has ${pdf.numPages} pages; at most ${MAX_PDF_PAGES} are read`);
    const read: { number: number; lines: Line[] }[] = [];
    const links = new Set<string>();
    for (let number = 1; number <= pdf.numPages; number++) {
      const page = await pdf.getPage(number);
      const content = await page.getTextContent();
      read.push({ number, lines: linesOf(content.items.filter((item): item is TextItem => 'str' in item)) });
      for (const annotation of (await page.getAnnotations()) as { subtype?: string; url?: string }[]) {
        if (annotation.subtype === 'Link' && typeof annotation.url === 'string') links.add(annotation.url);
      }
      page.cleanup();
    }
    const all = read.flatMap((p) => p.lines);
    if (all.length === 0) return unreadable('the PDF has no text layer (a scanned document?): there is no text to watch');
    const body = mostCommonSize(all);
    const pages = read.map(({ number, lines }) => ({
      number,
      lines: lines.map((l) => l.text),
      headings: lines.filter((l) => l.size >= body * HEADING_RATIO).map((l) => l.text),
    }));
    return { ok: true, pages, links: [...links] };
  } catch (error) {
    return unreadable(whyUnreadable(error));
  } finally {
    await task.destroy();
  }
}
