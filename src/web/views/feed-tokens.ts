import type { FeedTokenView } from '../../services/feed-tokens.ts';
import { html, type SafeHtml } from '../html.ts';
import { when } from './format.ts';
import { csrfField, type PageContext } from './layout.ts';

// The "Atom feeds" page: the account's feed tokens, the form to make one, and its URL shown once.

export interface FeedTokenForm {
  name: string;
  label: string;
  monitorId: string;
}

export const EMPTY_FEED_TOKEN_FORM: FeedTokenForm = { name: '', label: '', monitorId: '' };

function shows(t: FeedTokenView, monitors: { id: string; title: string }[]): string {
  if (t.label !== null) return `label ${t.label}`;
  if (t.monitor_id !== null) return `monitor ${monitors.find((m) => m.id === t.monitor_id)?.title ?? t.monitor_id}`;
  return 'all monitors';
}

function feedTable(ctx: PageContext, tokens: FeedTokenView[], monitors: { id: string; title: string }[]): SafeHtml {
  if (tokens.length === 0) return html`<p>No feed tokens yet.</p>`;
  return html`<div class="table-wrap"><table class="cards">
<caption class="visually-hidden">Feed tokens</caption>
<thead><tr><th scope="col">Name</th><th scope="col">Shows</th><th scope="col">Created</th><th scope="col">State</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
<tbody>${tokens.map(
    (t) => html`<tr>
<td>${t.name} <span class="muted">(${t.hint}…)</span></td>
<td data-label="Shows">${shows(t, monitors)}</td>
<td data-label="Created">${when(t.created_at)}</td>
<td data-label="State"><span class="state state-${t.state}">${t.state}</span></td>
<td>${
      t.state === 'valid'
        ? html`<form method="post" action="/feed-tokens/${t.id}/revoke">${csrfField(ctx)}<button type="submit" class="link danger" aria-label="Revoke ${t.name}">Revoke</button></form>`
        : ''
    }</td>
</tr>`,
  )}</tbody></table></div>`;
}

function createForm(ctx: PageContext, form: FeedTokenForm, monitors: { id: string; title: string }[]): SafeHtml {
  return html`<form method="post" action="/feed-tokens" class="stack card">
<h2>Create a feed</h2>
${csrfField(ctx)}
<label for="feed-name">Name</label>
<input id="feed-name" name="name" maxlength="100" required value="${form.name}">
<label for="feed-label">Only monitors with the label (optional)</label>
<input id="feed-label" name="label" maxlength="50" value="${form.label}">
<label for="feed-monitor">Or only one monitor (optional)</label>
<select id="feed-monitor" name="monitor_id"><option value="">—</option>${monitors.map(
    (m) => html`<option value="${m.id}"${form.monitorId === m.id ? html` selected` : ''}>${m.title}</option>`,
  )}</select>
<button type="submit">Create feed</button>
</form>`;
}

export function feedTokensBody(
  ctx: PageContext,
  input: {
    tokens: FeedTokenView[];
    limit: number;
    monitors: { id: string; title: string }[];
    form: FeedTokenForm;
    created?: { name: string; feedUrl: string };
  },
): SafeHtml {
  const active = input.tokens.filter((t) => t.state === 'valid').length;
  return html`<h1>Atom feeds</h1>
<p>A feed reader follows your changes through a private address with a read-only feed token in it. Anyone with the address can read the feed: revoke it when it leaks.</p>
${
  input.created &&
  html`<div class="card success" role="status" id="new-feed">
<h2>Feed "${input.created.name}" created</h2>
<p><strong>Copy its address now: it is shown only this once</strong> (only a hash of its token is stored).</p>
<div class="copy-row"><label for="feed-url" class="visually-hidden">Feed address</label><input id="feed-url" readonly value="${input.created.feedUrl}" spellcheck="false"><button type="button" data-copy="feed-url">Copy</button></div>
<p class="help" data-copy-status="feed-url" aria-live="polite"></p>
</div>`
}
<h2>Feeds</h2>
<p>${active} of ${input.limit} active feed tokens in use.</p>
${feedTable(ctx, input.tokens, input.monitors)}
${active < input.limit && createForm(ctx, input.form, input.monitors)}`;
}
