import { everyWordBegins, fold, wordsOf } from '../search/index.js';

/**
 * The wiki search rule, in one place (the index, the reader's corrections and the full read all
 * use it), on the words of lib/search/text.ts. A page matches a search when the search has at
 * least one word and every one of them begins a word of the page's title or current content
 * (`deplo canar` finds "Deploying with a canary"). Pages whose title alone matches rank first.
 * A page is searchable by its distinct words in order of first appearance, title first, up to
 * MAX_PAGE_TERM_BYTES of them: far more than a page of prose uses, and what keeps a page's
 * index record within DynamoDB's item size.
 */

/** UTF-8 bytes of a page's distinct words that are searchable. */
export const MAX_PAGE_TERM_BYTES = 100_000;

export interface PageTerms {
  /** The searchable words, title's first. */
  terms: string[];
  /** The title's words (all among `terms`). */
  titleTerms: Set<string>;
}

export function pageTermsOf(title: string, content: string): PageTerms {
  const titleTerms = new Set(wordsOf(title));
  const terms: string[] = [];
  let bytes = 0;
  for (const term of new Set([...titleTerms, ...wordsOf(content)])) {
    bytes += Buffer.byteLength(term);
    if (bytes > MAX_PAGE_TERM_BYTES) break;
    terms.push(term);
  }
  return { terms, titleTerms };
}

/** Whether a page with these terms matches the search's words (undefined: it does not), and whether its title alone does. */
export function judgePage(words: readonly string[], terms: readonly string[], titleTerms: readonly string[]): { inTitle: boolean } | undefined {
  if (!everyWordBegins(words, terms)) return undefined;
  return { inTitle: everyWordBegins(words, titleTerms) };
}

export const SNIPPET_RADIUS = 80;

const isLowSurrogate = (code: number) => code >= 0xdc00 && code <= 0xdfff;

/** The text around `length` characters at `at`: at most SNIPPET_RADIUS either side, whitespace runs as one space, '…' where cut. */
function windowAround(text: string, at: number, length: number): string {
  let start = Math.max(0, at - SNIPPET_RADIUS);
  let end = Math.min(text.length, at + length + SNIPPET_RADIUS);
  if (start > 0 && isLowSurrogate(text.charCodeAt(start))) start -= 1;
  if (end < text.length && isLowSurrogate(text.charCodeAt(end))) end += 1;
  return `${start > 0 ? '…' : ''}${text.slice(start, end).replace(/\s+/g, ' ').trim()}${end < text.length ? '…' : ''}`;
}

/** Where the first word of `text` that a search word begins is: its offset and length, or undefined. */
function firstWordBegun(text: string, words: readonly string[]): { at: number; length: number } | undefined {
  if (words.length === 0) return undefined;
  const folded = fold(text);
  // Words are letters and digits only: nothing in them needs escaping.
  const begun = new RegExp(`(?<![\\p{L}\\p{N}])(?:${words.join('|')})[\\p{L}\\p{N}]*`, 'u').exec(folded);
  if (!begun) return undefined;
  // Folding kept the length (most text): the offsets are the text's own.
  if (folded.length === text.length) return { at: begun.index, length: begun[0].length };
  // Otherwise each word of the text is folded in turn until one is begun.
  for (const match of text.matchAll(/[\p{L}\p{N}\p{M}]+/gu)) {
    if (wordsOf(match[0]).some((word) => words.some((searched) => word.startsWith(searched)))) return { at: match.index, length: match[0].length };
  }
  return undefined;
}

/** The snippet of a matching page: the content around the first word a search word begins, else the title around it. */
export function snippetOf(title: string, content: string, words: readonly string[]): string {
  const inContent = firstWordBegun(content, words);
  if (inContent) return windowAround(content, inContent.at, inContent.length);
  const inTitle = firstWordBegun(title, words);
  return inTitle ? windowAround(title, inTitle.at, inTitle.length) : windowAround(title, 0, 0);
}
