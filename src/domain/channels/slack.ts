import type { ChannelTarget } from '../channel-urls.ts';
import type { ChannelMessage, ChannelRequest } from './channel-message.ts';

// Slack incoming webhook (api.slack.com/messaging/webhooks): Block Kit blocks
// plus a `text` fallback for notifications. Captured text goes only into
// plain_text objects, which Slack never parses as mrkdwn; the fallback and the
// link are mrkdwn, where &, < and > are the control characters to escape.

const HEADER_LIMIT = 150;
const SECTION_LIMIT = 3000;

function escapeSlack(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function clip(text: string, limit: number): string {
  return text.length <= limit ? text : `${text.slice(0, limit - 1)}…`;
}

export function slackRequest(target: ChannelTarget, message: ChannelMessage): ChannelRequest {
  const blocks: unknown[] = [{ type: 'header', text: { type: 'plain_text', text: clip(message.title, HEADER_LIMIT) } }];
  if (message.lines.length > 0) {
    blocks.push({ type: 'section', text: { type: 'plain_text', text: clip(message.lines.join('\n'), SECTION_LIMIT) } });
  }
  blocks.push({ type: 'section', text: { type: 'mrkdwn', text: `<${escapeSlack(message.link)}|${message.linkText}>` } });
  return { url: target.endpoint, headers: {}, body: { text: escapeSlack(message.title), blocks } };
}
