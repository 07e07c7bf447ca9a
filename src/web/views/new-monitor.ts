import type { PreviewElement } from '../../domain/extract/index.ts';
import type { DocumentFormat } from '../../domain/page-source.ts';
import { RULES_BY_KIND, TARGET_KINDS, type Target, type TargetKind } from '../../domain/targets.ts';
import type { TargetResult } from '../../services/previews.ts';
import { html, type SafeHtml } from '../html.ts';
import { RULE_LABELS, targetName, type MonitorInput, type TargetInput } from '../target-form.ts';
import { plural, when } from './format.ts';
import { csrfField, type PageContext } from './layout.ts';
import { scheduleFields } from './schedule-fields.ts';
import { proxyField } from './proxy-field.ts';
import type { PreviewAllowances } from '../preview-allowances.ts';
import type { Step, StepOutcome } from '../../domain/steps.ts';
import { formatStepLines, STEP_LINE_HELP } from '../step-lines.ts';
import { stepResultsTable } from './step-results.ts';

// The new-monitor pages: the URL form, then the preview with the target form.

export function urlFormBody(
  ctx: PageContext,
  input: { url: string; loadMode: string; steps: string },
  allowances: PreviewAllowances,
  outcomes: readonly StepOutcome[] | null = null,
): SafeHtml {
  const spacing = allowances.spacingSeconds > 0 ? `; previews are at least ${plural(allowances.spacingSeconds, 'second')} apart` : '';
  return html`<h1>New monitor</h1>
<p>First load a preview of the page: pagewatch fetches it once and lists the elements you can watch.</p>
<form method="post" action="/monitors/new" class="stack card">
${csrfField(ctx)}
<label for="url">Page address</label>
<input id="url" name="url" type="url" inputmode="url" required maxlength="2048" placeholder="https://shop.example/product" value="${input.url}">
<fieldset><legend>Load mode</legend>
<div class="check"><input type="radio" id="mode-html" name="load_mode" value="html"${input.loadMode !== 'browser' ? html` checked` : ''}><label for="mode-html">HTML — plain page fetch (fast)</label></div>
<div class="check"><input type="radio" id="mode-browser" name="load_mode" value="browser"${input.loadMode === 'browser' ? html` checked` : ''}><label for="mode-browser">Browser — rendered by Chromium, for pages that need JavaScript</label></div>
</fieldset>
<label for="steps">Steps before reading the page (browser mode)</label>
<textarea id="steps" name="steps" rows="4" aria-describedby="steps-help">${input.steps}</textarea>
<span class="help" id="steps-help">One step per line, run in order; add a line to add a step, move a line to reorder. For example: ${STEP_LINE_HELP.join(' · ')}. Secrets come from <code>/api/v1/secrets</code>.</span>
${outcomes && html`<p>Steps tried on a fresh preview:</p>${stepResultsTable(outcomes)}`}
<p class="help">A preview uses one preview credit (today: ${allowances.day}; this month: ${allowances.month})${spacing}. Loading can take up to a minute.</p>
<button type="submit">Load preview</button>
</form>`;
}

/** How the preview's elements are named: CSS selectors on a page, JSONPaths in a JSON document. */
function elementPrefix(format: DocumentFormat): string {
  return format === 'json' ? 'json:' : 'sel:';
}

function elementOptions(elements: PreviewElement[], format: DocumentFormat, selected: string, optional: boolean): SafeHtml {
  const option = (value: string, label: string, hints: string[] = []) =>
    html`<option value="${value}"${hints.length ? html` data-hints="${hints.join(' ')}"` : ''}${value === selected ? html` selected` : ''}>${label}</option>`;
  const prefix = elementPrefix(format);
  // An existing target's selector the new preview does not list is still offered, so editing never drops it silently.
  const known = selected === '' || selected === 'page' || elements.some((e) => `${prefix}${e.selector}` === selected);
  const current = selected.slice(selected.indexOf(':') + 1);
  return html`${optional && option('', '— not used —')}${option('page', format === 'html' ? 'Whole page' : 'Whole document')}${!known && option(selected, `current selection — ${current}`)}${elements.map(
    (e) =>
      option(
        `${prefix}${e.selector}`,
        `<${e.tag}> ${e.text.slice(0, 60) || '(no text)'}${e.hints.length ? ` [${e.hints.join(', ')}]` : ''} — ${e.selector}`,
        e.hints,
      ),
  )}`;
}

type FieldName = keyof Omit<TargetInput, 'confirm'>;

/** The kinds each kind-specific field belongs to: the page's script shows only the chosen kind's fields. */
const FIELD_KINDS: Partial<Record<FieldName, TargetKind[]>> = {
  phrase: ['text'],
  currency: ['price'],
  decimal: ['price'],
  threshold: ['price'],
  match: ['links'],
  ignore: ['text', 'links'],
};

function kindsOf(name: FieldName): SafeHtml | '' {
  const kinds = FIELD_KINDS[name];
  return kinds ? html` data-kinds="${kinds.join(' ')}"` : '';
}

const SELECTOR_TYPES = [
  { value: 'css', label: 'CSS selector', example: html`e.g. <code>#price</code> or <code>.offer .amount</code>` },
  { value: 'xpath', label: 'XPath', example: html`e.g. <code>//th[text()='Price']/following-sibling::td</code>` },
  { value: 'json', label: 'JSONPath (JSON documents)', example: html`e.g. <code>$.offers[0].price</code>` },
] as const;

function selectorTypeSelect(n: number, t: TargetInput, format: DocumentFormat): SafeHtml {
  const chosen = t.selectorType || (format === 'json' ? 'json' : 'css');
  return html`<select id="t${n}_selector_type" name="t${n}_selector_type" aria-label="Selector language">${SELECTOR_TYPES.map(
    (type) => html`<option value="${type.value}"${type.value === chosen ? html` selected` : ''}>${type.label}</option>`,
  )}</select>`;
}

function targetFieldset(n: number, t: TargetInput, elements: PreviewElement[], format: DocumentFormat): SafeHtml {
  const id = (name: string) => `t${n}_${name}`;
  const text = (name: FieldName, label: string, help: string, extra: SafeHtml | string = '') => html`<div${kindsOf(name)}>
<label for="${id(name)}">${label}</label><input id="${id(name)}" name="${id(name)}" value="${t[name]}" aria-describedby="${id(name)}-help"${extra}>
<span class="help" id="${id(name)}-help">${help}</span></div>`;
  return html`<fieldset>
<legend>${t.label || `Target ${n}`}${n > 1 ? ' (optional)' : ''}</legend>
${t.id && html`<input type="hidden" name="${id('id')}" value="${t.id}">`}
<label for="${id('element')}">Element</label>
<select id="${id('element')}" name="${id('element')}" data-kind-select="${id('kind')}">${elementOptions(elements, format, t.element, n > 1)}</select>
<label for="${id('selector')}">Or your own selector</label>
<div class="field-row">${selectorTypeSelect(n, t, format)}
<input id="${id('selector')}" name="${id('selector')}" value="${t.selector}" maxlength="500" spellcheck="false" aria-describedby="${id('selector')}-help"></div>
<span class="help" id="${id('selector')}-help">used instead of the element above; any element of the page, listed or not: ${SELECTOR_TYPES.map(
    (type, i) => html`${i > 0 ? '; ' : ''}${type.label} ${type.example}`,
  )}</span>
<div class="field-row">
${text('label', 'Label', 'shown in alerts, e.g. "Price"', html` maxlength="200"`)}
<div><label for="${id('kind')}">Kind</label><select id="${id('kind')}" name="${id('kind')}" data-rules="${id('rule')}" data-fields="${id('fields')}">${TARGET_KINDS.map(
    (k) => html`<option value="${k}"${k === t.kind ? html` selected` : ''}>${k}</option>`,
  )}</select></div>
<div><label for="${id('rule')}">Alert when</label><select id="${id('rule')}" name="${id('rule')}">
${TARGET_KINDS.map(
  (k) =>
    html`<optgroup label="${k}" data-kind="${k}">${RULES_BY_KIND[k].map(
      (r) => html`<option value="${r}"${r === t.rule && k === t.kind ? html` selected` : ''}>${RULE_LABELS[r]}</option>`,
    )}</optgroup>`,
)}
</select></div>
</div>
<div class="field-row" id="${id('fields')}">
${text('phrase', 'Phrase', 'text: for "appears" / "disappears"')}
${text('currency', 'Currency', 'price: ISO code such as EUR', html` maxlength="3" autocapitalize="characters"`)}
<div${kindsOf('decimal')}><label for="${id('decimal')}">Decimal separator</label><select id="${id('decimal')}" name="${id('decimal')}">
<option value=""${t.decimal !== '.' && t.decimal !== ',' ? html` selected` : ''}>automatic</option>
<option value="."${t.decimal === '.' ? html` selected` : ''}>. (29.99)</option>
<option value=","${t.decimal === ',' ? html` selected` : ''}>, (29,99)</option></select></div>
${text('threshold', 'Threshold', 'price, "below": e.g. 30.00', html` inputmode="decimal"`)}
${text('match', 'Link filter', 'links: a URL must contain this')}
</div>
<div class="field-row">
<div${kindsOf('ignore')}><label for="${id('ignore')}">Ignore</label><textarea id="${id('ignore')}" name="${id('ignore')}" rows="2" aria-describedby="${id('ignore')}-help">${t.ignore}</textarea>
<span class="help" id="${id('ignore')}-help">text and links: one per line, removed before comparing (a timestamp, "12 people viewing"); /…/ for a regular expression</span></div>
<div class="check"><input type="checkbox" id="${id('confirm')}" name="${id('confirm')}"${t.confirm ? html` checked` : ''}><label for="${id('confirm')}">Confirm changes: alert only if a re-check two minutes later still sees the new value</label></div>
</div>
</fieldset>`;
}

function resultRows(results: TargetResult[], targets: Target[]): SafeHtml {
  const nameOf = (id: string) => targetName(targets.find((t) => t.id === id) ?? { id });
  return html`<section aria-labelledby="results-title" class="card" id="results"><h2 id="results-title">Evaluated values</h2>
<div class="table-wrap"><table><thead><tr><th scope="col">Target</th><th scope="col">Value</th><th scope="col">Issues</th></tr></thead>
<tbody>${results.map(
    (r) => html`<tr><td>${nameOf(r.target_id)}</td>
<td>${r.ok ? html`<span class="value">${r.display ?? ''}</span>${r.links && html`<ul>${r.links.map((l) => html`<li class="url">${l}</li>`)}</ul>`}` : html`<span class="muted">no value</span>`}</td>
<td>${r.issues.length ? html`<ul class="issues">${r.issues.map((i) => html`<li><code>${i.code}</code>: ${i.message}</li>`)}</ul>` : html`<span class="muted">none</span>`}</td></tr>`,
  )}</tbody></table></div></section>`;
}

export interface PreviewPage {
  preview: {
    id: string;
    url: string;
    final_url: string;
    title: string | null;
    load_mode: string;
    format: DocumentFormat;
    expires_at: string;
    elements: PreviewElement[];
    /** the steps the page was loaded with */
    steps: Step[];
    /** what each of them did */
    step_outcomes: StepOutcome[];
  };
  input: MonitorInput;
  idempotencyKey: string;
  minInterval: number;
  /** the outbound proxies the plan may use; none: the form has no proxy field */
  proxies: string[];
  results: TargetResult[] | null;
  /** the targets as evaluated, which name the results */
  targets: Target[];
  /** set when the preview reconfigures an existing monitor instead of creating one */
  editing: { monitorId: string; title: string; expectedVersion: number } | null;
}

function monitorFieldset(page: PreviewPage): SafeHtml {
  const { input } = page;
  const interval = html`<div><label for="interval">Check every (minutes)</label><input id="interval" name="interval" type="number" min="${page.minInterval}" max="10080" required value="${input.interval}" aria-describedby="interval-help">
<span class="help" id="interval-help">at least ${page.minInterval} on your plan</span></div>`;
  if (page.editing) {
    return html`<fieldset><legend>Schedule</legend><div class="field-row">${interval}</div>
${scheduleFields(input.schedule)}
<input type="hidden" name="monitor_id" value="${page.editing.monitorId}"><input type="hidden" name="expected_version" value="${String(page.editing.expectedVersion)}">
</fieldset>`;
  }
  return html`<fieldset><legend>Monitor</legend>
<div class="field-row">
<div><label for="name">Name (optional)</label><input id="name" name="name" maxlength="200" value="${input.name}"></div>
${interval}
${proxyField(page.proxies, input.proxy)}
</div>
${scheduleFields(input.schedule)}
<div class="field-row">
<div><label for="labels">Labels (optional)</label>
<input id="labels" name="labels" maxlength="1100" value="${input.labels}" aria-describedby="labels-help">
<span class="help" id="labels-help">comma-separated, e.g. "shop, competitors"; the monitor list filters by them</span></div>
<div><label for="failing_after">Alert when the checks fail this many times in a row</label>
<input id="failing_after" name="failing_after" type="number" min="1" max="100" value="${input.failingAfter}" placeholder="3" aria-describedby="failing-help">
<span class="help" id="failing-help">a check fails when the page does not load or a target cannot be read; empty: 3</span></div>
</div>
<div class="check"><input type="checkbox" id="email" name="email"${input.email ? html` checked` : ''}><label for="email">Email me when an alert rule matches</label></div>
<div class="check"><input type="checkbox" id="webhook" name="webhook"${input.webhook ? html` checked` : ''}><label for="webhook">Post to the account\u2019s webhook (set up by the operator)</label></div>
</fieldset>`;
}

export function previewBody(ctx: PageContext, page: PreviewPage): SafeHtml {
  const { preview, input } = page;
  const { editing } = page;
  return html`${
    editing
      ? html`<p class="crumbs"><a href="/">Monitors</a> / <a href="/monitors/${editing.monitorId}">${editing.title}</a> / <a href="/monitors/${editing.monitorId}/edit">Edit</a> /</p>
<h1>Change targets and schedule</h1>`
      : html`<p class="crumbs"><a href="/monitors/new">New monitor</a> /</p>
<h1>Choose what to watch</h1>`
  }
<dl class="facts">
<dt>Page</dt><dd class="url">${preview.url}</dd>
${preview.final_url !== preview.url && html`<dt>After redirects</dt><dd class="url">${preview.final_url}</dd>`}
<dt>Title</dt><dd>${preview.title ?? html`<span class="muted">none</span>`}</dd>
<dt>Load mode</dt><dd>${preview.load_mode}</dd>
${preview.steps.length > 0 && html`<dt>Steps run before reading</dt><dd><pre>${formatStepLines(preview.steps)}</pre></dd>`}
${preview.format !== 'html' && html`<dt>Document</dt><dd>${preview.format === 'json' ? 'JSON' : preview.format.toUpperCase()}</dd>`}
<dt>Preview valid until</dt><dd>${when(preview.expires_at)}</dd>
</dl>
${preview.step_outcomes.length > 0 && stepResultsTable(preview.step_outcomes)}
${page.results && resultRows(page.results, page.targets)}
<form method="post" action="/monitors/new/${preview.id}" class="stack targets-form">
${csrfField(ctx)}<input type="hidden" name="idempotency_key" value="${page.idempotencyKey}">
<input type="hidden" name="url" value="${preview.url}"><input type="hidden" name="load_mode" value="${preview.load_mode}">
<input type="hidden" name="steps" value="${formatStepLines(preview.steps)}">
${input.targets.map((t, i) =>
  // a PDF's pages and headings orient the reader; its targets read the whole document
  targetFieldset(i + 1, t, preview.format === 'pdf' ? [] : preview.elements, preview.format),
)}
${monitorFieldset(page)}
<div class="actions">
<button type="submit" name="action" value="evaluate" class="secondary">Evaluate targets</button>
${editing ? html`<button type="submit" name="action" value="save">Save targets and schedule</button>` : html`<button type="submit" name="action" value="create">Create monitor</button>`}
</div>
</form>
<details><summary>All ${preview.elements.length} elements of the preview</summary>
<div class="table-wrap"><table><thead><tr><th scope="col">Element</th><th scope="col">Text</th><th scope="col">Hints</th></tr></thead>
<tbody>${preview.elements.map((e) => html`<tr><td><code>${e.selector}</code></td><td>${e.text}</td><td>${e.hints.join(', ')}</td></tr>`)}</tbody></table></div>
</details>`;
}

/**
 * An expired preview: one button loads a fresh preview of the same address,
 * carrying everything the owner typed to the new preview's form.
 */
export function expiredPreviewBody(ctx: PageContext, carried: [string, string][]): SafeHtml {
  return html`<h1>Preview expired</h1>
<p>This preview is no longer valid: previews last 15 minutes and only the 3 most recent are kept.
Load a fresh preview of the same page to continue; what you typed is kept.</p>
<form method="post" action="/monitors/new" class="actions">
${csrfField(ctx)}<input type="hidden" name="carry" value="1">
${carried.map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`)}
<button type="submit">Load a fresh preview</button>
<a href="/monitors/new">Start over</a>
</form>`;
}
