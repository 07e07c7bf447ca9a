import type { ChangeDiff } from '../domain/text-diff.ts';
import { formatInstant } from '../domain/time-zones.ts';
import type { ChangeRow } from '../store/changes-store.ts';
import type { DeliverySubject } from '../store/deliveries-store.ts';
import { addedLinks, changeSummary, type SummaryLine } from './change-summary.ts';

// The email of a check's changes (DESIGN §8): one intro, then for each change
// the monitor, the target label, the rule matched, when (in the account's time
// zone), what changed (change-summary.ts) and a link to the change. The
// subject says in words what happened. Captured text is untrusted: the HTML
// part escapes every value.

export interface ChangeEmail {
  subject: string;
  text: string;
  html: string;
}

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

/** The change's page on the dashboard (a browser follows the link; the API would answer it 401). */
export function changeLink(publicUrl: string, changeId: string): string {
  return `${publicUrl}/changes/${changeId}`;
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** One line of text, for headers: a name may hold line breaks a header must not. */
export function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

type Monitor = DeliverySubject['monitor'];

export function monitorName(monitor: Monitor): string {
  return monitor.name ? oneLine(monitor.name) : monitor.url;
}

function targetLabel(change: ChangeRow, monitor: Monitor): string {
  return oneLine(monitor.targets.find((t) => t.id === change.target_id)?.label ?? change.target_id);
}

/** What happened, in words, for a subject: "new links on …", "price dropped to …". */
function headline(change: ChangeRow, monitor: Monitor): string {
  const label = targetLabel(change, monitor);
  const rules = ((change.rule_matches as { rule: string }[] | null) ?? []).map((m) => m.rule);
  const after = oneLine(change.after_display ?? String(change.after_value));
  if (rules.includes('new_links') || (change.kind === 'links' && addedLinks(change).length > 0)) {
    const count = addedLinks(change).length;
    return `${count === 1 ? 'a new link' : `${count} new links`} on`;
  }
  if (rules.includes('dropped') || rules.includes('below')) return `price dropped to ${after} on`;
  if (rules.includes('available')) return `${label} is available again on`;
  if (rules.includes('unavailable')) return `${label} is unavailable on`;
  if (rules.includes('appears')) return `the phrase appeared in ${label} on`;
  if (rules.includes('disappears')) return `the phrase disappeared from ${label} on`;
  if (change.kind === 'price') return `price changed to ${after} on`;
  if (change.kind === 'availability') return `${label} is now ${change.after_value === 'in_stock' ? 'in stock' : 'out of stock'} on`;
  return `${label} changed on`;
}

export function changeSubject(change: ChangeRow, monitor: Monitor): string {
  return `[pagewatch] ${headline(change, monitor)} ${monitorName(monitor)}`;
}

const LINE_MARKS: Record<SummaryLine['kind'], string> = { plain: '', heading: '', added: '+ ', removed: '- ', context: '  ' };
const LINE_STYLES: Record<SummaryLine['kind'], string> = {
  plain: '',
  heading: 'color: #555',
  added: 'background: #e6ffec',
  removed: 'background: #ffebe9; text-decoration: line-through',
  context: 'color: #555',
};

/** One change's part of an email, without the intro. */
export function changePart(
  change: ChangeRow,
  diff: ChangeDiff | undefined,
  monitor: Monitor,
  timeZone: string,
  publicUrl: string,
): { text: string; html: string } {
  const matches = change.rule_matches as { rule: string }[] | null;
  const rule =
    matches === null
      ? 'any change (the target has no alert rule)'
      : matches.map((m) => `${m.rule}: ${RULE_WORDS[m.rule] ?? m.rule}`).join('; ');
  const link = changeLink(publicUrl, change.id);
  const rows: [string, string][] = [
    ['Monitor', monitor.name ? `${monitorName(monitor)} (${monitor.url})` : monitor.url],
    ['Target', targetLabel(change, monitor)],
    ['Rule', rule],
    ['Detected', formatInstant(change.detected_at, timeZone)],
  ];
  const summary = changeSummary(change, diff);
  const text = [
    ...rows.map(([name, value]) => `${`${name}:`.padEnd(10)}${value}`),
    '',
    'What changed:',
    ...summary.map((line) => `${LINE_MARKS[line.kind]}${line.text}`.replace(/\n/g, '\n  ')),
    '',
    `See the change: ${link}`,
    '',
  ].join('\n');
  const html = [
    '<table cellpadding="4">',
    ...rows.map(([name, value]) => `<tr><th align="left" valign="top">${name}</th><td>${escapeHtml(value)}</td></tr>`),
    '</table>',
    '<p><strong>What changed</strong></p>',
    '<pre style="white-space: pre-wrap; font-family: monospace">' +
      summary
        .map((line) => `<span style="${LINE_STYLES[line.kind]}">${escapeHtml(`${LINE_MARKS[line.kind]}${line.text}`)}</span>`)
        .join('\n') +
      '</pre>',
    `<p><a href="${escapeHtml(link)}">See the change</a></p>`,
  ].join('\n');
  return { text, html };
}

/** The email of one check's changes (one or several): one intro, then each change's part. */
export function composeChangesEmail(
  changes: ChangeRow[],
  diffs: Map<string, ChangeDiff>,
  monitor: Monitor,
  timeZone: string,
  publicUrl: string,
): ChangeEmail {
  const name = monitorName(monitor);
  const parts = changes.map((change) => changePart(change, diffs.get(change.id), monitor, timeZone, publicUrl));
  const intro =
    changes.length === 1
      ? `pagewatch detected a change on ${name}.`
      : `pagewatch detected ${changes.length} changes on ${name} in one check.`;
  return {
    subject: changes.length === 1 ? changeSubject(changes[0]!, monitor) : `[pagewatch] ${changes.length} changes on ${name}`,
    text: [intro, '', ...parts.map((p) => p.text)].join('\n'),
    html: [
      '<!doctype html><html><body style="font-family: sans-serif">',
      `<p>${escapeHtml(intro)}</p>`,
      parts.map((p) => p.html).join('\n<hr>\n'),
      '</body></html>',
    ].join('\n'),
  };
}
