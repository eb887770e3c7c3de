/**
 * The words search reads, in one place (ticket and wiki search, their indexes and their full
 * reads all use it). Text is folded (Unicode compatibility decomposition, combining marks
 * removed, lower case: "Crème" and "CREME" are one word) and split into words: runs of letters
 * and digits, each cut to MAX_WORD_LENGTH characters. A search word matches a word it begins.
 */

/** Longer words are indexed (and searched) by their first 64 characters. */
export const MAX_WORD_LENGTH = 64;

export function fold(text: string): string {
  return text.normalize('NFKD').replace(/\p{M}+/gu, '').toLowerCase();
}

/** The distinct folded words of a text, in order of first appearance. */
export function wordsOf(text: string): string[] {
  const words = new Set<string>();
  for (const match of fold(text).matchAll(/[\p{L}\p{N}]+/gu)) words.add(match[0].slice(0, MAX_WORD_LENGTH));
  return [...words];
}

/** Whether every search word begins one of `terms` (and there is at least one word). */
export function everyWordBegins(words: readonly string[], terms: readonly string[]): boolean {
  return words.length > 0 && words.every((word) => terms.some((term) => term.startsWith(word)));
}
