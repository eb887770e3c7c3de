import { pageOf } from '../core/pages.js';
import type { DomainContext } from '../db/context.js';
import type { WikiPageItem, WikiSpaceItem } from '../db/entities/index.js';
import { readContents } from './content.js';
import { presentPageSummary, spacePages, visiblePages } from './pages.js';
import { enterSpace, visibleSpaces } from './spaces.js';

/*
 * Wiki search (spec §4.13): titles and current content, case-insensitive, over the pages the
 * caller may see. It reads the pages' current content (BatchGetItems of their chunks) and
 * scans it, so its cost grows with the wiki's size: one space per request for a space's
 * search, every space the caller may view for the organization-wide one. Results carry a
 * snippet of at most 2 × SNIPPET_RADIUS characters around the first match, never a page.
 */

export const SNIPPET_RADIUS = 80;

const isLowSurrogate = (code: number) => code >= 0xdc00 && code <= 0xdfff;

/** The text around the first case-insensitive occurrence of `needle` (lower case), or undefined. */
export function snippetAround(text: string, needle: string): string | undefined {
  const at = text.toLowerCase().indexOf(needle);
  if (at < 0) return undefined;
  let start = Math.max(0, at - SNIPPET_RADIUS);
  let end = Math.min(text.length, at + needle.length + SNIPPET_RADIUS);
  if (start > 0 && isLowSurrogate(text.charCodeAt(start))) start -= 1;
  if (end < text.length && isLowSurrogate(text.charCodeAt(end))) end += 1;
  return `${start > 0 ? '…' : ''}${text.slice(start, end).replace(/\s+/g, ' ').trim()}${end < text.length ? '…' : ''}`;
}

export interface PageMatch {
  page: WikiPageItem;
  snippet: string;
}

/** The pages whose title or current content contains `query` (any case), title matches first, then by title. */
export async function matchPages(pages: WikiPageItem[], query: string): Promise<PageMatch[]> {
  const needle = query.toLowerCase();
  const contents = await readContents(pages.map((page) => ({ orgId: page.orgId, spaceId: page.spaceId, pageId: page.pageId, version: page.version, chunkCount: page.chunkCount })));
  const matches: (PageMatch & { inTitle: boolean })[] = [];
  for (const page of pages) {
    const inTitle = page.title.toLowerCase().includes(needle);
    const content = contents.get(page.pageId) ?? '';
    const snippet = snippetAround(content, needle) ?? (inTitle ? snippetAround(page.title, needle) : undefined);
    if (snippet !== undefined) matches.push({ page, snippet, inTitle });
  }
  return matches
    .sort((a, b) => Number(b.inTitle) - Number(a.inTitle) || a.page.title.localeCompare(b.page.title) || a.page.pageId.localeCompare(b.page.pageId))
    .map(({ page, snippet }) => ({ page, snippet }));
}

/** GET …/spaces/{spaceId}/pages?search=: one space's matching pages, paginated. */
export async function searchSpace(ctx: DomainContext, spaceId: string, query: string, paging: { page: number; limit: number }, folderId?: string) {
  const [{ access }, all] = await Promise.all([enterSpace(ctx, spaceId, 'view'), spacePages(ctx.org.orgId, spaceId)]);
  const pages = all.filter((page) => (!access.publishedOnly || page.isPublished) && (folderId === undefined || page.folderId === folderId));
  const matches = await matchPages(pages, query);
  return pageOf(matches.map(({ page, snippet }) => ({ ...presentPageSummary(page), snippet })), paging.page, paging.limit);
}

/** GET /wiki/search?q=: matching pages across every space the caller may view, paginated. */
export async function searchWiki(ctx: DomainContext, query: string, paging: { page: number; limit: number }) {
  const spaces = await visibleSpaces(ctx);
  const perSpace = await Promise.all(
    spaces.map(async ({ space, access }) => ({ space, matches: await matchPages(await visiblePages(ctx.org.orgId, space.spaceId, access.publishedOnly), query) })),
  );
  const results = perSpace.flatMap(({ space, matches }) => matches.map((match) => ({ space, ...match })));
  return pageOf(results.map(({ space, page, snippet }) => presentHit(space, page, snippet)), paging.page, paging.limit);
}

const presentHit = (space: WikiSpaceItem, page: WikiPageItem, snippet: string) => ({
  space: { id: space.spaceId, name: space.name, slug: space.slug },
  pageId: page.pageId,
  title: page.title,
  folderId: page.folderId ?? null,
  snippet,
  updatedAt: page.updatedAt,
});
