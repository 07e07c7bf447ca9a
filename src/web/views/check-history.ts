import type { CheckRunView } from '../../services/check-history.ts';
import { html, type SafeHtml } from '../html.ts';
import { plural, when } from './format.ts';

// A monitor's latest checks (the API's check history), newest first.

const OUTCOME_TEXT: Record<CheckRunView['outcome'], string> = {
  ok: 'ok',
  issues: 'loaded, with issues',
  failed: 'failed',
  not_modified: 'not modified (304)',
};

export function checkHistory(monitorId: string, checks: CheckRunView[]): SafeHtml {
  if (checks.length === 0) return html`<p class="muted">No check yet.</p>`;
  return html`<div class="table-wrap"><table class="cards">
<caption class="visually-hidden">Latest checks, newest first</caption>
<thead><tr><th scope="col">Checked</th><th scope="col">Outcome</th><th scope="col">HTTP</th><th scope="col">Took</th><th scope="col">Changes</th><th scope="col">Issues</th></tr></thead>
<tbody>${checks.map(
    (c) => html`<tr>
<td>${when(c.checked_at)}${c.manual_check_id ? html` <span class="tag">manual</span>` : ''}</td>
<td data-label="Outcome"><span class="state state-${c.outcome}">${OUTCOME_TEXT[c.outcome]}</span></td>
<td data-label="HTTP">${c.http_status ?? html`<span class="muted">—</span>`}</td>
<td data-label="Took">${(c.duration_ms / 1000).toFixed(1)} s</td>
<td data-label="Changes">${c.changes.length ? html`<a href="/monitors/${monitorId}/changes">${plural(c.changes.length, 'change')}</a>` : html`<span class="muted">none</span>`}</td>
<td data-label="Issues">${c.issues.length ? html`<ul class="issues">${c.issues.map((i) => html`<li><code>${i.code}</code>: ${i.message}</li>`)}</ul>` : html`<span class="muted">none</span>`}</td>
</tr>`,
  )}</tbody></table></div>`;
}
