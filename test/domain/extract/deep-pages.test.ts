import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runJob, type PreviewOutline } from '../../../src/extraction/extraction-jobs.ts';
import type { TargetExtraction } from '../../../src/domain/extract/index.ts';

// A page may nest elements arbitrarily deep; past the depth browsers build,
// they are lifted to the element at the limit, as Chromium does, so no walk
// of the page overflows the stack.

const DEPTH = 30_000;
const deepPage = `<html><head><title>Deep</title></head><body>${'<div>'.repeat(DEPTH)}<p id="note">Still here</p>${'</div>'.repeat(DEPTH)}</body></html>`;

test(`a page of ${DEPTH} nested elements is previewed and its targets read, with no stack overflow`, async () => {
  const outline = (await runJob({ kind: 'preview', html: deepPage, finalUrl: 'http://127.0.0.1/deep' })) as PreviewOutline;
  assert.equal(outline.title, 'Deep');
  const [page, selected] = (await runJob({
    kind: 'targets',
    html: deepPage,
    finalUrl: 'http://127.0.0.1/deep',
    targets: [
      { id: 'page', kind: 'text', selection: { scope: 'page' } },
      { id: 'note', kind: 'text', selection: { scope: 'selector', selector: '#note' } },
    ],
  } as never)) as TargetExtraction[];
  assert.equal(page!.value, 'Still here');
  assert.equal(selected!.value, 'Still here');
});
