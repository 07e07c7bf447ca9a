import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseChannelUrl, type ChannelTarget } from '../../src/domain/channel-urls.ts';
import type { ChannelMessage } from '../../src/domain/channels/channel-message.ts';
import { channelRequest } from '../../src/domain/channels/channel-request.ts';

// Captured page text is untrusted: in every format it arrives as text the
// service shows as written, never as markup, mentions or links.

const HOSTILE = '<script>alert(1)</script> <b>bold</b> &amp; <!here> <@U123> @everyone **x** [click](https://evil.example) `code` ```';

const message: ChannelMessage = {
  title: `price dropped on ${HOSTILE}`,
  lines: [`- ${HOSTILE}`, `+ ${HOSTILE}`],
  link: 'https://watch.example.org/changes/0f8c1a6e-0000-4000-8000-000000000000',
  linkText: 'See the change',
  severity: 'change',
};

function target(url: string): ChannelTarget {
  const parsed = parseChannelUrl(url);
  assert.ok(parsed.ok);
  return parsed.target;
}

test('Slack: captured text is plain_text in the blocks, and &, < and > are escaped in the mrkdwn fallback', () => {
  const body = channelRequest(target('slack://T1/B1/secret'), message, 'm1').body as {
    text: string;
    blocks: { type: string; text: { type: string; text: string } }[];
  };
  assert.equal(body.text, `price dropped on ${HOSTILE.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')}`);
  assert.doesNotMatch(body.text, /[<>]/);
  const withCapturedText = body.blocks.filter((b) => b.text.text.includes('<script>'));
  assert.deepEqual(
    withCapturedText.map((b) => b.text.type),
    ['plain_text', 'plain_text'],
  );
  assert.equal(body.blocks.at(-1)!.text.text, `<${message.link}|See the change>`);
});

test('Discord: every Markdown character of captured text is backslash-escaped and no mention is allowed', () => {
  const body = channelRequest(target('discord://1/tok'), message, 'm1').body as {
    embeds: { title: string; description: string }[];
    allowed_mentions: unknown;
  };
  const [embed] = body.embeds;
  for (const text of [embed!.title, embed!.description]) {
    assert.doesNotMatch(text, /(^|[^\\])[*_`[\]()<>@#~|]/, text);
    assert.equal(text.replace(/\\(.)/g, '$1').includes(HOSTILE), true, 'unescaped, it reads as the page did');
  }
  assert.deepEqual(body.allowed_mentions, { parse: [] });
});

test('ntfy: captured text travels only as JSON values, never in a header, and markdown is not asked for', () => {
  const request = channelRequest(target('ntfy://topic'), message, 'm1');
  const body = request.body as Record<string, unknown>;
  assert.equal(body.title, message.title);
  assert.equal(body.message, message.lines.join('\n'));
  assert.equal(body.markdown, undefined);
  assert.ok(!JSON.stringify(request.headers).includes('script'));
});

test('Microsoft Teams: captured text is in TextRuns, which render no Markdown, and never in a TextBlock', () => {
  const body = channelRequest(target('workflows://host.example/wf1/sig'), message, 'm1').body as {
    attachments: { content: { body: { type: string; inlines: { type: string; text: string }[] }[] } }[];
  };
  const blocks = body.attachments[0]!.content.body;
  assert.ok(blocks.every((b) => b.type === 'RichTextBlock' && b.inlines.every((i) => i.type === 'TextRun')));
  assert.deepEqual(
    blocks.map((b) => b.inlines[0]!.text),
    [message.title, ...message.lines],
  );
});

test('Telegram: &, <, > and " of captured text are entities in the HTML, so only our tags are tags', () => {
  const { text } = channelRequest(target('tgram://1:tok/2'), message, 'm1').body as { text: string };
  const tags = [...text.matchAll(/<\/?([a-z]+)[^>]*>/g)].map((m) => m[1]);
  assert.deepEqual(tags, ['b', 'b', 'pre', 'pre', 'a', 'a']);
  assert.ok(text.includes('&lt;script&gt;alert(1)&lt;/script&gt; &lt;b&gt;bold&lt;/b&gt; &amp;amp;'));
});

test('Gotify: captured text is plain JSON values shown as text/plain, never Markdown', () => {
  const request = channelRequest(target('gotify://gotify.example.org/tok'), message, 'm1');
  const body = request.body as { title: string; message: string; extras: Record<string, unknown> };
  assert.equal(body.title, message.title);
  assert.ok(body.message.startsWith(message.lines.join('\n')));
  assert.deepEqual(body.extras['client::display'], { contentType: 'text/plain' });
});

test('Pushover: captured text is sent without html=1 or monospace=1, so it is shown as plain text', () => {
  const body = channelRequest(target('pover://uQiRzpo4DXghDmr9QzzfQu27cmVRsG@azGDORePK8gMaC0QOYAMyEEuzJnyUi'), message, 'm1')
    .body as Record<string, unknown>;
  assert.equal(body.html, undefined);
  assert.equal(body.monospace, undefined);
  assert.equal(body.message, message.lines.join('\n'));
});

test('Google Chat: captured text is in a card (no Chat text syntax), with &, <, > and " as entities in its HTML paragraph', () => {
  const body = channelRequest(target('gchat://space/key/token'), message, 'm1').body as {
    text?: string;
    cardsV2: { card: { header: { title: string }; sections: { widgets: { textParagraph?: { text: string } }[] }[] } }[];
  };
  assert.equal(body.text, undefined);
  const { card } = body.cardsV2[0]!;
  assert.equal(card.header.title, message.title, 'a card header is plain text');
  const paragraph = card.sections[0]!.widgets[0]!.textParagraph!.text;
  assert.deepEqual(
    [...paragraph.matchAll(/<\/?([a-z]+)[^>]*>/g)].map((m) => m[1]),
    ['br'],
  );
  assert.ok(paragraph.includes('&lt;script&gt;alert(1)&lt;/script&gt;'));
});

test('Matrix: the plain body carries the text, and in formatted_body &, <, > and " of captured text are entities', () => {
  const body = channelRequest(target('matrixs://tok@matrix.example.org/!room:example.org'), message, 'm1').body as {
    body: string;
    format: string;
    formatted_body: string;
  };
  assert.ok(body.body.includes(HOSTILE));
  assert.equal(body.format, 'org.matrix.custom.html');
  assert.deepEqual(
    [...body.formatted_body.matchAll(/<\/?([a-z]+)[^>]*>/g)].map((m) => m[1]),
    ['b', 'b', 'pre', 'pre', 'a', 'a'],
  );
  assert.ok(body.formatted_body.includes('&lt;script&gt;alert(1)&lt;/script&gt;'));
});
