import type { ChannelTarget } from '../channel-urls.ts';
import type { ChannelMessage, ChannelRequest } from './channel-message.ts';

// Microsoft Teams workflow webhook (learn.microsoft.com: "Create incoming
// webhooks with Workflows"): a message with one Adaptive Card attachment.
// TextBlock renders Markdown; captured text goes into TextRuns of a
// RichTextBlock instead, which Teams shows as written.

function run(text: string, options: Record<string, unknown> = {}) {
  return { type: 'TextRun', text, ...options };
}

export function teamsRequest(target: ChannelTarget, message: ChannelMessage): ChannelRequest {
  const body: unknown[] = [
    { type: 'RichTextBlock', inlines: [run(message.title, { weight: 'Bolder', size: 'Medium' })] },
    ...message.lines.map((line) => ({ type: 'RichTextBlock', inlines: [run(line, { fontType: 'Monospace' })] })),
  ];
  const card = {
    $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
    type: 'AdaptiveCard',
    version: '1.4',
    body,
    actions: [{ type: 'Action.OpenUrl', title: message.linkText, url: message.link }],
  };
  return {
    url: target.endpoint,
    headers: {},
    body: { type: 'message', attachments: [{ contentType: 'application/vnd.microsoft.card.adaptive', contentUrl: null, content: card }] },
  };
}
