import type { ChannelTarget } from '../channel-urls.ts';
import type { ChannelMessage, ChannelRequest } from './channel-message.ts';

// Pushover (pushover.net/api, POST /1/messages.json as JSON): without html=1
// or monospace=1 the message is plain text; the dashboard link is the
// message's supplementary URL. A failing monitor is high priority.

const TITLE_LIMIT = 250;
const MESSAGE_LIMIT = 1024;

function clip(text: string, limit: number): string {
  return text.length <= limit ? text : `${text.slice(0, limit - 1)}…`;
}

export function pushoverRequest(target: ChannelTarget, message: ChannelMessage): ChannelRequest {
  return {
    url: target.endpoint,
    headers: {},
    body: {
      token: target.pushover?.token,
      user: target.pushover?.user,
      title: clip(message.title, TITLE_LIMIT),
      message: clip(message.lines.length > 0 ? message.lines.join('\n') : message.title, MESSAGE_LIMIT),
      url: message.link,
      url_title: message.linkText,
      priority: message.severity === 'failing' ? 1 : 0,
    },
  };
}
