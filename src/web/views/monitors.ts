import type { MonitorFilters, MonitorView } from '../../services/monitors.ts';
import type { Observation } from '../../services/observations.ts';
import type { Target } from '../../domain/targets.ts';
import { html, type SafeHtml } from '../html.ts';
import { pageLink, plural, when } from './format.ts';
import { csrfField, type PageContext } from './layout.ts';
import { describeSchedule } from './schedule-fields.ts';

// The monitor list (the dashboard's home) and one monitor's page.

export function monitorTitle(m: { name: string | null; url: string }): string {
  return m.name ?? m.url;
}

/** A failing monitor says so wherever it is shown (notifications.failing_after failed checks in a row). */
function failingBadge(m: MonitorView): SafeHtml | null {
  return m.failing_since ? html` <span class="state state-failing">failing since ${when(m.failing_since)}</span>` : null;
}

function statusBadge(status: string): SafeHtml {
  return html`<span class="state state-${status}">${status}</span>`;
}

/** Why an active monitor is not checked (the account's plan), if it is not. */
function planStop(m: MonitorView): MonitorView['last_issues'][number] | undefined {
  return m.last_issues.find((i) => i.code === 'not_in_plan');
}

function notCheckedBadge(m: MonitorView): SafeHtml | null {
  return planStop(m) ? html` <span class="state state-failing">not checked</span>` : null;
}

function issueList(issues: MonitorView['last_issues']): SafeHtml {
  if (issues.length === 0) return html`<span class="muted">none</span>`;
  return html`<ul class="issues">${issues.map((i) => html`<li><code>${i.code}</code>${i.target_id ? html` (${i.target_id})` : ''}: ${i.message}</li>`)}</ul>`;
}

/** An anti-bot wall in the latest check, said in words, with what the owner can try (DESIGN §4 Blocked pages). */
function blockedNotice(m: MonitorView): SafeHtml | null {
  const blocked = m.last_issues.find((i) => i.code === 'blocked');
  if (!blocked) return null;
  return html`<div class="notice blocked-notice" role="status"><p><strong>The site blocked the check.</strong> It answered with an anti-bot page instead of the page (${blocked.message.replace(/^the site blocked the check: /, '')}), so nothing was read from it and no change was recorded.</p>
<p>What you can try: a longer interval, as fewer checks look less like a bot; browser mode, which some walls let through; a proxy, where your operator offers one; or pausing the monitor if the site never lets checks through. Checks go on meanwhile, and the first page that loads clears this.</p></div>`;
}

export function statusForm(ctx: PageContext, m: MonitorView, back: string): SafeHtml {
  const next = m.status === 'active' ? 'paused' : 'active';
  return html`<form method="post" action="/monitors/${m.id}/status" class="inline">
${csrfField(ctx)}<input type="hidden" name="status" value="${next}"><input type="hidden" name="back" value="${back}">
<button type="submit" class="secondary" aria-label="${next === 'paused' ? 'Pause' : 'Resume'} ${monitorTitle(m)}">${next === 'paused' ? 'Pause' : 'Resume'}</button>
</form>`;
}

function labelTags(labels: string[]): SafeHtml {
  return html`${labels.map((l) => html` <a class="tag" href="/?label=${encodeURIComponent(l)}">${l}</a>`)}`;
}

function filterForm(filters: MonitorFilters): SafeHtml {
  const option = (value: string, label: string) =>
    html`<option value="${value}"${(filters.status ?? '') === value ? html` selected` : ''}>${label}</option>`;
  return html`<form method="get" action="/" class="filters" role="search">
<div><label for="q">Search</label><input id="q" name="q" type="search" value="${filters.search ?? ''}" placeholder="name or address"></div>
<div><label for="label">Label</label><input id="label" name="label" value="${filters.label ?? ''}" maxlength="50"></div>
<div><label for="status">Status</label><select id="status" name="status">${option('', 'any')}${option('active', 'active')}${option('paused', 'paused')}</select></div>
<div class="check"><input type="checkbox" id="failing" name="failing" value="true"${filters.failing ? html` checked` : ''}><label for="failing">Failing only</label></div>
<button type="submit" class="secondary">Filter</button>
</form>`;
}

function filterQuery(filters: MonitorFilters): string {
  const params = new URLSearchParams();
  if (filters.search) params.set('q', filters.search);
  if (filters.label) params.set('label', filters.label);
  if (filters.status) params.set('status', filters.status);
  if (filters.failing) params.set('failing', 'true');
  return params.toString();
}

export function monitorListBody(
  ctx: PageContext,
  monitors: MonitorView[],
  list: { more: string | null; filters: MonitorFilters; slots: { used: number; limit: number } },
): SafeHtml {
  const { more, filters, slots } = list;
  const filtered = filters.search !== null || filters.label !== null || filters.status !== null || Boolean(filters.failing);
  const query = filterQuery(filters);
  return html`<div class="title-row"><h1>Monitors</h1><a class="button" href="/monitors/new">New monitor</a></div>
<p class="muted">${slots.used} of ${plural(slots.limit, 'monitor')} in use. ${slots.used > 0 && html`<a href="/monitors/export" download>Export as JSON</a> · `}<a href="/monitors/import">Import monitors</a></p>
${(slots.used > 0 || filtered) && filterForm(filters)}
${
  monitors.length === 0
    ? filtered
      ? html`<p>No monitor matches these filters. <a href="/">Show all monitors</a>.</p>`
      : html`<p>No monitors yet. <a href="/monitors/new">Create your first monitor</a> from a preview of the page.</p>`
    : html`<div class="table-wrap"><table class="cards monitors">
<caption class="visually-hidden">Monitors</caption>
<thead><tr><th scope="col">Monitor</th><th scope="col">Status</th><th scope="col">Interval</th><th scope="col">Last check</th><th scope="col">Last change</th><th scope="col">Current issues</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
<tbody>${monitors.map(
        (m) => html`<tr>
<td class="url-cell"><a href="/monitors/${m.id}">${monitorTitle(m)}</a>${m.name ? html`<div class="muted url">${m.url}</div>` : ''}${labelTags(m.labels)}</td>
<td data-label="Status">${statusBadge(m.status)}${notCheckedBadge(m)}${failingBadge(m)}</td>
<td data-label="Interval">${plural(m.interval_minutes, 'minute')}</td>
<td data-label="Last check">${when(m.last_checked_at)}</td>
<td data-label="Last change">${when(m.last_change_at)}</td>
<td data-label="Current issues">${issueList(m.last_issues)}</td>
<td>${statusForm(ctx, m, '/')}</td>
</tr>`,
      )}</tbody></table></div>`
}
${more && html`<p><a href="/?${query ? `${query}&` : ''}cursor=${more}">Older monitors</a></p>`}`;
}

export function ruleText(t: Target): string {
  if (!t.rule) return 'any change';
  const extra =
    t.rule === 'below' ? ` ${t.threshold} ${t.currency}` : t.phrase ? ` "${t.phrase}"` : t.match ? ` containing "${t.match}"` : '';
  return `${t.rule.replace('_', ' ')}${extra}`;
}

function selectionText(t: Target): SafeHtml {
  const selection = t.selection;
  if (selection.scope === 'page') return html`whole page`;
  if (selection.scope === 'json') return html`JSONPath <code>${selection.path}</code>`;
  return selection.scope === 'xpath' ? html`XPath <code>${selection.expression}</code>` : html`<code>${selection.selector}</code>`;
}

function currentValue(o: Observation | undefined): SafeHtml {
  if (!o || o.since === null) {
    return o?.issues.length
      ? html`<span class="stale">not captured: ${o.issues.map((i) => i.code).join(', ')}</span>`
      : html`<span class="muted">not captured yet</span>`;
  }
  const value = html`<span class="value">${o.display ?? ''}</span><div class="muted">since ${when(o.since)}</div>`;
  if (o.issues.length === 0) return value;
  return html`<div class="stale-value">${value}<div class="stale">stale — the latest check could not read it: ${o.issues.map((i) => i.code).join(', ')}</div></div>`;
}

export function monitorBody(
  ctx: PageContext,
  m: MonitorView,
  observations: Observation[],
  checkPanel: SafeHtml | null,
  history: SafeHtml,
): SafeHtml {
  return html`<p class="crumbs"><a href="/">Monitors</a> /</p>
<div class="title-row"><h1>${monitorTitle(m)}</h1>${statusBadge(m.status)}${notCheckedBadge(m)}${failingBadge(m)}</div>
<p class="url">${pageLink(m.url)}</p>
<div class="actions">${statusForm(ctx, m, `/monitors/${m.id}`)}<a class="button secondary" href="/monitors/${m.id}/changes">Changes</a>
<a class="button secondary" href="/monitors/${m.id}/edit">Edit</a><a class="button secondary" href="/monitors/${m.id}/delete">Delete</a></div>
${checkPanel}
<dl class="facts">
<dt>Load mode</dt><dd>${m.load_mode}</dd>
${m.proxy !== null && html`<dt>Proxy</dt><dd>through the operator's proxy ${m.proxy}</dd>`}
<dt>Interval</dt><dd>every ${plural(m.interval_minutes, 'minute')}</dd>
<dt>Schedule</dt><dd>${describeSchedule(m.schedule)}</dd>
<dt>Last check</dt><dd>${when(m.last_checked_at)}</dd>
<dt>Next check</dt><dd>${m.status !== 'active' ? html`<span class="muted">paused</span>` : planStop(m) ? html`<span class="stale">${planStop(m)!.message}</span>` : when(m.next_check_at)}</dd>
<dt>Last change</dt><dd>${when(m.last_change_at)}</dd>
<dt>Labels</dt><dd>${m.labels.length ? labelTags(m.labels) : html`<span class="muted">none</span>`}</dd>
<dt>Notifications</dt><dd>email ${m.notifications.email_enabled ? 'on' : 'off'}, webhook ${m.notifications.webhook_enabled ? 'on' : 'off'}; failing alert after ${plural(m.notifications.failing_after, 'failed check')} in a row</dd>
</dl>
<h2>Targets</h2>
<div class="table-wrap"><table class="cards">
<caption class="visually-hidden">Targets and their current values</caption>
<thead><tr><th scope="col">Target</th><th scope="col">Kind</th><th scope="col">Selection</th><th scope="col">Rule</th><th scope="col">Current value</th></tr></thead>
<tbody>${m.targets.map(
    (t) => html`<tr>
<td class="target-name">${t.label ?? t.id}</td><td data-label="Kind">${t.kind}</td><td data-label="Selection">${selectionText(t)}</td><td data-label="Rule">${ruleText(t)}</td>
<td data-label="Current value" class="current">${currentValue(observations.find((o) => o.target_id === t.id))}</td>
</tr>`,
  )}</tbody></table></div>
<h2>Current issues</h2>
${blockedNotice(m)}
${issueList(m.last_issues)}
<h2>Latest checks</h2>
${history}`;
}
