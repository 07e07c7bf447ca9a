import { SCOPES } from '../../domain/scopes.ts';
import type { TokenView } from '../../services/tokens.ts';
import type { Plan } from '../../domain/plans.ts';
import { html, type SafeHtml } from '../html.ts';
import { when } from './format.ts';
import { csrfField, type PageContext } from './layout.ts';

// The "API access" section: the tokens of the account, and the form to create one.

export const EXPIRY_DAYS = [30, 90, 365] as const;

const SCOPE_HELP: Record<string, string> = {
  'monitors:read': 'list and read monitors',
  'monitors:write': 'create, change and delete monitors; load and evaluate previews',
  'changes:read': 'list changes and read captured text',
  'usage:read': 'read allowances and usage',
  'checks:write': 'request manual checks and read their receipts',
  'feeds:read': 'list Atom feed tokens',
  'feeds:write': 'create and revoke Atom feed tokens',
  'channels:read': 'list and read notification channels',
  'channels:write': 'create and delete notification channels',
  'secrets:write': 'store, list and delete the secrets browser steps type (values are never shown)',
};

export interface TokenForm {
  name: string;
  scopes: string[];
  days: number;
}

export const EMPTY_TOKEN_FORM: TokenForm = { name: '', scopes: [], days: 90 };

function tokenTable(tokens: TokenView[]): SafeHtml {
  if (tokens.length === 0) return html`<p>No tokens yet.</p>`;
  return html`<div class="table-wrap"><table class="cards">
<caption class="visually-hidden">API tokens</caption>
<thead><tr><th scope="col">Name</th><th scope="col">Scopes</th><th scope="col">Created</th><th scope="col">Expires</th><th scope="col">Last used</th><th scope="col">State</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
<tbody>${tokens.map(
    (t) => html`<tr>
<td>${t.name} <span class="muted">(${t.hint}…)</span></td>
<td data-label="Scopes">${t.scopes.map((s) => html`<span class="tag">${s}</span> `)}</td>
<td data-label="Created">${when(t.created_at)}</td>
<td data-label="Expires">${when(t.expires_at)}</td>
<td data-label="Last used">${when(t.last_used_at)}</td>
<td data-label="State"><span class="state state-${t.state}">${t.state}</span></td>
<td>${t.state === 'valid' || t.state === 'disabled' ? html`<a href="/api-access/tokens/${t.id}/revoke" aria-label="Revoke ${t.name}">Revoke</a>` : ''}</td>
</tr>`,
  )}</tbody></table></div>`;
}

function createForm(ctx: PageContext, form: TokenForm): SafeHtml {
  return html`<form method="post" action="/api-access/tokens" class="stack card">
<h2>Create a token</h2>
${csrfField(ctx)}
<label for="token-name">Name</label>
<input id="token-name" name="name" maxlength="100" required value="${form.name}" aria-describedby="token-name-help">
<p id="token-name-help" class="help">Where the token will be used, e.g. "price sync on build server".</p>
<fieldset><legend>Scopes</legend>
${SCOPES.map(
  (
    s,
  ) => html`<div class="check"><input type="checkbox" id="scope-${s.replace(':', '-')}" name="scopes" value="${s}"${form.scopes.includes(s) ? html` checked` : ''}>
<label for="scope-${s.replace(':', '-')}"><code>${s}</code> — ${SCOPE_HELP[s]}</label></div>`,
)}
</fieldset>
<fieldset><legend>Expires after</legend>
${EXPIRY_DAYS.map(
  (d) =>
    html`<div class="check"><input type="radio" id="days-${d}" name="days" value="${d}"${form.days === d ? html` checked` : ''}><label for="days-${d}">${d} days</label></div>`,
)}
</fieldset>
<button type="submit">Create token</button>
</form>`;
}

export function tokensBody(
  ctx: PageContext,
  input: {
    plan: Plan;
    planName: string;
    tokens: TokenView[];
    form: TokenForm;
    created?: { name: string; token: string; expires_at: string };
  },
): SafeHtml {
  const active = input.tokens.filter((t) => t.state === 'valid' || t.state === 'disabled').length;
  const pro = input.plan.api_access;
  return html`<h1>API access</h1>
<p>Tokens let your own server tools use the <a href="/api/v1/openapi.json">pagewatch API</a> with <code>Authorization: Bearer &lt;token&gt;</code>. Use them only from your server; this dashboard's sign-in never works for the API.</p>
<p>Feed readers cannot send a token: give them an <a href="/feed-tokens">Atom feed</a> address instead.</p>
<p>Alerts in chat and push apps: see your <a href="/channels">channels</a> and their deliveries.</p>
${
  !pro &&
  html`<div class="card warn" role="note"><h2>API access needs the Pro plan</h2>
<p>This account is on the <strong>${input.planName}</strong> plan, which does not include API access. Existing tokens are kept but disabled; they work again, unless expired or revoked, once the account is on Pro. Ask the operator of this server to change the plan.</p></div>`
}
${
  input.created &&
  html`<div class="card success" role="status" id="new-token">
<h2>Token "${input.created.name}" created</h2>
<p><strong>Copy it now: it is shown only this once</strong> and cannot be retrieved later (only its hash is stored). It expires ${when(input.created.expires_at)}.</p>
<div class="copy-row"><label for="token-value" class="visually-hidden">New token</label><input id="token-value" readonly value="${input.created.token}" spellcheck="false"><button type="button" data-copy="token-value">Copy</button></div>
<p class="help" data-copy-status="token-value" aria-live="polite"></p>
</div>`
}
<h2>Tokens</h2>
<p>${active} of ${input.plan.tokens} active tokens in use.</p>
${tokenTable(input.tokens)}
${
  pro &&
  (active >= input.plan.tokens
    ? html`<div class="card" role="note"><h2>Token limit reached</h2><p>An account can have at most ${input.plan.tokens} active tokens at a time. Revoke a token you no longer use to create another; expired and revoked tokens do not count.</p></div>`
    : createForm(ctx, input.form))
}`;
}

export function revokeBody(ctx: PageContext, token: TokenView): SafeHtml {
  return html`<h1>Revoke token "${token.name}"?</h1>
<p>Requests that use this token (${token.hint}…) are refused from the moment it is revoked. This cannot be undone; create a new token if you need access again.</p>
<form method="post" action="/api-access/tokens/${token.id}/revoke" class="actions">
${csrfField(ctx)}
<button type="submit" class="danger">Revoke token</button>
<a href="/api-access">Cancel</a>
</form>`;
}
