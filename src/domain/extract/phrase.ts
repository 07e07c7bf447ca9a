// Phrase tests for text targets with the appears/disappears rules.

function fold(text: string): string {
  return text.normalize('NFC').toLowerCase().replace(/\s+/gu, ' ').trim();
}

/** Whether `text` contains `phrase`, ignoring case and differences in whitespace. An empty phrase is never contained. */
export function containsPhrase(text: string, phrase: string): boolean {
  const needle = fold(phrase);
  return needle !== '' && fold(text).includes(needle);
}
