import type { ChannelTarget } from '../channel-urls.ts';
import type { ChannelMessage, ChannelRequest } from './channel-message.ts';

// Gotify (gotify.net/api-docs, POST /message): title, message, priority, and
// extras that make clients show the message as plain text (never Markdown)
// and open the dashboard link on a click.

const PRIORITY = { change: 5, failing: 8, recovered: 5 } as const;

export function gotifyRequest(target: ChannelTarget, message: ChannelMessage): ChannelRequest {
  return {
    url: target.endpoint,
    headers: target.headers,
    body: {
      title: message.title,
      message: [...message.lines, '', `${message.linkText}: ${message.link}`].join('\n').trimStart(),
      priority: PRIORITY[message.severity],
      extras: {
        'client::display': { contentType: 'text/plain' },
        'client::notification': { click: { url: message.link } },
      },
    },
  };
}
