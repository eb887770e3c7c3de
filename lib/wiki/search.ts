import { pageOf, type Page } from '../core/pages.js';
import { mapLimited } from '../core/concurrency.js';
import type { DomainContext } from '../db/context.js';
import { db } from '../db/service.js';
import { batchGetMixed } from '../db/batch.js';
import { queryProjected, type QueryParams } from '../db/projected.js';
import type { WikiPageItem, WikiSpaceItem, WikiTermItem } from '../db/entities/index.js';
import { wordsOf } from '../search/index.js';
import { readContents } from './content.js';
import { presentPageSummary, spacePages } from './pages.js';
import { judgePage, pageTermsOf, snippetOf } from './search-rule.js';
import { enterSpace, visibleSpaces } from './spaces.js';

/*
 * Wiki search (docs/features.md, Wiki) over the pages the caller may see, by the rule of search-rule.ts:
 * every search word begins a word of the title or current content; title matches first, then by
 * title. Results carry a snippet of at most 2 × SNIPPET_RADIUS characters around the first
 * match, never a page.
 *
 * From the index (lib/wiki/search-index.ts):
 * 1. the organization's pending pages (written since the events function last indexed them),
 *    one Query, read beside the spaces;
 * 2. each space's entries of the terms each search word begins (one Query per word and space,
 *    in parallel), grouped by page and judged;
 * 3. the matching pages' items (BatchGetItem), for visibility, folder and order; a pending
 *    page's entries are set aside and the page itself, with its content, judged by the same rule;
 * 4. only the page of results' content, for their snippets.
 * The cost follows the matching pages, never the wiki's other pages or its size. When too many
 * pages are pending, it reads every visible page's content instead: the full read.
 */

/** Where a search looks: a space and whether the caller sees its published pages only. */
interface Scope {
  space: WikiSpaceItem;
  publishedOnly: boolean;
}

interface Match {
  page: WikiPageItem;
  inTitle: boolean;
  /** The page's content, when it was read to judge it. */
  content?: string;
}

/** More pages pending than this (a bulk import in progress) and the search reads the pages instead. */
const MAX_PENDING = 50;

const visibleIn = (scope: Scope, folderId: string | undefined) => (page: WikiPageItem) =>
  (!scope.publishedOnly || page.isPublished) && (folderId === undefined || page.folderId === folderId);

const refOf = (page: WikiPageItem) => ({ orgId: page.orgId, spaceId: page.spaceId, pageId: page.pageId, version: page.version, chunkCount: page.chunkCount });

/** Pages judged by their content (the full read, and pending pages). */
async function judgeByContent(pages: WikiPageItem[], words: string[]): Promise<Match[]> {
  const contents = await readContents(pages.map(refOf));
  return pages.flatMap((page) => {
    const { terms, titleTerms } = pageTermsOf(page.title, contents.get(page.pageId) ?? '');
    const judged = judgePage(words, terms, [...titleTerms]);
    return judged ? [{ page, inTitle: judged.inTitle, content: contents.get(page.pageId) ?? '' }] : [];
  });
}

/** The full read: every visible page of the spaces, with its content. */
async function matchesByReading(orgId: string, scopes: Scope[], words: string[], folderId?: string): Promise<Match[]> {
  const perSpace = await Promise.all(scopes.map(async (scope) => (await spacePages(orgId, scope.space.spaceId)).filter(visibleIn(scope, folderId))));
  return judgeByContent(perSpace.flat(), words);
}

type Entry = Pick<WikiTermItem, 'pageId' | 'term' | 'inTitle'>;
const ENTRY_FIELDS = ['pageId', 'term', 'inTitle'] as const;

/** The entries of every term that begins with `prefix` in one space (a consistent Query). */
async function readTerm(orgId: string, spaceId: string, prefix: string): Promise<Entry[]> {
  const params = db().entities.wikiTerm.query.byTerm({ orgId, spaceId }).begins({ term: prefix }).params() as QueryParams;
  return (await queryProjected<Entry>(params, ENTRY_FIELDS)).items;
}

/**
 * The organization's pending pages (read before any entry: a page indexed after this read was
 * written before it), at most one more than MAX_PENDING: past it the search reads the pages
 * themselves however many are pending, so a backlog of thousands is not read.
 */
async function pendingPages(orgId: string) {
  return (await db().entities.wikiSearchPending.query.byOrganization({ orgId }).go({ count: MAX_PENDING + 1, consistent: true, attributes: ['spaceId', 'pageId'] })).data;
}

/** From the index: the matching pages, or undefined when too many pages are pending. */
async function matchesFromIndex(orgId: string, scopes: Scope[], words: string[], pending: { spaceId: string; pageId: string }[], folderId?: string): Promise<Match[] | undefined> {
  if (pending.length > MAX_PENDING) return undefined;
  const scopeOf = new Map(scopes.map((scope) => [scope.space.spaceId, scope]));
  const pendingHere = pending.filter(({ spaceId }) => scopeOf.has(spaceId));
  const pendingIds = new Set(pending.map(({ pageId }) => pageId));
  const lookups = scopes.flatMap((scope) => words.map((word) => ({ spaceId: scope.space.spaceId, word })));
  const found = await mapLimited(lookups, 8, ({ spaceId, word }) => readTerm(orgId, spaceId, word));
  // Per page: the terms found, and those of its title; pending pages are judged from their content instead.
  const byPage = new Map<string, { spaceId: string; terms: string[]; titleTerms: string[] }>();
  found.forEach((entries, index) => {
    for (const entry of entries) {
      if (pendingIds.has(entry.pageId)) continue;
      const page = byPage.get(entry.pageId) ?? { spaceId: lookups[index]!.spaceId, terms: [], titleTerms: [] };
      page.terms.push(entry.term);
      if (entry.inTitle) page.titleTerms.push(entry.term);
      byPage.set(entry.pageId, page);
    }
  });
  const judged = new Map([...byPage].flatMap(([pageId, page]) => {
    const match = judgePage(words, page.terms, page.titleTerms);
    return match ? [[pageId, { spaceId: page.spaceId, inTitle: match.inTitle }] as const] : [];
  }));
  const keys = [...[...judged].map(([pageId, { spaceId }]) => ({ spaceId, pageId })), ...pendingHere];
  const pages = ((await batchGetMixed(keys.map(({ spaceId, pageId }) => ({ entity: db().entities.wikiPage, key: { orgId, spaceId, pageId } })))) as (WikiPageItem | undefined)[])
    // A page deleted since it was indexed is missing; one the caller may not see is left out.
    .filter((page): page is WikiPageItem => page !== undefined && visibleIn(scopeOf.get(page.spaceId)!, folderId)(page));
  const fromIndex = pages.filter((page) => judged.has(page.pageId)).map((page) => ({ page, inTitle: judged.get(page.pageId)!.inTitle }));
  return [...fromIndex, ...(await judgeByContent(pages.filter((page) => pendingIds.has(page.pageId)), words))];
}

/** The matching pages of `scopes`, title matches first, then by title; `pending` is the organization's pending pages, read beside the scopes. */
async function findPages(ctx: DomainContext, scopes: Scope[], words: string[], pending: Promise<{ spaceId: string; pageId: string }[]> | undefined, folderId?: string): Promise<Match[]> {
  if (words.length === 0) return [];
  const orgId = ctx.org.orgId;
  const matches = (pending && (await matchesFromIndex(orgId, scopes, words, await pending, folderId))) ?? (await matchesByReading(orgId, scopes, words, folderId));
  return matches.sort((a, b) => Number(b.inTitle) - Number(a.inTitle) || a.page.title.localeCompare(b.page.title) || a.page.pageId.localeCompare(b.page.pageId));
}

/** One page of matches, with the snippets of that page's results only (their content read, unless it was to judge them). */
async function pageOfMatches<T>(matches: Match[], words: string[], paging: { page: number; limit: number }, present: (match: Match, snippet: string) => T): Promise<Page<T>> {
  const result = pageOf(matches, paging.page, paging.limit);
  const contents = await readContents(result.items.filter((match) => match.content === undefined).map(({ page }) => refOf(page)));
  return { ...result, items: result.items.map((match) => present(match, snippetOf(match.page.title, match.content ?? contents.get(match.page.pageId) ?? '', words))) };
}

/** The pending pages, read beside the spaces. */
const pendingRead = (ctx: DomainContext) => pendingPages(ctx.org.orgId);

/** GET …/spaces/{spaceId}/pages?search=: one space's matching pages, paginated. */
export async function searchSpace(ctx: DomainContext, spaceId: string, query: string, paging: { page: number; limit: number }, folderId?: string) {
  const pending = pendingRead(ctx);
  const [{ space, access }] = await Promise.all([enterSpace(ctx, spaceId, 'view'), pending]);
  const words = wordsOf(query);
  const matches = await findPages(ctx, [{ space, publishedOnly: access.publishedOnly }], words, pending, folderId);
  return pageOfMatches(matches, words, paging, ({ page }, snippet) => ({ ...presentPageSummary(page), snippet }));
}

/** GET /wiki/search?q=: matching pages across every space the caller may view, paginated. */
export async function searchWiki(ctx: DomainContext, query: string, paging: { page: number; limit: number }) {
  const pending = pendingRead(ctx);
  const [spaces] = await Promise.all([visibleSpaces(ctx), pending]);
  const words = wordsOf(query);
  const matches = await findPages(ctx, spaces.map(({ space, access }) => ({ space, publishedOnly: access.publishedOnly })), words, pending);
  const spaceOf = new Map(spaces.map(({ space }) => [space.spaceId, space]));
  return pageOfMatches(matches, words, paging, ({ page }, snippet) => presentHit(spaceOf.get(page.spaceId)!, page, snippet));
}

const presentHit = (space: WikiSpaceItem, page: WikiPageItem, snippet: string) => ({
  space: { id: space.spaceId, name: space.name, slug: space.slug },
  pageId: page.pageId,
  title: page.title,
  folderId: page.folderId ?? null,
  snippet,
  updatedAt: page.updatedAt,
});
