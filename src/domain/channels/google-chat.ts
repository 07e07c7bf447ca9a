import type { ChannelTarget } from '../channel-urls.ts';
import type { ChannelMessage, ChannelRequest } from './channel-message.ts';

// Google Chat incoming webhook (developers.google.com/workspace/chat/quickstart/webhooks):
// one card (cardsV2). Plain `text` would apply Chat's own *bold*/_italic_
// syntax to captured text, with no way to escape it; a card's header is plain
// text and its textParagraph is a small HTML subset, so &, < and > become entities.

function escapeGoogleChat(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

export function googleChatRequest(target: ChannelTarget, message: ChannelMessage): ChannelRequest {
  const widgets: unknown[] = [];
  if (message.lines.length > 0) widgets.push({ textParagraph: { text: message.lines.map(escapeGoogleChat).join('<br>') } });
  widgets.push({ buttonList: { buttons: [{ text: message.linkText, onClick: { openLink: { url: message.link } } }] } });
  return {
    url: target.endpoint,
    headers: {},
    body: { cardsV2: [{ cardId: 'pagewatch', card: { header: { title: message.title }, sections: [{ widgets }] } }] },
  };
}
