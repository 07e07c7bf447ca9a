import {
  extractFromDocument,
  outlineDocument,
  readDocument,
  type DocumentOutline,
  type TargetExtraction,
} from '../domain/extract/index.ts';
import type { PageSource } from '../domain/page-source.ts';
import type { Target } from '../domain/targets.ts';
import { changeDiff, type ChangeDiff } from '../domain/text-diff.ts';

// The work the extraction threads do, as plain functions of plain data: what
// a preview lists, what targets read from a document, and the diff of a change's texts.

export type ExtractionJob =
  | { kind: 'preview'; html: PageSource; finalUrl: string }
  | { kind: 'targets'; html: PageSource; finalUrl: string; targets: Target[] }
  | { kind: 'diff'; before: string | null; after: string | null };

export type PreviewOutline = DocumentOutline;

export type JobResult<J extends ExtractionJob> = J extends { kind: 'preview' }
  ? PreviewOutline
  : J extends { kind: 'diff' }
    ? ChangeDiff
    : TargetExtraction[];

export async function runJob(job: ExtractionJob): Promise<PreviewOutline | TargetExtraction[] | ChangeDiff> {
  if (job.kind === 'diff') return changeDiff(job.before, job.after);
  const document = await readDocument(job.html, job.finalUrl);
  if (job.kind === 'preview') return outlineDocument(document);
  return job.targets.map((target) => extractFromDocument(document, target));
}
