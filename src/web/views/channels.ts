import type { ChannelDeliveryView, ChannelView } from '../../services/channels.ts';
import { html, type SafeHtml } from '../html.ts';
import { when } from './format.ts';

// The "Channels" page: the account's chat and push channels (secrets masked),
// whether each is failing, and the last messages of each with what went wrong.

export interface ChannelWithLog {
  channel: ChannelView;
  deliveries: ChannelDeliveryView[];
}

function deliveryRows(deliveries: ChannelDeliveryView[]): SafeHtml {
  if (deliveries.length === 0) return html`<p class="muted">No messages yet.</p>`;
  return html`<div class="table-wrap"><table class="cards">
<thead><tr><th scope="col">Queued</th><th scope="col">Event</th><th scope="col">Status</th><th scope="col">Attempts</th><th scope="col">Last error</th></tr></thead>
<tbody>${deliveries.map(
    (d) => html`<tr>
<td>${when(d.created_at)}</td>
<td data-label="Event">${d.event}</td>
<td data-label="Status"><span class="state state-${d.status}">${d.status}</span>${d.skipped_reason ? html` <span class="muted">(${d.skipped_reason})</span>` : ''}</td>
<td data-label="Attempts">${String(d.attempts)}</td>
<td data-label="Last error">${d.last_error ?? ''}</td>
</tr>`,
  )}</tbody></table></div>`;
}

export function channelsBody(channels: ChannelWithLog[]): SafeHtml {
  return html`<h1>Channels</h1>
<p>Slack, Discord, ntfy, Teams, Telegram, Gotify, Pushover, Google Chat and Matrix channels are made with the API (<code>POST /api/v1/channels</code>) and chosen per monitor (<code>notifications.channels</code>).</p>
${
  channels.length === 0
    ? html`<p>No channels yet.</p>`
    : channels.map(
        ({ channel, deliveries }) => html`<section class="card">
<h2>${channel.name} <span class="state state-${channel.state}">${channel.state}</span></h2>
<p class="muted">${channel.type}: <code>${channel.url}</code></p>
${channel.state === 'failing' ? html`<p role="alert">The service refused this channel; its alerts are not sent until a test message (<code>POST /api/v1/channels/${channel.id}/test</code>) goes through.</p>` : ''}
${deliveryRows(deliveries)}
</section>`,
      )
}`;
}
