import { everyWordBegins, fold, wordsOf } from '../../search/index.js';

/**
 * The ticket search rule, in one place (the index, the reader's corrections and the full read
 * all use it), on the words of lib/search/text.ts. A ticket matches a search when
 * - the folded search is its display id (`web-42` finds WEB-42), or
 * - the search has at least one word and every one of them begins a word of the ticket's title
 *   or description (`deplo fail` finds "Deployment failed").
 */

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
  // A word has no '#', so it never begins the display-id term.
  return everyWordBegins(query.words, terms);
}

export function matchesSearch(ticket: { title: string; description?: string; displayId: string }, search: string): boolean {
  return termsMatch(searchTermsOf(ticket), parseSearch(search));
}
