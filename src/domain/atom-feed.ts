// An Atom document (RFC 4287) from plain values. Every text, captured page
// text above all, is escaped here and nowhere else, and characters XML 1.0
// cannot carry at all (most control characters, lone surrogates) become
// U+FFFD: escaping cannot make them legal, and one would break the document.

export interface AtomEntry {
  /** a URI that never changes for this entry */
  id: string;
  title: string;
  updated: Date;
  /** the entry's page for a person (alternate link) */
  link: string;
  /** plain text, shown by readers as text (type="text") */
  content: string;
}

export interface AtomFeed {
  id: string;
  title: string;
  /** the feed's own address (rel="self") */
  self: string;
  updated: Date;
  author: string;
  entries: AtomEntry[];
}

const NOT_XML_CHAR = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

export function xmlText(text: string): string {
  return text.replace(NOT_XML_CHAR, '\uFFFD').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

function entryXml(entry: AtomEntry): string {
  return [
    '<entry>',
    `<id>${xmlText(entry.id)}</id>`,
    `<title type="text">${xmlText(entry.title)}</title>`,
    `<updated>${entry.updated.toISOString()}</updated>`,
    `<link rel="alternate" type="text/html" href="${xmlText(entry.link)}"/>`,
    `<content type="text">${xmlText(entry.content)}</content>`,
    '</entry>',
  ].join('\n');
}

export function atomDocument(feed: AtomFeed): string {
  return [
    '<?xml version="1.0" encoding="utf-8"?>',
    '<feed xmlns="http://www.w3.org/2005/Atom">',
    `<id>${xmlText(feed.id)}</id>`,
    `<title type="text">${xmlText(feed.title)}</title>`,
    `<updated>${feed.updated.toISOString()}</updated>`,
    `<link rel="self" type="application/atom+xml" href="${xmlText(feed.self)}"/>`,
    `<author><name>${xmlText(feed.author)}</name></author>`,
    ...feed.entries.map(entryXml),
    '</feed>',
    '',
  ].join('\n');
}
