import { html, type SafeHtml } from '../html.ts';

// The monitor forms' select of an outbound proxy: directly, or one of the
// names offered. A chosen name no longer offered stays listed, so the form
// shows what the monitor has, and saving it gets the API's answer.

export function proxyField(offered: readonly string[], chosen: string): SafeHtml | '' {
  if (offered.length === 0) return '';
  const names = chosen === '' || offered.includes(chosen) ? offered : [...offered, chosen];
  const option = (value: string, label: string) =>
    html`<option value="${value}"${value === chosen ? html` selected` : ''}>${label}</option>`;
  return html`<div><label for="proxy">Load through</label><select id="proxy" name="proxy" aria-describedby="proxy-help">
${option('', 'directly (no proxy)')}${names.map((name) => option(name, `proxy ${name}`))}
</select>
<span class="help" id="proxy-help">one of the operator's outbound proxies, for sites that block or treat differently checks from this server</span></div>`;
}
