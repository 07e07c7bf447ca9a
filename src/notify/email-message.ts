import type { ChangeRow } from '../store/changes-store.ts';
import type { DeliverySubject } from '../store/deliveries-store.ts';

// The email of one change (DESIGN §8): the monitor (name or URL), the target
// label, the rule matched, the before and after values and a link to the
// change. Captured text is untrusted: the HTML part escapes every value, and
// long values are cut so a whole page's text does not land in an inbox (the
// link leads to the full texts and their diff).

export interface ChangeEmail {
  subject: string;
  text: string;
  html: string;
}

const VALUE_LIMIT = 500;

const RULE_WORDS: Record<string, string> = {
  changed: 'the value changed',
  appears: 'the phrase appeared',
  disappears: 'the phrase disappeared',
  dropped: 'the price dropped',
  below: 'the price fell below the threshold',
  available: 'it became available',
  unavailable: 'it became unavailable',
  new_links: 'new links appeared',
};

/** Where a change is read: the API's change resource (needs a token with changes:read). */
/** The change's page on the dashboard (a browser follows the link; the API would answer it 401). */
export function changeLink(publicUrl: string, changeId: string): string {
  return `${publicUrl}/changes/${changeId}`;
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function shown(side: { value: unknown; display: string | null }): string {
  const text = side.display ?? (Array.isArray(side.value) ? side.value.join('\n') : String(side.value));
  return text.length > VALUE_LIMIT ? `${text.slice(0, VALUE_LIMIT)}…` : text;
}

/** One line of text, for headers: a name may hold line breaks a header must not. */
export function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

export function composeChangeEmail(change: ChangeRow, monitor: DeliverySubject['monitor'], publicUrl: string): ChangeEmail {
  const monitorName = monitor.name ? oneLine(monitor.name) : monitor.url;
  const target = monitor.targets.find((t) => t.id === change.target_id);
  const label = oneLine(target?.label ?? change.target_id);
  const matches = change.rule_matches as { rule: string }[] | null;
  const rule =
    matches === null
      ? 'any change (the target has no alert rule)'
      : matches.map((m) => `${m.rule}: ${RULE_WORDS[m.rule] ?? m.rule}`).join('; ');
  const link = changeLink(publicUrl, change.id);
  const rows: [string, string][] = [
    ['Monitor', monitor.name ? `${monitorName} (${monitor.url})` : monitor.url],
    ['Target', label],
    ['Rule', rule],
    ['Before', shown({ value: change.before_value, display: change.before_display })],
    ['After', shown({ value: change.after_value, display: change.after_display })],
    ['Detected', change.detected_at.toISOString()],
  ];

  const text = [
    `pagewatch detected a change on ${monitorName}.`,
    '',
    ...rows.map(([name, value]) => `${`${name}:`.padEnd(10)}${value.replace(/\n/g, '\n          ')}`),
    '',
    `See the change: ${link}`,
    '',
  ].join('\n');

  const html = [
    '<!doctype html><html><body style="font-family: sans-serif">',
    `<p>pagewatch detected a change on <strong>${escapeHtml(monitorName)}</strong>.</p>`,
    '<table cellpadding="4">',
    ...rows.map(
      ([name, value]) => `<tr><th align="left" valign="top">${name}</th><td style="white-space: pre-wrap">${escapeHtml(value)}</td></tr>`,
    ),
    '</table>',
    `<p><a href="${escapeHtml(link)}">See the change</a></p>`,
    '</body></html>',
  ].join('\n');

  return {
    subject: `[pagewatch] ${label} on ${monitorName}: ${matches === null ? 'changed' : matches.map((m) => m.rule).join(', ')}`,
    text,
    html,
  };
}
