import { normaliseText } from '../observed-value.ts';

// Phrase tests for text targets with the appears/disappears rules.

function fold(text: string): string {
  return normaliseText(text).toLowerCase();
}

/**
 * Case-insensitive, whitespace-normalised containment, the test behind
 * `appears` / `disappears`. A phrase that is empty after normalisation is
 * contained nowhere, so it can never make those rules fire.
 */
export function containsPhrase(text: string, phrase: string): boolean {
  const needle = fold(phrase);
  return needle !== '' && fold(text).includes(needle);
}
