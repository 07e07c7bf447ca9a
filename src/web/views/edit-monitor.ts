import type { MonitorView } from '../../services/monitors.ts';
import type { ChannelView } from '../../services/channels.ts';
import { html, type SafeHtml } from '../html.ts';
import { csrfField, type PageContext } from './layout.ts';
import { monitorTitle } from './monitors.ts';
import { proxyField } from './proxy-field.ts';

// Editing a monitor: its settings (name, labels, proxy, notifications), the way to
// new targets or a new interval (a fresh preview), and deleting it.

export interface SettingsInput {
  name: string;
  labels: string;
  email: boolean;
  /** each, daily or weekly; empty: the account's mode */
  emailMode: string;
  webhook: boolean;
  failingAfter: string;
  /** ids of the chosen channels */
  channels: string[];
  /** the outbound proxy's name, "" = directly */
  proxy: string;
}

const EMAIL_MODE_CHOICES: [string, string][] = [
  ['', 'As the account’s settings say'],
  ['each', 'One email per check'],
  ['daily', 'In the daily digest'],
  ['weekly', 'In the weekly digest'],
];

export function settingsInput(m: MonitorView): SettingsInput {
  return {
    name: m.name ?? '',
    labels: m.labels.join(', '),
    email: m.notifications.email_enabled,
    emailMode: m.notifications.email_mode ?? '',
    webhook: m.notifications.webhook_enabled,
    failingAfter: String(m.notifications.failing_after),
    channels: m.notifications.channels,
    proxy: m.proxy ?? '',
  };
}

function crumbs(m: MonitorView): SafeHtml {
  return html`<p class="crumbs"><a href="/">Monitors</a> / <a href="/monitors/${m.id}">${monitorTitle(m)}</a> /</p>`;
}

function channelChoices(channels: ChannelView[], chosen: string[]): SafeHtml {
  if (channels.length === 0) {
    return html`<p class="help">No chat or push channels yet: <a href="/channels">add one</a> to get alerts in Slack, Teams, Telegram and more.</p>`;
  }
  return html`<fieldset><legend>Also send alerts to these channels</legend>
${channels.map(
  (c) =>
    html`<div class="check"><input type="checkbox" id="channel-${c.id}" name="channels" value="${c.id}"${chosen.includes(c.id) ? html` checked` : ''}><label for="channel-${c.id}">${c.name} <span class="muted">(${c.type}${c.state === 'failing' ? ', failing' : ''})</span></label></div>`,
)}
<span class="help">changes and the failing and recovered alerts; <a href="/channels">manage channels</a></span>
</fieldset>`;
}

export function editMonitorBody(
  ctx: PageContext,
  m: MonitorView,
  input: SettingsInput,
  options: { spacingSeconds: number; channels: ChannelView[]; proxies: string[] },
): SafeHtml {
  const checkbox = (name: 'email' | 'webhook', label: string) =>
    html`<div class="check"><input type="checkbox" id="${name}" name="${name}"${input[name] ? html` checked` : ''}><label for="${name}">${label}</label></div>`;
  return html`${crumbs(m)}
<h1>Edit monitor</h1>
<form method="post" action="/monitors/${m.id}/edit" class="stack card">
${csrfField(ctx)}
<h2>Settings</h2>
<label for="name">Name</label>
<input id="name" name="name" maxlength="200" value="${input.name}" aria-describedby="name-help">
<span class="help" id="name-help">shown instead of the address; leave empty to show the address</span>
<label for="labels">Labels</label>
<input id="labels" name="labels" maxlength="1100" value="${input.labels}" aria-describedby="labels-help">
<span class="help" id="labels-help">comma-separated, e.g. "shop, competitors"; the monitor list filters by them</span>
${proxyField(options.proxies, input.proxy)}
<fieldset><legend>Notifications</legend>
${checkbox('email', 'Email me when an alert rule matches')}
<label for="email_mode">Emails come</label>
<select id="email_mode" name="email_mode">${EMAIL_MODE_CHOICES.map(
    ([value, label]) => html`<option value="${value}"${input.emailMode === value ? html` selected` : ''}>${label}</option>`,
  )}</select>
${checkbox('webhook', 'Post to the account\u2019s webhook (set up by the operator)')}
<label for="failing_after">Alert when the checks fail this many times in a row</label>
<input id="failing_after" name="failing_after" type="number" min="1" max="100" value="${input.failingAfter}" aria-describedby="failing-help">
<span class="help" id="failing-help">a check fails when the page does not load or a target cannot be read; one alert, then one when it works again</span>
${channelChoices(options.channels, input.channels)}
</fieldset>
<button type="submit">Save settings</button>
</form>
<section class="card" aria-labelledby="config-title">
<h2 id="config-title">Targets and schedule</h2>
<p>Targets, the interval and the load mode are checked against a fresh preview of <span class="url">${m.url}</span>, as when the
monitor was created. Loading it uses one preview credit${options.spacingSeconds > 0 ? ` (previews are at least ${options.spacingSeconds} seconds apart)` : ''};
then you choose the targets and the interval, evaluate them, and save. A target whose element, kind or settings change
records a new baseline at its next check, with no alert; unchanged targets keep theirs.</p>
<form method="post" action="/monitors/${m.id}/reconfigure" class="actions">
${csrfField(ctx)}
<fieldset><legend>Load mode</legend>
<div class="check"><input type="radio" id="mode-html" name="load_mode" value="html"${m.load_mode === 'html' ? html` checked` : ''}><label for="mode-html">HTML</label></div>
<div class="check"><input type="radio" id="mode-browser" name="load_mode" value="browser"${m.load_mode === 'browser' ? html` checked` : ''}><label for="mode-browser">Browser</label></div>
</fieldset>
<button type="submit" class="secondary">Load a fresh preview</button>
</form>
</section>
<section class="card warn" aria-labelledby="delete-title">
<h2 id="delete-title">Delete</h2>
<p>Deleting removes the monitor and all its history. <a class="button danger" href="/monitors/${m.id}/delete">Delete this monitor…</a></p>
</section>`;
}

export function deleteMonitorBody(ctx: PageContext, m: MonitorView): SafeHtml {
  return html`${crumbs(m)}
<h1>Delete ${monitorTitle(m)}?</h1>
<div class="card warn">
<p>This deletes the monitor of <span class="url">${m.url}</span> with its captures, changes and baselines. It cannot be undone.
Queued manual checks are cancelled.</p>
<form method="post" action="/monitors/${m.id}/delete" class="actions">
${csrfField(ctx)}
<button type="submit" class="danger">Delete the monitor</button>
<a href="/monitors/${m.id}">Keep it</a>
</form>
</div>`;
}
