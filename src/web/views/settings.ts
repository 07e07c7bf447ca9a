import { formatInstant, timeZoneNames } from '../../domain/time-zones.ts';
import { html, type SafeHtml } from '../html.ts';
import { csrfField, type PageContext } from './layout.ts';

// The account's own settings: for now the time zone its alert emails show times in.

export function settingsBody(ctx: PageContext, settings: { timeZone: string; now: Date }): SafeHtml {
  return html`<h1>Settings</h1>
<form method="post" action="/settings/time-zone" class="stack card">
<h2>Time zone</h2>
${csrfField(ctx)}
<label for="time-zone">Time zone</label>
<select id="time-zone" name="time_zone" aria-describedby="time-zone-help">
${timeZoneNames().map((name) => html`<option value="${name}"${name === settings.timeZone ? html` selected` : ''}>${name.replaceAll('_', ' ')}</option>`)}
</select>
<p id="time-zone-help" class="help">Alert emails show times in this zone. Now it is <strong>${formatInstant(settings.now, settings.timeZone)}</strong>.</p>
<button type="submit">Save time zone</button>
</form>`;
}
