import type { ChannelTarget } from '../channel-urls.ts';
import type { ChannelMessage, ChannelRequest } from './channel-message.ts';

// Telegram Bot API sendMessage (core.telegram.org/bots/api#sendmessage) in
// HTML parse mode: &, < and > of captured text become entities (the only
// characters the mode requires escaped); " too, for the link's attribute.

const TEXT_LIMIT = 4096;

function escapeTelegram(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

export function telegramRequest(target: ChannelTarget, message: ChannelMessage): ChannelRequest {
  const link = `<a href="${escapeTelegram(message.link)}">${message.linkText}</a>`;
  const lines = message.lines.length > 0 ? `<pre>${escapeTelegram(message.lines.join('\n'))}</pre>\n` : '';
  let text = `<b>${escapeTelegram(message.title)}</b>\n${lines}${link}`;
  // Cutting inside an entity or a tag would break the HTML: past the limit the lines go, the title and link stay.
  if (text.length > TEXT_LIMIT) text = `<b>${escapeTelegram(message.title.slice(0, 1000))}</b>\n${link}`;
  return {
    url: target.endpoint,
    headers: {},
    body: { chat_id: target.chatId, text, parse_mode: 'HTML', link_preview_options: { is_disabled: true } },
  };
}
