import type { AccountNotice } from '../store/deliveries-store.ts';
import { escapeHtml, oneLine, type ChangeEmail } from './email-message.ts';

// The owner's one email when a chat or push channel keeps failing (the service
// refused it — a revoked token, a deleted webhook — or a message ran out of
// retries): alerts to it stop until it works again.

export function composeChannelFailingEmail(notice: AccountNotice, publicUrl: string): ChangeEmail {
  const name = oneLine(String(notice.eventData.name));
  const answer = oneLine(String(notice.eventData.error));
  const lines = [
    `The ${String(notice.eventData.type)} channel "${name}" could not deliver an alert: ${answer}.`,
    `Alerts to it are not sent until a test message goes through (Channels page: ${publicUrl}/channels, or POST /api/v1/channels/{id}/test) or the channel is replaced.`,
    `Channel id: ${String(notice.eventData.channel_id)}`,
  ];
  const text = [...lines, '', `pagewatch: ${publicUrl}`, ''].join('\n');
  const html = [
    '<!doctype html><html><body style="font-family: sans-serif">',
    ...lines.map((l) => `<p>${escapeHtml(l)}</p>`),
    '</body></html>',
  ].join('\n');
  return { subject: `[pagewatch] channel ${name} is failing`, text, html };
}
