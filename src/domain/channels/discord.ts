import type { ChannelTarget } from '../channel-urls.ts';
import type { ChannelMessage, ChannelRequest } from './channel-message.ts';

// Discord webhook (discord.com/developers/docs/resources/webhook#execute-webhook):
// one embed. Embed titles and descriptions render Markdown, so every Markdown
// character of captured text is backslash-escaped; allowed_mentions with no
// parse types keeps an "@everyone" in a page from pinging anyone.

const TITLE_LIMIT = 256;
const DESCRIPTION_LIMIT = 4096;
const COLOURS = { change: 0x2f81f7, failing: 0xd1242f, recovered: 0x1a7f37 } as const;

function escapeDiscord(text: string): string {
  return text.replace(/[\\*_~`|>#\-[\]()<@.]/g, (c) => `\\${c}`);
}

function clip(text: string, limit: number): string {
  return text.length <= limit ? text : `${text.slice(0, limit - 1)}…`;
}

export function discordRequest(target: ChannelTarget, message: ChannelMessage): ChannelRequest {
  const embed = {
    title: clip(escapeDiscord(message.title), TITLE_LIMIT),
    url: message.link,
    color: COLOURS[message.severity],
    ...(message.lines.length > 0 ? { description: clip(message.lines.map(escapeDiscord).join('\n'), DESCRIPTION_LIMIT) } : {}),
  };
  return { url: target.endpoint, headers: {}, body: { embeds: [embed], allowed_mentions: { parse: [] } } };
}
