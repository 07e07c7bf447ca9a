import { formatInstant, timeZoneNames } from '../../domain/time-zones.ts';
import { EMAIL_MODES, type EmailMode } from '../../domain/digest-periods.ts';
import { html, type SafeHtml } from '../html.ts';
import { csrfField, type PageContext } from './layout.ts';

// The account's own settings: the time zone its alert emails show times in,
// and whether change emails come one per check or as a daily or weekly digest.

const MODE_WORDS: Record<EmailMode, string> = {
  each: 'One email per check with changes',
  daily: 'A daily digest',
  weekly: 'A weekly digest, on Mondays',
};

function emailForm(ctx: PageContext, settings: { emailMode: EmailMode; digestHour: number }): SafeHtml {
  return html`<form method="post" action="/settings/email" class="stack card">
<h2>Change emails</h2>
${csrfField(ctx)}
<fieldset><legend>Send</legend>
${EMAIL_MODES.map(
  (m) =>
    html`<div class="check"><input type="radio" id="email-mode-${m}" name="email_mode" value="${m}"${settings.emailMode === m ? html` checked` : ''}><label for="email-mode-${m}">${MODE_WORDS[m]}</label></div>`,
)}
</fieldset>
<label for="digest-hour">Digests go out at</label>
<select id="digest-hour" name="digest_hour" aria-describedby="digest-help">
${Array.from({ length: 24 }, (_, h) => html`<option value="${h}"${h === settings.digestHour ? html` selected` : ''}>${String(h).padStart(2, '0')}:00</option>`)}
</select>
<p id="digest-help" class="help">In the time zone above. A digest lists every change of the period; none is sent when nothing changed. A monitor may choose its own mode.</p>
<button type="submit">Save change emails</button>
</form>`;
}

export function settingsBody(
  ctx: PageContext,
  settings: { timeZone: string; now: Date; emailMode: EmailMode; digestHour: number },
): SafeHtml {
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
</form>
${emailForm(ctx, settings)}`;
}
