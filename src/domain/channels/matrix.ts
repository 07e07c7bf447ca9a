import type { ChannelTarget } from '../channel-urls.ts';
import type { ChannelMessage, ChannelRequest } from './channel-message.ts';

// Matrix client-server API (spec.matrix.org, PUT /rooms/{roomId}/send/m.room.message/{txnId}):
// an m.text with a plain body and an HTML formatted_body in which &, <, > and "
// of captured text are entities. The transaction id is the message's own id,
// so a retry of the same alert is the same event to the homeserver.

function escapeMatrix(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

export function matrixRequest(target: ChannelTarget, message: ChannelMessage, messageId: string): ChannelRequest {
  const lines = message.lines.length > 0 ? `<pre>${escapeMatrix(message.lines.join('\n'))}</pre>` : '';
  return {
    method: 'PUT',
    url: `${target.endpoint}/${encodeURIComponent(messageId)}`,
    headers: target.headers,
    body: {
      msgtype: 'm.text',
      body: [message.title, ...message.lines, `${message.linkText}: ${message.link}`].join('\n'),
      format: 'org.matrix.custom.html',
      formatted_body: `<b>${escapeMatrix(message.title)}</b>${lines}<a href="${escapeMatrix(message.link)}">${message.linkText}</a>`,
    },
  };
}
