/**
 * The ticket search rule, in one place (the index, the reader's corrections and the full read
 * all use it). Text is folded (Unicode compatibility decomposition, combining marks removed,
 * lower case: "Crème" and "CREME" are one word) and split into words: runs of letters and
 * digits, each cut to MAX_WORD_LENGTH characters. A ticket matches a search when
 * - the folded search is its display id (`web-42` finds WEB-42), or
 * - the search has at least one word and every one of them begins a word of the ticket's title
 *   or description (`deplo fail` finds "Deployment failed").
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

/** The display-id term of the index: no word contains '#', so it never meets one. */
export const displayIdTerm = (displayId: string): string => `#${fold(displayId).trim()}`;

/** The terms a ticket is indexed under: its title's and description's words, and its display id. */
export function searchTermsOf(ticket: { title: string; description?: string; displayId: string }): string[] {
  return [...new Set([...wordsOf(ticket.title), ...wordsOf(ticket.description ?? ''), displayIdTerm(ticket.displayId)])];
}

/** What a search looks for: its words (prefixes), and the display-id term it may be. */
export interface SearchQuery {
  words: string[];
  displayIdTerm: string;
}

export function parseSearch(search: string): SearchQuery {
  return { words: wordsOf(search), displayIdTerm: displayIdTerm(search) };
}

/** Whether a ticket's terms match a search (the rule above). */
export function termsMatch(terms: readonly string[], query: SearchQuery): boolean {
  if (terms.includes(query.displayIdTerm)) return true;
  return query.words.length > 0 && query.words.every((word) => terms.some((term) => !term.startsWith('#') && term.startsWith(word)));
}

export function matchesSearch(ticket: { title: string; description?: string; displayId: string }, search: string): boolean {
  return termsMatch(searchTermsOf(ticket), parseSearch(search));
}
