import type { CheckIssue } from '../domain/issues.ts';
import type { DeliverySubject } from '../store/deliveries-store.ts';
import type { ChangeDiff } from '../domain/text-diff.ts';
import { formatInstant } from '../domain/time-zones.ts';
import { composeChangesEmail, escapeHtml, oneLine, type ChangeEmail } from './email-message.ts';
import { addedLinks } from './change-summary.ts';
import { changeView } from '../services/changes.ts';

// What a notification says, by event: a change (change.detected), or a
// monitor whose checks started failing (monitor.failing) or work again
// (monitor.recovered). Emails link to the dashboard; webhooks carry the
// event's data as the OpenAPI document's `webhooks` section describes it.

export function monitorLink(publicUrl: string, monitorId: string): string {
  return `${publicUrl}/monitors/${monitorId}`;
}

function composeMonitorEmail(subject: DeliverySubject, publicUrl: string): ChangeEmail {
  const { monitor, event } = subject;
  const data = subject.eventData ?? {};
  const name = monitor.name ? oneLine(monitor.name) : monitor.url;
  const link = monitorLink(publicUrl, monitor.id);
  const failing = event === 'monitor.failing';
  const when = (value: unknown) => formatInstant(new Date(String(value)), subject.account.time_zone);
  const issues = ((data.issues as CheckIssue[] | undefined) ?? []).map(
    (i) => `${i.code}${i.target_id ? ` (${i.target_id})` : ''}: ${i.message}`,
  );
  const lines = failing
    ? [
        `The checks of ${name} have failed ${String(data.consecutive_failures)} times in a row, since ${when(data.failing_since)}.`,
        '',
        ...issues,
      ]
    : [`The checks of ${name} work again (failing since ${when(data.failing_since)}, recovered ${when(data.recovered_at)}).`];
  const text = [...lines, '', `Monitor: ${monitor.url}`, `See the monitor: ${link}`, ''].join('\n');
  const html = [
    '<!doctype html><html><body style="font-family: sans-serif">',
    ...lines.filter((l) => l !== '').map((l) => `<p>${escapeHtml(l)}</p>`),
    `<p><a href="${escapeHtml(link)}">See the monitor</a></p>`,
    '</body></html>',
  ].join('\n');
  return { subject: `[pagewatch] ${name}: ${failing ? 'checks are failing' : 'checks work again'}`, text, html };
}

export function composeEmail(subject: DeliverySubject, diffs: Map<string, ChangeDiff>, publicUrl: string): ChangeEmail {
  if (subject.changes.length === 0) return composeMonitorEmail(subject, publicUrl);
  return composeChangesEmail(subject.changes, diffs, subject.monitor, subject.account.time_zone, publicUrl);
}

/** The webhook body. For a change, `data.change` is the API's Change summary, so receivers parse one shape. */
export function webhookBody(subject: DeliverySubject, diffs: Map<string, ChangeDiff>): string {
  const { change, monitor } = subject;
  const monitorRef = { id: monitor.id, url: monitor.url, name: monitor.name };
  if (change) {
    const checkId = subject.eventData?.check_id;
    const data = {
      change: changeView(change),
      monitor: monitorRef,
      ...(typeof checkId === 'string' ? { check_id: checkId } : {}),
      diff: diffs.get(change.id),
      added_links: addedLinks(change),
    };
    return JSON.stringify({ type: 'change.detected', timestamp: change.detected_at.toISOString(), data });
  }
  // The event's own time, the same on every retry: when the monitor started failing, or recovered.
  const data = subject.eventData ?? {};
  const timestamp = String(data.recovered_at ?? data.failing_since);
  return JSON.stringify({ type: subject.event, timestamp, data: { monitor: monitorRef, ...data } });
}
