import {
  extractFromDocument,
  outlineDocument,
  readDocument,
  readsPageText,
  type DocumentOutline,
  type TargetExtraction,
} from '../domain/extract/index.ts';
import { pageText, sourceFormat, type PageSource } from '../domain/page-source.ts';
import type { Target } from '../domain/targets.ts';
import { changeDiff, type ChangeDiff } from '../domain/text-diff.ts';
import { blockedReason, readsDocument, SCREENED_CHARS, screenedPart } from '../domain/blocked-page.ts';
import { atomDocument, type AtomFeed } from '../domain/atom-feed.ts';
import { ImportSourceError, readImportSource } from '../domain/imports/import-source.ts';
import type { ImportPlan } from '../domain/imports/monitor-draft.ts';

// The work the extraction threads do, as plain functions of plain data: what
// a preview lists, what targets read from a document, the diff of a change's
// texts, whether a load is an anti-bot wall rather than the page (alone, or
// with a check's reading of its page), an Atom feed's document (up to 50
// diffs of 200 KB each to escape), and the monitors an uploaded import file
// describes (an archive to inflate, JSON to parse).

export type ExtractionJob =
  | { kind: 'preview'; html: PageSource; finalUrl: string }
  | { kind: 'targets'; html: PageSource; finalUrl: string; targets: Target[] }
  | { kind: 'diff'; before: string | null; after: string | null }
  | { kind: 'check'; html: PageSource; finalUrl: string; targets: Target[]; marks: ResponseMarks }
  | { kind: 'screen'; evidence: ScreenEvidence }
  | { kind: 'atom'; feed: AtomFeed }
  | { kind: 'importSource'; file: Uint8Array };

/** An import file read: its plan, or why it is not one (an ImportSourceError's words: a thread's errors lose their class). */
export type ImportReading = { plan: ImportPlan } | { refusal: string };

/** The marks of the answer a load got, which the wall classifier reads besides its document. */
export interface ResponseMarks {
  status: number | null;
  cfMitigated: string | null;
}

/** What the wall classifier reads of a load: the start of its document (or error page) and the answer's marks. */
export interface ScreenEvidence extends ResponseMarks {
  /** the first SCREENED_CHARS of the document, '' when there is none */
  head: PageSource;
  /** the whole document's length */
  length: number;
}

/** A check's page: the reason it is a wall (and nothing read), or its targets read. */
export type CheckReading = { blocked: string; extractions: null } | { blocked: null; extractions: TargetExtraction[] };

export type PreviewOutline = DocumentOutline;

export type JobResult<J extends ExtractionJob> = J extends { kind: 'preview' }
  ? PreviewOutline
  : J extends { kind: 'diff' }
    ? ChangeDiff
    : J extends { kind: 'check' }
      ? CheckReading
      : J extends { kind: 'screen' }
        ? string | null
        : J extends { kind: 'atom' }
          ? string
          : J extends { kind: 'importSource' }
            ? ImportReading
            : TargetExtraction[];

/** Whether the job reads a PDF, and so needs PDF.js in its thread. */
export function readsPdf(job: ExtractionJob): boolean {
  return (job.kind === 'preview' || job.kind === 'targets' || job.kind === 'check') && sourceFormat(job.html) === 'pdf';
}

function wallReason({ head, length, status, cfMitigated }: ScreenEvidence): string | null {
  return blockedReason({ head: pageText(head), length, status, cfMitigated });
}

/**
 * A check's page screened for a wall, and the page to read: decoded once when
 * the screen reads all of it, not decoded for a screen that reads none of it.
 */
function screenCheck(html: PageSource, marks: ResponseMarks): { blocked: string | null; source: PageSource } {
  const length = typeof html === 'string' ? html.length : html.bytes.length;
  if (!readsDocument({ status: marks.status, length })) return { blocked: blockedReason({ head: '', length, ...marks }), source: html };
  if (length <= SCREENED_CHARS && sourceFormat(html) === 'html') {
    const text = pageText(html);
    return { blocked: blockedReason({ head: text, length, ...marks }), source: text };
  }
  return { blocked: wallReason({ ...screenedPart(html), ...marks }), source: html };
}

export async function runJob(job: ExtractionJob): Promise<JobResult<ExtractionJob>> {
  if (job.kind === 'diff') return changeDiff(job.before, job.after);
  if (job.kind === 'atom') return atomDocument(job.feed);
  if (job.kind === 'importSource') return readImport(job.file);
  if (job.kind === 'screen') return wallReason(job.evidence);
  let source = job.html;
  if (job.kind === 'check') {
    // A check's page is screened in the job that reads it: one hand-over to the threads per check, not two.
    const screened = screenCheck(job.html, job.marks);
    if (screened.blocked !== null) return { blocked: screened.blocked, extractions: null };
    source = screened.source;
  }
  // the whole page's text is noted while parsing only for a preview or a whole-page target, which read it
  const captureText = job.kind === 'preview' || readsPageText(job.targets);
  const document = await readDocument(source, job.finalUrl, { captureText });
  if (job.kind === 'preview') return outlineDocument(document);
  const extractions = job.targets.map((target) => extractFromDocument(document, target));
  return job.kind === 'check' ? { blocked: null, extractions } : extractions;
}

function readImport(file: Uint8Array): ImportReading {
  try {
    // A Buffer arrives in a thread as a plain Uint8Array: the reader wants a Buffer's methods over the same bytes.
    return { plan: readImportSource(Buffer.from(file.buffer, file.byteOffset, file.byteLength)) };
  } catch (err) {
    if (err instanceof ImportSourceError) return { refusal: err.message };
    throw err;
  }
}
