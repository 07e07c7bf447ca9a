import type { Allowance, Usage } from '../../services/usage.ts';
import { html, type SafeHtml } from '../html.ts';
import { utcText, when } from './format.ts';

// GET /usage as bars: every allowance with used/limit and when it resets.

function bytes(n: number): string {
  if (n >= 1024 * 1024) return `${(n / (1024 * 1024)).toFixed(1).replace(/\.0$/, '')} MiB`;
  if (n >= 1024) return `${(n / 1024).toFixed(1).replace(/\.0$/, '')} KiB`;
  return `${n} B`;
}

function bar(
  id: string,
  label: string,
  used: number,
  limit: number,
  resets: SafeHtml | null,
  format: (n: number) => string = String,
): SafeHtml {
  // A limit of 0 means the plan does not include it; show a full, "none included" bar rather than divide by zero.
  const max = Math.max(limit, 1);
  return html`<div class="allowance">
<div class="numbers"><label for="${id}">${label}</label><span>${format(used)} of ${format(limit)} used${limit === 0 ? ' (not included in the plan)' : ''}</span></div>
<meter id="${id}" min="0" max="${max}" low="${max * 0.75}" high="${max * 0.9}" optimum="0" value="${Math.min(used, max)}">${format(used)} of ${format(limit)}</meter>
${resets && html`<div class="help">Resets ${resets}</div>`}
</div>`;
}

function allowance(id: string, label: string, a: Allowance, format?: (n: number) => string): SafeHtml {
  return bar(id, label, a.used, a.limit, when(a.resets_at), format);
}

export function usageBody(usage: Usage, planName: string, apiAccess: boolean): SafeHtml {
  const minuteReset = new Date(usage.api.minute.reset * 1000).toISOString();
  return html`<h1>Usage</h1>
<p>Plan: <strong>${planName}</strong>. Daily allowances reset at 00:00 UTC, monthly ones at 00:00 UTC on the first of the month.</p>
<div class="grid">
<section aria-labelledby="u-monitoring"><h2 id="u-monitoring">Monitoring</h2>
${bar('monitors', 'Monitors', usage.monitors.used, usage.monitors.limit, null)}
${allowance('checks-html', 'HTML checks this month', usage.checks.html)}
${allowance('checks-browser', 'Browser checks this month', usage.checks.browser)}
${allowance('manual-checks', 'Manual checks today ("Check now" and API)', usage.api.manual_checks)}
</section>
<section aria-labelledby="u-previews"><h2 id="u-previews">Previews</h2>
${allowance('previews-day', 'Previews today', usage.previews.day)}
${allowance('previews-month', 'Previews this month', usage.previews.month)}
</section>
<section aria-labelledby="u-notifications"><h2 id="u-notifications">Notifications</h2>
${allowance('email', 'Emails this month', usage.notifications.email)}
${allowance('webhook', 'Webhook deliveries this month', usage.notifications.webhook)}
</section>
<section aria-labelledby="u-api"><h2 id="u-api">API</h2>
${!apiAccess && html`<p class="muted">API access needs the Pro plan.</p>`}
${bar('api-minute', 'Requests this minute', usage.api.minute.limit - usage.api.minute.remaining, usage.api.minute.limit, html`<time datetime="${minuteReset}">${utcText(minuteReset)}</time> (the window starts with the first request)`)}
${allowance('api-day', 'Requests today', usage.api.day)}
${allowance('read-bytes', 'Response data read today', usage.api.read_bytes, bytes)}
${bar('tokens', 'Active tokens', usage.tokens.active, usage.tokens.limit, null)}
</section>
</div>`;
}
