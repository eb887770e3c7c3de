import { AppError, invalidField, notFound } from '../core/errors.js';
import { newId } from '../core/ids.js';
import { pageOf } from '../core/pages.js';
import type { DomainContext } from '../db/context.js';
import { db } from '../db/service.js';
import { guarded, transact, type TransactionEntities, type TransactionItem } from '../db/transact.js';
import { LostRace, retryLostRaces } from '../db/races.js';
import { countCall, rateWindow, reportWindows } from '../db/rate-limit.js';
import { versionKeyOf, type WikiPageItem, type WikiRole, type WikiVersionItem } from '../db/entities/index.js';
import { eventPuts, jobRecord } from '../events/index.js';
import { chunkCountOf, contentPuts, readContent } from './content.js';
import { enterSpace, type EnteredSpace } from './spaces.js';
import { spaceLive } from './folders.js';
import { WIKI_PURGE_JOB } from './purge.js';
import { pageIndexItems } from './search-index.js';

/*
 * Pages of a wiki space (docs/features.md, Wiki). Every change of title or content makes a version (its
 * number, author, time and title, and its content in chunks: lib/wiki/content.ts), written in
 * the same transaction as the page, guarded by the page's `revision`, with the search index's
 * marker and job (lib/wiki/search-index.ts). A PATCH may name the
 * version it edits (`expectedVersion`): another one is 409 STALE_UPDATE with the current one.
 */

/** Pages created per organization and hour (README.md, Retries and limits). */
export const PAGES_PER_HOUR = 60;
/** Largest content, in UTF-16 code units (JavaScript string length). */
export const MAX_CONTENT_LENGTH = 500_000;

export interface EnteredPage extends EnteredSpace {
  page: WikiPageItem;
}

/**
 * The space (with the caller's access) and one of its pages, read in parallel; 404 for an
 * unknown page, and for an unpublished one when the caller sees published pages only.
 */
async function enterPage(ctx: DomainContext, spaceId: string, pageId: string, needed: WikiRole): Promise<EnteredPage> {
  const entered = await enterSpace(ctx, spaceId, needed, [{ entity: db().entities.wikiPage, key: { orgId: ctx.org.orgId, spaceId, pageId } }]);
  const page = entered.found[0] as WikiPageItem | undefined;
  if (!page || (entered.access.publishedOnly && !page.isPublished)) throw notFound('Page');
  return { ...entered, page };
}

const versionRef = (page: WikiPageItem) => ({ orgId: page.orgId, spaceId: page.spaceId, pageId: page.pageId, version: page.version, chunkCount: page.chunkCount });

/** A page as lists show it (no content). */
export function presentPageSummary(page: WikiPageItem) {
  return {
    id: page.pageId,
    spaceId: page.spaceId,
    title: page.title,
    folderId: page.folderId ?? null,
    isPublished: page.isPublished,
    order: page.order,
    version: page.version,
    contentLength: page.contentLength,
    createdBy: { id: page.createdById, name: page.createdByName },
    updatedBy: { id: page.updatedById, name: page.updatedByName },
    createdAt: page.createdAt,
    updatedAt: page.updatedAt,
  };
}

export const presentPage = (page: WikiPageItem, content: string) => ({ ...presentPageSummary(page), content });

/** Every page of a space (one Query). */
export async function spacePages(orgId: string, spaceId: string): Promise<WikiPageItem[]> {
  return (await db().entities.wikiPage.query.bySpace({ orgId, spaceId }).go({ pages: 'all' })).data;
}

/** The pages of a space the caller may see (published ones only for customer users). */
export async function visiblePages(orgId: string, spaceId: string, publishedOnly: boolean): Promise<WikiPageItem[]> {
  return (await spacePages(orgId, spaceId)).filter((page) => !publishedOnly || page.isPublished);
}

/** A folder a page goes into: one of the space's (400 naming `folderId` otherwise), re-checked inside the write. */
async function folderCheck(orgId: string, spaceId: string, folderId: string | null | undefined): Promise<(e: TransactionEntities) => TransactionItem[]> {
  if (!folderId) return () => [];
  const folder = (await db().entities.wikiFolder.get({ orgId, spaceId, folderId }).go({ consistent: true })).data;
  if (!folder) throw invalidField('folderId', 'Unknown folder of this space');
  return (e) => [
    guarded(e.wikiFolder.check({ orgId, spaceId, folderId }).where((attr, op) => op.exists(attr.folderId)).commit(), () => invalidField('folderId', 'Unknown folder of this space')),
  ];
}

/** The version item of a page's `version`, made by the caller now. */
function newVersion(ctx: DomainContext, page: WikiPageItem, restoredFrom?: number): WikiVersionItem {
  return {
    orgId: page.orgId,
    spaceId: page.spaceId,
    pageId: page.pageId,
    versionKey: versionKeyOf(page.version),
    versionId: newId('wpv'),
    number: page.version,
    title: page.title,
    chunkCount: page.chunkCount,
    contentLength: page.contentLength,
    authorId: ctx.actor.userId,
    authorName: ctx.actor.name,
    ...(restoredFrom !== undefined ? { restoredFrom } : {}),
    createdAt: page.updatedAt,
  };
}

export interface PageInput {
  title: string;
  content?: string;
  folderId?: string | null;
  isPublished?: boolean;
  order?: number;
}

/**
 * POST …/pages (edit): the page, its version 1 and content, and the organization's hourly
 * count in one transaction (a refused create counts nothing).
 */
export async function createPage(ctx: DomainContext, spaceId: string, input: PageInput) {
  await enterSpace(ctx, spaceId, 'edit');
  const inFolder = await folderCheck(ctx.org.orgId, spaceId, input.folderId);
  const now = ctx.clock.now();
  const content = input.content ?? '';
  const page: WikiPageItem = {
    orgId: ctx.org.orgId,
    spaceId,
    pageId: newId('wpg'),
    title: input.title,
    ...(input.folderId ? { folderId: input.folderId } : {}),
    isPublished: input.isPublished ?? false,
    order: input.order ?? 0,
    version: 1,
    revision: 1,
    chunkCount: chunkCountOf(content),
    contentLength: content.length,
    createdById: ctx.actor.userId,
    createdByName: ctx.actor.name,
    updatedById: ctx.actor.userId,
    updatedByName: ctx.actor.name,
    createdAt: now.toISOString(),
    updatedAt: now.toISOString(),
  };
  const pageWindow = rateWindow(ctx.org.orgId, 'wiki-page', PAGES_PER_HOUR, 3600, now);
  await transact((e) => [
    guarded(e.wikiPage.create(page).commit(), () => new LostRace()),
    e.wikiVersion.create(newVersion(ctx, page)).commit(),
    ...contentPuts(e, page, content),
    ...pageIndexItems(e, page, ctx.clock),
    ...inFolder(e),
    spaceLive(e, ctx.org.orgId, spaceId),
    countCall(e, pageWindow, now, `At most ${PAGES_PER_HOUR} wiki pages per hour; retry later`),
  ]);
  await reportWindows([pageWindow], now);
  return presentPage(page, content);
}

/** GET …/pages/{pageId}: with its current content. */
export async function getPage(ctx: DomainContext, spaceId: string, pageId: string) {
  const { page } = await enterPage(ctx, spaceId, pageId, 'view');
  return presentPage(page, await readContent(versionRef(page)));
}

export interface PagePatch extends Partial<PageInput> {
  /** The version the change is based on: another current version is 409 STALE_UPDATE. */
  expectedVersion?: number;
}

const staleUpdate = (page: WikiPageItem) =>
  new AppError('STALE_UPDATE', `The page is at version ${page.version}; reload it and apply the change again`, { currentVersion: page.version, updatedAt: page.updatedAt });

interface SaveOptions {
  /** The new content (undefined: unchanged). */
  content?: string;
  /** The error when the page changed since it was read. */
  stale: () => Error;
  /** Set by a restore: the version restored (a new version is made even if nothing differs). */
  restoredFrom?: number;
  /** Further items of the transaction (a folder's check). */
  more?: (e: TransactionEntities) => TransactionItem[];
}

/**
 * Writes `after` over `before` in one transaction guarded by `before.revision`, with a new
 * version (its item and content) when the title or the content changes.
 */
async function savePage(ctx: DomainContext, before: WikiPageItem, after: WikiPageItem, options: SaveOptions): Promise<{ page: WikiPageItem; content: string }> {
  const titleChanges = after.title !== before.title || options.restoredFrom !== undefined;
  // The current content is read only when it is needed: to answer with, or to compare a new content of the same length.
  const needsCurrent = options.content === undefined || (!titleChanges && options.content.length === before.contentLength);
  const current = needsCurrent ? await readContent(versionRef(before)) : undefined;
  const text = options.content ?? current!;
  const versioned = titleChanges || text !== current;
  const saved: WikiPageItem = {
    ...after,
    ...(versioned ? { version: before.version + 1, chunkCount: chunkCountOf(text), contentLength: text.length } : {}),
    revision: before.revision + 1,
    updatedById: ctx.actor.userId,
    updatedByName: ctx.actor.name,
    updatedAt: ctx.clock.now().toISOString(),
  };
  await transact((e) => [
    guarded(
      e.wikiPage
        .put(saved)
        .where((attr, op) => op.eq(attr.revision, before.revision))
        .commit(),
      options.stale,
    ),
    ...(versioned ? [e.wikiVersion.create(newVersion(ctx, saved, options.restoredFrom)).commit(), ...contentPuts(e, saved, text), ...pageIndexItems(e, saved, ctx.clock)] : []),
    ...(options.more?.(e) ?? []),
  ]);
  return { page: saved, content: text };
}

/**
 * PATCH …/pages/{pageId} (edit): title, content, folderId (null: the top), isPublished,
 * order. A change of title or content makes a new version.
 */
export async function updatePage(ctx: DomainContext, spaceId: string, pageId: string, input: PagePatch) {
  return retryLostRaces(async () => {
    const { page } = await enterPage(ctx, spaceId, pageId, 'edit');
    if (input.expectedVersion !== undefined && input.expectedVersion !== page.version) throw staleUpdate(page);
    const inFolder = input.folderId !== undefined ? await folderCheck(ctx.org.orgId, spaceId, input.folderId) : () => [];
    const after: WikiPageItem = {
      ...page,
      ...(input.title !== undefined ? { title: input.title } : {}),
      ...(input.folderId ? { folderId: input.folderId } : {}),
      ...(input.isPublished !== undefined ? { isPublished: input.isPublished } : {}),
      ...(input.order !== undefined ? { order: input.order } : {}),
    };
    if (input.folderId === null) delete after.folderId;
    // A concurrent write: read again; `expectedVersion` is then checked against the new state.
    const stale = () => new LostRace('The page changed concurrently; retry');
    const saved = await savePage(ctx, page, after, { ...(input.content !== undefined ? { content: input.content } : {}), stale, more: inFolder });
    return presentPage(saved.page, saved.content);
  });
}

/** DELETE …/pages/{pageId} (edit): the page goes at once; its versions and content in the background (lib/wiki/purge.ts). */
export async function deletePage(ctx: DomainContext, spaceId: string, pageId: string): Promise<void> {
  const { page } = await enterPage(ctx, spaceId, pageId, 'edit');
  const purge = jobRecord(WIKI_PURGE_JOB, page.orgId, ctx.clock, { subjectId: spaceId, data: { spaceId, pageIds: [pageId] } });
  await transact((e) => [
    guarded(e.wikiPage.delete({ orgId: page.orgId, spaceId, pageId }).where((attr, op) => op.exists(attr.pageId)).commit(), () => notFound('Page')),
    ...eventPuts(e, [purge]),
  ]);
}

export function presentVersion(version: WikiVersionItem) {
  return {
    id: version.versionId,
    pageId: version.pageId,
    number: version.number,
    title: version.title,
    contentLength: version.contentLength,
    author: { id: version.authorId, name: version.authorName },
    restoredFrom: version.restoredFrom ?? null,
    createdAt: version.createdAt,
  };
}

/** Version history needs more than published-only access (drafts are in it). */
async function enterHistory(ctx: DomainContext, spaceId: string, pageId: string, needed: WikiRole): Promise<EnteredPage> {
  const entered = await enterPage(ctx, spaceId, pageId, needed);
  if (entered.access.publishedOnly) throw notFound('Page');
  return entered;
}

async function versionsOf(page: WikiPageItem): Promise<WikiVersionItem[]> {
  const { data } = await db().entities.wikiVersion.query.byPage({ orgId: page.orgId, spaceId: page.spaceId, pageId: page.pageId }).go({ pages: 'all', order: 'desc' });
  return data;
}

/** GET …/pages/{pageId}/versions: newest first, paginated. */
export async function listVersions(ctx: DomainContext, spaceId: string, pageId: string, query: { page: number; limit: number }) {
  const { page } = await enterHistory(ctx, spaceId, pageId, 'view');
  return pageOf((await versionsOf(page)).map(presentVersion), query.page, query.limit);
}

async function versionOrNotFound(page: WikiPageItem, versionId: string): Promise<WikiVersionItem> {
  const version = (await versionsOf(page)).find((candidate) => candidate.versionId === versionId);
  if (!version) throw notFound('Version of the page');
  return version;
}

/** GET …/pages/{pageId}/versions/{versionId}: one version with its content. */
export async function getVersion(ctx: DomainContext, spaceId: string, pageId: string, versionId: string) {
  const { page } = await enterHistory(ctx, spaceId, pageId, 'view');
  const version = await versionOrNotFound(page, versionId);
  const content = await readContent({ orgId: page.orgId, spaceId, pageId, version: version.number, chunkCount: version.chunkCount });
  return { ...presentVersion(version), content };
}

/** POST …/versions/{versionId}/restore (edit): a new version with that version's title and content. */
export async function restoreVersion(ctx: DomainContext, spaceId: string, pageId: string, versionId: string) {
  return retryLostRaces(async () => {
    const { page } = await enterHistory(ctx, spaceId, pageId, 'edit');
    const version = await versionOrNotFound(page, versionId);
    const content = await readContent({ orgId: page.orgId, spaceId, pageId, version: version.number, chunkCount: version.chunkCount });
    const saved = await savePage(ctx, page, { ...page, title: version.title }, { content, stale: () => new LostRace('The page changed concurrently; retry'), restoredFrom: version.number });
    return presentPage(saved.page, saved.content);
  });
}

/** GET …/pages (without `search`): the space's pages the caller may see, in one folder when asked, by order then title, paginated. */
export async function listPages(ctx: DomainContext, spaceId: string, query: { folderId?: string; page: number; limit: number }) {
  const [{ access }, all] = await Promise.all([enterSpace(ctx, spaceId, 'view'), spacePages(ctx.org.orgId, spaceId)]);
  const pages = all
    .filter((page) => (!access.publishedOnly || page.isPublished) && (query.folderId === undefined || page.folderId === query.folderId))
    .sort((a, b) => a.order - b.order || a.title.localeCompare(b.title) || a.pageId.localeCompare(b.pageId));
  return pageOf(pages.map((page) => ({ ...presentPageSummary(page), snippet: null })), query.page, query.limit);
}
