import type { ChannelTarget } from '../channel-urls.ts';
import type { ChannelMessage, ChannelRequest } from './channel-message.ts';

// ntfy (docs.ntfy.sh/publish/#publish-as-json): a JSON message posted to the
// server's root naming its topic, so no captured text travels in a header.
// ntfy shows the message as plain text unless markdown is asked for, and it is not.

const PRIORITY = { change: 3, failing: 4, recovered: 3 } as const;

export function ntfyRequest(target: ChannelTarget, message: ChannelMessage): ChannelRequest {
  const endpoint = new URL(target.endpoint);
  const topic = endpoint.pathname.slice(1);
  return {
    url: `${endpoint.origin}/`,
    headers: target.headers,
    body: {
      topic,
      title: message.title,
      message: message.lines.length > 0 ? message.lines.join('\n') : message.title,
      priority: PRIORITY[message.severity],
      click: message.link,
      tags: [message.severity === 'failing' ? 'warning' : message.severity === 'recovered' ? 'white_check_mark' : 'mag'],
    },
  };
}
