import { extractTarget, listElements, pageTitle, parsePage, type PreviewElement, type TargetExtraction } from '../domain/extract/index.ts';
import { pageText, type PageSource } from '../domain/page-source.ts';
import type { Target } from '../domain/targets.ts';

// The work the extraction threads do, as plain functions of plain data: what
// a preview lists, and what targets read from a page.

export type ExtractionJob =
  { kind: 'preview'; html: PageSource; finalUrl: string } | { kind: 'targets'; html: PageSource; finalUrl: string; targets: Target[] };

export interface PreviewOutline {
  title: string | null;
  elements: PreviewElement[];
}

export type JobResult<J extends ExtractionJob> = J extends { kind: 'preview' } ? PreviewOutline : TargetExtraction[];

export function runJob(job: ExtractionJob): PreviewOutline | TargetExtraction[] {
  const page = parsePage(pageText(job.html), job.finalUrl);
  if (job.kind === 'preview') return { title: pageTitle(page), elements: listElements(page) };
  return job.targets.map((target) => extractTarget(page, target));
}
