import type { StepOutcome } from '../../domain/steps.ts';
import { html, type SafeHtml } from '../html.ts';

// What each step of a preview did, shown on the new-monitor form when one
// failed and on the preview page when all succeeded: the step's number and
// action, ok or the issue in words, and where the page was after it.

export function stepResultsTable(outcomes: readonly StepOutcome[]): SafeHtml {
  return html`<div class="table-wrap"><table class="step-results"><caption>Each step's result</caption>
<thead><tr><th scope="col">Step</th><th scope="col">Action</th><th scope="col">Result</th><th scope="col">Page after it</th><th scope="col">Title after it</th></tr></thead>
<tbody>${outcomes.map(
    (o) =>
      html`<tr><td>${o.index + 1}</td><td><code>${o.action}</code></td><td>${o.ok ? html`<strong>ok</strong>` : html`<strong>failed</strong>: ${o.issue?.message ?? 'it did not complete'}`}</td><td class="url">${o.url}</td><td>${o.title ?? html`<span class="muted">none</span>`}</td></tr>`,
  )}</tbody></table></div>`;
}
