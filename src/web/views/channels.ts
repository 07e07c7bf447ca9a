import type { ChannelDeliveryView, ChannelTestView, ChannelView } from '../../services/channels.ts';
import { html, type SafeHtml } from '../html.ts';
import { when } from './format.ts';
import { csrfField, type PageContext } from './layout.ts';

// The "Channels" page: the account's chat and push channels (secrets masked),
// whether each is failing, the last messages of each with what went wrong,
// a test message's answer, and the form that makes a channel from a pasted URL.

export interface ChannelWithLog {
  channel: ChannelView;
  deliveries: ChannelDeliveryView[];
}

export interface ChannelForm {
  name: string;
  url: string;
}

export const EMPTY_CHANNEL_FORM: ChannelForm = { name: '', url: '' };

/** A test message's outcome, shown on the channel it was sent to. */
export interface TestOutcome {
  channelId: string;
  result: ChannelTestView;
}

// A service's answer can be long (an HTML error page); the page shows its start.
const ANSWER_SHOWN = 2000;

const EXAMPLES: [string, string][] = [
  ['Slack', 'slack://TokenA/TokenB/TokenC'],
  ['Discord', 'discord://WebhookID/WebhookToken'],
  ['Microsoft Teams', 'workflows://host/WorkflowID/Signature'],
  ['Telegram', 'tgram://BotToken/ChatID'],
  ['ntfy', 'ntfy://topic or ntfys://user:password@host/topic'],
  ['Gotify', 'gotifys://host/AppToken'],
  ['Matrix', 'matrixs://AccessToken@host/#room:server'],
  ['Pushover', 'pover://UserKey@AppToken'],
  ['Google Chat', 'gchat://Space/Key/Token'],
];

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

function testResult(result: ChannelTestView): SafeHtml {
  const answer = result.answer === null ? null : result.answer.slice(0, ANSWER_SHOWN);
  const status = result.response_status === null ? 'no answer' : `HTTP ${result.response_status}`;
  return html`<div class="card ${result.delivered ? 'success' : 'warn'}" role="status" id="test-result">
<h3>${result.delivered ? 'The test message went through' : 'The test message did not go through'} (${status})</h3>
${result.error && html`<p>${result.error}</p>`}
${answer !== null && answer !== '' ? html`<p>The service answered:</p><pre class="answer">${answer}</pre>` : ''}
</div>`;
}

function channelCard(ctx: PageContext, { channel, deliveries }: ChannelWithLog, tested: TestOutcome | undefined): SafeHtml {
  return html`<section class="card" aria-labelledby="channel-${channel.id}">
<h2 id="channel-${channel.id}">${channel.name} <span class="state state-${channel.state}">${channel.state}</span></h2>
<p class="muted">${channel.type}: <code class="url">${channel.url}</code></p>
${
  channel.state === 'failing' &&
  html`<p role="alert">This channel kept failing; its alerts are not sent until a test message goes through.</p>`
}
${tested?.channelId === channel.id && testResult(tested.result)}
<div class="actions">
<form method="post" action="/channels/${channel.id}/test">${csrfField(ctx)}<button type="submit" class="secondary" aria-label="Send a test message to ${channel.name}">Send a test message</button></form>
<a class="button danger" href="/channels/${channel.id}/delete" aria-label="Delete ${channel.name}">Delete…</a>
</div>
<h3>Last messages</h3>
${deliveryRows(deliveries)}
</section>`;
}

function createForm(ctx: PageContext, form: ChannelForm): SafeHtml {
  return html`<form method="post" action="/channels" class="stack card">
<h2>Add a channel</h2>
${csrfField(ctx)}
<label for="channel-name">Name</label>
<input id="channel-name" name="name" maxlength="100" required value="${form.name}">
<label for="channel-url">Channel URL</label>
<input id="channel-url" name="url" maxlength="2000" required value="${form.url}" spellcheck="false" autocomplete="off" aria-describedby="channel-url-help">
<span class="help" id="channel-url-help">an Apprise URL, as changedetection.io takes it; its tokens are kept and never shown again in full</span>
<details><summary>URL forms</summary><ul class="url-forms">${EXAMPLES.map(
    ([service, form]) => html`<li>${service}: <code>${form}</code></li>`,
  )}</ul></details>
<button type="submit">Add channel</button>
</form>`;
}

export function channelsBody(
  ctx: PageContext,
  input: { channels: ChannelWithLog[]; limit: number; form: ChannelForm; tested?: TestOutcome },
): SafeHtml {
  return html`<h1>Channels</h1>
<p>Alerts in Slack, Discord, Teams, Telegram, ntfy, Gotify, Matrix, Pushover or Google Chat. Each monitor chooses its channels on its edit page.</p>
<p>${input.channels.length} of ${input.limit} channels in use.</p>
${input.channels.length === 0 ? html`<p>No channels yet.</p>` : input.channels.map((c) => channelCard(ctx, c, input.tested))}
${
  input.limit === 0
    ? html`<div class="card warn" role="note"><h2>No channels on this plan</h2><p>This account’s plan includes no channels. Ask the operator of this server to change the plan.</p></div>`
    : input.channels.length < input.limit
      ? createForm(ctx, input.form)
      : html`<div class="card" role="note"><h2>Channel limit reached</h2><p>This plan allows ${input.limit} channels. Delete one to add another.</p></div>`
}`;
}

export function deleteChannelBody(ctx: PageContext, channel: ChannelView): SafeHtml {
  return html`<p class="crumbs"><a href="/channels">Channels</a> /</p>
<h1>Delete channel "${channel.name}"?</h1>
<div class="card warn">
<p>The ${channel.type} channel <code class="url">${channel.url}</code> leaves every monitor that chose it, and its queued messages are dropped. It cannot be undone.</p>
<form method="post" action="/channels/${channel.id}/delete" class="actions">
${csrfField(ctx)}
<button type="submit" class="danger">Delete the channel</button>
<a href="/channels">Keep it</a>
</form>
</div>`;
}
