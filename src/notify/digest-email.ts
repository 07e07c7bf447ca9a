import { formatInstant } from '../domain/time-zones.ts';
import type { Digest, DigestChange } from '../store/digests-store.ts';
import { changeLink, escapeHtml, oneLine, type ChangeEmail } from './email-message.ts';

// A period's digest (DESIGN §8 Digests): one email listing every change whose
// own email the period held back, oldest first, each with its monitor, target,
// old and new value, time (in the account's time zone) and dashboard link.
// Captured text is untrusted: the HTML part escapes every value.

const DISPLAY_CHARS = 200;

function shown(value: string | null): string {
  const text = oneLine(value ?? '(none)');
  return text.length > DISPLAY_CHARS ? `${text.slice(0, DISPLAY_CHARS - 1)}…` : text;
}

function line(change: DigestChange, timeZone: string): string {
  const monitor = change.monitor_name ? oneLine(change.monitor_name) : change.monitor_url;
  const target = oneLine(change.monitor_targets.find((t) => t.id === change.target_id)?.label ?? change.target_id);
  return `${monitor} · ${target}: ${shown(change.before_display)} → ${shown(change.after_display)} (${formatInstant(change.detected_at, timeZone)})`;
}

export function composeDigestEmail(digest: Digest, publicUrl: string): ChangeEmail {
  const zone = digest.account.time_zone;
  const count = digest.changes.length === 1 ? '1 change' : `${digest.changes.length} changes`;
  const intro = `Your ${digest.kind} pagewatch digest up to ${formatInstant(digest.periodEnd, zone)}: ${count}.`;
  const text = [intro, '', ...digest.changes.flatMap((c) => [`- ${line(c, zone)}`, `  ${changeLink(publicUrl, c.id)}`]), ''].join('\n');
  const html = [
    '<!doctype html><html><body style="font-family: sans-serif">',
    `<p>${escapeHtml(intro)}</p>`,
    '<ul>',
    ...digest.changes.map((c) => `<li><a href="${escapeHtml(changeLink(publicUrl, c.id))}">${escapeHtml(line(c, zone))}</a></li>`),
    '</ul>',
    '</body></html>',
  ].join('\n');
  return { subject: `[pagewatch] ${digest.kind} digest: ${count}`, text, html };
}
