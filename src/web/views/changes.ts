import { TOO_LARGE_NOTE, describeHunk, type ChangeDiff } from '../../domain/text-diff.ts';
import type { ChangeView } from '../../services/changes.ts';
import type { MonitorView } from '../../services/monitors.ts';
import { html, type SafeHtml } from '../html.ts';
import { when } from './format.ts';
import { monitorTitle } from './monitors.ts';

// Change history: a monitor's changes newest first, and one change with the
// diff of its captured text. Captured text is untrusted: it only ever passes
// through `html`, which escapes it.

type ChangeDetail = ChangeView & {
  before_text: string | null;
  after_text: string | null;
  diff: string;
  diff_detail: ChangeDiff['detail'];
  hunks: ChangeDiff['hunks'];
};

export function ruleMatches(matches: ChangeView['rule_matches']): SafeHtml {
  if (matches === null) return html`<span class="match">any change</span>`;
  if (matches.length === 0) return html`<span class="muted">no rule matched</span>`;
  return html`${matches.map((m) => html`<span class="match">${m.rule.replace('_', ' ')}</span> `)}`;
}

function targetLabel(monitor: MonitorView, targetId: string): string {
  const target = monitor.targets.find((t) => t.id === targetId);
  return target?.label ?? targetId;
}

/** Long captures are cut in the table, with the whole value one click away. */
const CELL_CHARS = 160;

function valueCell(label: string, display: string | null): SafeHtml {
  const text = display ?? '';
  if (text.length <= CELL_CHARS) return html`<td class="value" data-label="${label}">${text}</td>`;
  return html`<td class="value" data-label="${label}"><details class="long"><summary>${text.slice(0, CELL_CHARS)}…</summary>${text}</details></td>`;
}

export function changeListBody(monitor: MonitorView, changes: ChangeView[], more: string | null, history: SafeHtml[]): SafeHtml {
  return html`<p class="crumbs"><a href="/">Monitors</a> / <a href="/monitors/${monitor.id}">${monitorTitle(monitor)}</a> /</p>
<h1>Changes</h1>
${history}
<h2>All changes, newest first</h2>
${
  changes.length === 0
    ? html`<p>No changes recorded yet. The first check records the baseline; changes appear when a later check differs from it.</p>`
    : html`<div class="table-wrap"><table class="cards changes">
<caption class="visually-hidden">Changes of ${monitorTitle(monitor)}</caption>
<thead><tr><th scope="col">Detected</th><th scope="col">Target</th><th scope="col">Before</th><th scope="col">After</th><th scope="col">Alert</th></tr></thead>
<tbody>${changes.map(
        (c) => html`<tr${c.rule_matches === null || c.rule_matches.length > 0 ? html` class="matched"` : ''}>
<td data-label="Detected"><a href="/changes/${c.id}">${when(c.detected_at)}</a></td>
<td data-label="Target">${targetLabel(monitor, c.target_id)} <span class="muted">(${c.kind})</span></td>
${valueCell('Before', c.before.display)}
${valueCell('After', c.after.display)}
<td data-label="Alert">${ruleMatches(c.rule_matches)}</td>
</tr>`,
      )}</tbody></table></div>`
}
${more && html`<p><a href="/monitors/${monitor.id}/changes?cursor=${more}">Older changes</a></p>`}`;
}

/** The unified diff, one line per row, coloured by its first character. */
function diffLines(diff: string): SafeHtml {
  const lines = diff.split('\n').filter((line, i, all) => i < all.length - 1 || line !== '');
  return html`<pre class="diff" aria-label="Line differences">${lines.map((line) => {
    const kind =
      line.startsWith('+++') || line.startsWith('---') || line.startsWith('@@')
        ? 'hunk'
        : line.startsWith('+')
          ? 'add'
          : line.startsWith('-')
            ? 'del'
            : 'same';
    const sr = kind === 'add' ? 'added: ' : kind === 'del' ? 'removed: ' : '';
    return html`<span class="${kind}">${sr && html`<span class="visually-hidden">${sr}</span>`}${line}</span>`;
  })}</pre>`;
}

/** The changed words of each block, removed ones struck through, added ones marked. */
function changedWords(hunks: ChangeDiff['hunks']): SafeHtml {
  const shown = hunks.filter((h) => h.words !== null);
  if (shown.length === 0) return html``;
  return html`<h2>Changed words</h2>
${shown.map(
  (h) =>
    html`<p class="muted">${describeHunk(h)}</p><pre class="diff words">${h.words!.map((w) =>
      w.op === 'added' ? html`<ins>${w.text}</ins>` : w.op === 'removed' ? html`<del>${w.text}</del>` : html`${w.text}`,
    )}</pre>`,
)}`;
}

function textDifferences(change: ChangeDetail): SafeHtml {
  if (change.before_text === null && change.after_text === null) {
    return html`<p class="muted">The captured text of this change is no longer available.</p>`;
  }
  if (change.diff_detail === 'too_large') {
    return html`<p>The texts are ${TOO_LARGE_NOTE}; the changes lie within ${change.hunks.map(describeHunk).join('; ')}.</p>`;
  }
  return html`${changedWords(change.hunks)}${diffLines(change.diff)}`;
}

export function changeDetailBody(monitor: MonitorView, change: ChangeDetail): SafeHtml {
  return html`<p class="crumbs"><a href="/">Monitors</a> / <a href="/monitors/${monitor.id}">${monitorTitle(monitor)}</a> / <a href="/monitors/${monitor.id}/changes">Changes</a> /</p>
<h1>${targetLabel(monitor, change.target_id)} changed</h1>
<dl class="facts">
<dt>Detected</dt><dd>${when(change.detected_at)}</dd>
<dt>Kind</dt><dd>${change.kind}</dd>
<dt>Before</dt><dd class="value">${change.before.display ?? ''}</dd>
<dt>After</dt><dd class="value">${change.after.display ?? ''}</dd>
<dt>Alert</dt><dd>${ruleMatches(change.rule_matches)}</dd>
</dl>
<h2>Text differences</h2>
${textDifferences(change)}
<details><summary>Captured text before</summary><pre class="diff"><span class="same">${change.before_text ?? '(not available)'}</span></pre></details>
<details><summary>Captured text after</summary><pre class="diff"><span class="same">${change.after_text ?? '(not available)'}</span></pre></details>`;
}
