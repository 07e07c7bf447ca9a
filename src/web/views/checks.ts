import type { Receipt } from '../../services/manual-checks.ts';
import { html, type SafeHtml } from '../html.ts';
import { plural, when } from './format.ts';
import { csrfField, type PageContext } from './layout.ts';

// "Check now" on a monitor's page, and the progress of the receipt it returned.

const STATUS_TEXT: Record<string, string> = {
  queued: 'Queued: a worker takes it at the next scheduler cycle (not sooner than the plan interval after the previous capture).',
  running: 'Running: the page is being checked.',
  succeeded: 'Done: the page was checked.',
  failed: 'Failed: the check ran but could not capture the page.',
  cancelled: 'Cancelled: the monitor was paused, deleted or reconfigured before the check ran.',
  expired: 'Expired: no worker took it within 30 minutes.',
};

/** How often the page reloads itself while the receipt is not final. */
export const RECEIPT_REFRESH_SECONDS = 10;

function receiptPanel(monitorId: string, receipt: Receipt, terminal: boolean): SafeHtml {
  const steps = ['queued', 'running', terminal ? receipt.status : 'finished'];
  const current = steps.indexOf(receipt.status);
  return html`<div class="card" id="receipt" role="status"${terminal ? '' : html` data-refresh-seconds="${RECEIPT_REFRESH_SECONDS}"`}>
<h3>Manual check <span class="state state-${receipt.status}">${receipt.status}</span></h3>
<ol class="progress">${steps.map((s, i) => html`<li${i === current ? html` aria-current="step"` : ''} class="${i <= current ? 'done' : 'todo'}">${s}</li>`)}</ol>
<p>${STATUS_TEXT[receipt.status]}</p>
<p class="muted">Requested ${when(receipt.requested_at)}${receipt.started_at && html`, started ${when(receipt.started_at)}`}${receipt.finished_at && html`, finished ${when(receipt.finished_at)}`}.
${!terminal && html` This page refreshes every ${RECEIPT_REFRESH_SECONDS} seconds.`}</p>
${receipt.status === 'succeeded' && html`<p>${receipt.changes.length === 0 ? 'No change was found.' : html`<a href="/monitors/${monitorId}/changes">${plural(receipt.changes.length, 'change')} recorded</a>.`}</p>`}
${receipt.issues.length > 0 && html`<ul class="issues">${receipt.issues.map((i) => html`<li><code>${i.code}</code>: ${i.message}</li>`)}</ul>`}
</div>`;
}

/** Why a check requested now would wait: the plan's fastest interval after the previous capture. */
function waitText(notBefore: Date | null, minIntervalMinutes: number): SafeHtml | null {
  if (notBefore === null) return null;
  return html`<p class="help" id="check-wait">A check requested now waits until ${when(notBefore.toISOString())}: your plan runs a monitor at most
once every ${plural(minIntervalMinutes, 'minute')}, counted from its previous check.</p>`;
}

export function checkPanel(
  ctx: PageContext,
  monitor: { id: string; status: string },
  input: {
    receipt: { receipt: Receipt; terminal: boolean } | null;
    left: number;
    limit: number;
    idempotencyKey: string;
    /** when a check requested now could run at the earliest, if that is later than now */
    notBefore: Date | null;
    minIntervalMinutes: number;
  },
): SafeHtml {
  const paused = monitor.status !== 'active';
  return html`<section aria-labelledby="check-title" class="card">
<h2 id="check-title">Check now</h2>
<form method="post" action="/monitors/${monitor.id}/check" class="actions">
${csrfField(ctx)}<input type="hidden" name="idempotency_key" value="${input.idempotencyKey}">
<button type="submit"${paused || input.left === 0 ? html` disabled` : ''}>Check now</button>
<span class="muted">${paused ? 'Resume the monitor to request a check.' : `${input.left} of ${input.limit} manual checks left today (shared with the API).`}</span>
</form>
${!paused && waitText(input.notBefore, input.minIntervalMinutes)}
${input.receipt && receiptPanel(monitor.id, input.receipt.receipt, input.receipt.terminal)}
</section>`;
}
