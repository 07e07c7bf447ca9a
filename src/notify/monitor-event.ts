import type { CheckIssue } from '../domain/issues.ts';
import type { DeliverySubject } from '../store/deliveries-store.ts';
import { composeChangeEmail, escapeHtml, oneLine, type ChangeEmail } from './email-message.ts';
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
  const issues = ((data.issues as CheckIssue[] | undefined) ?? []).map(
    (i) => `${i.code}${i.target_id ? ` (${i.target_id})` : ''}: ${i.message}`,
  );
  const lines = failing
    ? [
        `The checks of ${name} have failed ${String(data.consecutive_failures)} times in a row, since ${String(data.failing_since)}.`,
        '',
        ...issues,
      ]
    : [`The checks of ${name} work again (failing since ${String(data.failing_since)}, recovered ${String(data.recovered_at)}).`];
  const text = [...lines, '', `Monitor: ${monitor.url}`, `See the monitor: ${link}`, ''].join('\n');
  const html = [
    '<!doctype html><html><body style="font-family: sans-serif">',
    ...lines.filter((l) => l !== '').map((l) => `<p>${escapeHtml(l)}</p>`),
    `<p><a href="${escapeHtml(link)}">See the monitor</a></p>`,
    '</body></html>',
  ].join('\n');
  return { subject: `[pagewatch] ${name}: ${failing ? 'checks are failing' : 'checks work again'}`, text, html };
}

/** One email for all the changes one check found: each change's part in turn, under one subject. */
function composeGroupedEmail(subject: DeliverySubject, publicUrl: string): ChangeEmail {
  const { monitor, changes } = subject;
  const name = monitor.name ? oneLine(monitor.name) : monitor.url;
  const parts = changes.map((change) => composeChangeEmail(change, monitor, publicUrl));
  const body = (html: boolean) =>
    parts.map((p) => (html ? p.html.replace(/^<!doctype html><html><body[^>]*>|<\/body><\/html>$/g, '') : p.text));
  return {
    subject: `[pagewatch] ${changes.length} changes on ${name}`,
    text: [`pagewatch detected ${changes.length} changes on ${name} in one check.`, '', ...body(false)].join('\n'),
    html: ['<!doctype html><html><body style="font-family: sans-serif">', ...body(true).map((b) => `<hr>${b}`), '</body></html>'].join(
      '\n',
    ),
  };
}

export function composeEmail(subject: DeliverySubject, publicUrl: string): ChangeEmail {
  if (subject.changes.length > 1) return composeGroupedEmail(subject, publicUrl);
  return subject.change ? composeChangeEmail(subject.change, subject.monitor, publicUrl) : composeMonitorEmail(subject, publicUrl);
}

/** The webhook body. For a change, `data.change` is the API's Change summary, so receivers parse one shape. */
export function webhookBody(subject: DeliverySubject): string {
  const { change, monitor } = subject;
  const monitorRef = { id: monitor.id, url: monitor.url, name: monitor.name };
  if (change) {
    const checkId = subject.eventData?.check_id;
    const data = { change: changeView(change), monitor: monitorRef, ...(typeof checkId === 'string' ? { check_id: checkId } : {}) };
    return JSON.stringify({ type: 'change.detected', timestamp: change.detected_at.toISOString(), data });
  }
  // The event's own time, the same on every retry: when the monitor started failing, or recovered.
  const data = subject.eventData ?? {};
  const timestamp = String(data.recovered_at ?? data.failing_since);
  return JSON.stringify({ type: subject.event, timestamp, data: { monitor: monitorRef, ...data } });
}
