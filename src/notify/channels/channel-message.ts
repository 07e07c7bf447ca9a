import type { ChangeDiff } from '../../domain/text-diff.ts';
import type { DeliverySubject } from '../../store/deliveries-store.ts';
import { changeSummary } from '../change-summary.ts';
import { changeLink, changeSubject, monitorName } from '../email-message.ts';
import { monitorLink } from '../monitor-event.ts';
import type { ChannelMessage } from '../../domain/channels/channel-message.ts';

// The message of an outbox row: its change (the first lines of what changed)
// or its monitor's state, and the dashboard link.

/** Lines of a change shown in a message at most; the rest is on the dashboard. */
const MAX_MESSAGE_LINES = 10;

const MARKS = { plain: '', heading: '', added: '+ ', removed: '- ', context: '  ' } as const;

function capped(lines: string[]): string[] {
  if (lines.length <= MAX_MESSAGE_LINES) return lines;
  return [...lines.slice(0, MAX_MESSAGE_LINES), '… (more on the change page)'];
}

export function channelMessage(subject: DeliverySubject, diffs: Map<string, ChangeDiff>, publicUrl: string): ChannelMessage {
  const { monitor } = subject;
  const [first] = subject.changes;
  if (first) {
    const lines = subject.changes.flatMap((change) => changeSummary(change, diffs.get(change.id)).map((l) => `${MARKS[l.kind]}${l.text}`));
    return {
      title: changeSubject(first, monitor).replace(/^\[pagewatch\] /, ''),
      lines: capped(lines),
      link: changeLink(publicUrl, first.id),
      linkText: 'See the change',
      severity: 'change',
    };
  }
  const failing = subject.event === 'monitor.failing';
  const data = subject.eventData ?? {};
  const issues = ((data.issues as { code: string; message: string }[] | undefined) ?? []).map((i) => `${i.code}: ${i.message}`);
  return {
    title: `${monitorName(monitor)}: ${failing ? 'checks are failing' : 'checks work again'}`,
    lines: failing ? capped([`${String(data.consecutive_failures)} failed checks in a row`, ...issues]) : [],
    link: monitorLink(publicUrl, monitor.id),
    linkText: 'See the monitor',
    severity: failing ? 'failing' : 'recovered',
  };
}
