import type { ImportLine, ImportSummary } from '../../services/monitor-import.ts';
import type { MonitorDraft } from '../../domain/imports/monitor-draft.ts';
import { html, type SafeHtml } from '../html.ts';
import { plural } from './format.ts';
import { csrfField, type PageContext } from './layout.ts';
import type { PreviewAllowances } from '../preview-allowances.ts';

// The import page (upload form, then a result page written as the import goes)
// and its lines; every value from the file is escaped by `html`.

export function importFormBody(ctx: PageContext, allowances: PreviewAllowances, maxMegabytes: number): SafeHtml {
  return html`<h1>Import monitors</h1>
<p>Upload one of these files; what it is is told by its content:</p>
<ul>
<li>an export of pagewatch monitors (<a href="/monitors/export" download>Export as JSON</a> on the monitor list of any account or install);</li>
<li>a changedetection.io backup archive (the ZIP of its Backups page), or its <code>url-watches.json</code>;</li>
<li>a plain list of addresses, one a line (lines starting with <code>#</code> are comments): each gives a monitor of the whole page's text.</li>
</ul>
<p>Each address is previewed as on the New monitor page, then its monitor is created from that preview in one step: it is there whole or not at all.
A monitor of an address this account watches already is skipped, so importing the same file again creates only what is missing.
The previews use this account's allowance (today ${allowances.day}, this month ${allowances.month}) and are spaced ${plural(allowances.spacingSeconds, 'second')} apart, so a long file takes a while: the result page shows each address as it is done.</p>
<form method="post" action="/monitors/import" enctype="multipart/form-data" class="stack">
${csrfField(ctx)}
<div><label for="file">File</label><input id="file" name="file" type="file" required accept=".json,.zip,.txt,application/json,application/zip,text/plain">
<div class="help">At most ${maxMegabytes} MB.</div></div>
<button type="submit">Import</button>
</form>`;
}

/** The result page's opening, sent before the first preview. */
export function importStartBody(filename: string, monitors: number, skipped: number): SafeHtml {
  return html`<h1>Import monitors</h1>
<p>From <code>${filename}</code>: ${plural(monitors, 'monitor')} to import${skipped > 0 && html`, ${skipped} ${skipped === 1 ? 'entry' : 'entries'} of the file giving none (listed at the end)`}.</p>
<h2 id="progress-heading">Progress</h2>
<p class="muted">Each address is previewed, then its monitor created; this page lists each as it is done. Leaving the page stops the import after the monitor in hand, and importing the file again skips what is there.</p>
<ul class="import-progress" aria-labelledby="progress-heading">`;
}

export function importLineItem(line: ImportLine): SafeHtml {
  if (line.kind === 'waiting') {
    return html`<li class="muted" data-kind="waiting">Waiting ${plural(line.seconds, 'second')} for the next preview (the plan spaces them).</li>`;
  }
  const at = html`<span class="muted">${line.at} of ${line.total}</span> <span class="url">${line.url}</span>`;
  if (line.kind === 'exists') return html`<li data-kind="exists">${at}: watched already, skipped</li>`;
  if (line.kind === 'not_created') return html`<li data-kind="not-created">${at}: <strong>not created</strong>, ${line.reason}</li>`;
  return html`<li data-kind="created">${at}: created</li>`;
}

/** The result under the progress list: what was created, skipped, refused and not carried over. */
export function importResultBody(summary: ImportSummary, drafts: MonitorDraft[], createdUrls: Set<string>): SafeHtml {
  const leftOut = drafts.filter((d) => createdUrls.has(d.url) && d.not_carried.length > 0);
  return html`</ul>
<section id="import-result" aria-labelledby="result-heading"><h2 id="result-heading">Result</h2>
<p role="status"><strong>${summary.created} created</strong>, ${summary.existing} skipped as watched already, ${summary.notCreated.length} not created.</p>
${
  summary.notCreated.length > 0 &&
  html`<h3>Not created</h3>
<ul class="not-created">${summary.notCreated.map((n) => html`<li><span class="url">${n.url}</span>: ${n.reason}</li>`)}</ul>`
}
${
  leftOut.length > 0 &&
  html`<h3>Not carried over</h3>
<p>These monitors were created without what their source had here:</p>
<ul class="not-carried">${leftOut.map((d) => html`<li><span class="url">${d.url}</span><ul>${d.not_carried.map((note) => html`<li>${note}</li>`)}</ul></li>`)}</ul>`
}
${
  summary.skipped.length > 0 &&
  html`<h3>Entries that give no monitor</h3>
<ul class="skipped">${summary.skipped.map((s) => html`<li>${s.source}: ${s.reason}</li>`)}</ul>`
}
<p><a class="button" href="/">Back to the monitors</a> <a class="button secondary" href="/monitors/import">Import another file</a></p>
</section>`;
}

/** The import stopped before its end (the store, or an internal error): what was done stays. */
export function importStoppedBody(reason: string): SafeHtml {
  return html`</ul>
<p class="error" role="alert">The import stopped: ${reason} The monitors listed as created above are there; importing the file again skips them.</p>
<p><a class="button" href="/">Back to the monitors</a></p>`;
}
