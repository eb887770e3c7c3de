import { AppError, invalidField, notFound } from '../core/errors.js';
import { newId } from '../core/ids.js';
import type { DomainContext } from '../db/context.js';
import { db } from '../db/service.js';
import { guarded, inTransactionChunks, transact, type TransactionEntities, type TransactionItem } from '../db/transact.js';
import { LostRace, retryLostRaces } from '../db/races.js';
import type { WikiFolderItem, WikiPageItem } from '../db/entities/index.js';
import { eventPuts, jobRecord } from '../events/index.js';
import { enterSpace } from './spaces.js';
import { WIKI_PURGE_JOB } from './purge.js';

/*
 * Folders of a wiki space (docs/features.md, Wiki; docs/design/errors.md): nested by `parentId`, ordered by `order` then
 * name. A folder never becomes its own descendant: a move checks the new parent's chain of
 * ancestors as read and, inside its transaction, that none of them moved meanwhile. A page or
 * folder whose folder is gone (a race with a delete) shows at the top of the space.
 */

/** How deep folders nest. */
export const MAX_FOLDER_DEPTH = 20;

export function presentFolder(folder: WikiFolderItem) {
  return {
    id: folder.folderId,
    spaceId: folder.spaceId,
    name: folder.name,
    parentId: folder.parentId ?? null,
    order: folder.order,
    createdAt: folder.createdAt,
    updatedAt: folder.updatedAt,
  };
}

export const byOrderThenName = <T extends { order: number }>(name: (item: T) => string) => (a: T, b: T) =>
  a.order - b.order || name(a).localeCompare(name(b));

/** Every folder of a space, by id. */
export async function foldersOf(orgId: string, spaceId: string): Promise<Map<string, WikiFolderItem>> {
  const { data } = await db().entities.wikiFolder.query.bySpace({ orgId, spaceId }).go({ pages: 'all', consistent: true });
  return new Map(data.map((folder) => [folder.folderId, folder]));
}

/** The chain from `folderId` up to the top (the folder first); 400 naming `field` for an unknown folder. */
function chainOf(folders: Map<string, WikiFolderItem>, folderId: string, field: string): WikiFolderItem[] {
  const chain: WikiFolderItem[] = [];
  for (let current = folders.get(folderId); current; current = current.parentId ? folders.get(current.parentId) : undefined) {
    if (chain.includes(current)) break;
    chain.push(current);
  }
  if (chain.length === 0) throw invalidField(field, 'Unknown folder of this space');
  return chain;
}

/** Transaction items: each folder of the chain still has the parent it was read with (LostRace otherwise). */
function chainUnchanged(e: TransactionEntities, chain: WikiFolderItem[]): TransactionItem[] {
  return chain.map((folder) =>
    guarded(
      e.wikiFolder
        .check({ orgId: folder.orgId, spaceId: folder.spaceId, folderId: folder.folderId })
        .where((attr, op) => (folder.parentId ? op.eq(attr.parentId, folder.parentId) : op.notExists(attr.parentId)))
        .commit(),
      () => new LostRace('The folders changed concurrently; retry'),
    ),
  );
}

/** GET …/folders: the folders under `parentId` (the top level when absent), by order then name. */
export async function listFolders(ctx: DomainContext, spaceId: string, query: { parentId?: string }) {
  const [, folders] = await Promise.all([enterSpace(ctx, spaceId, 'view'), foldersOf(ctx.org.orgId, spaceId)]);
  return [...folders.values()]
    .filter((folder) => (query.parentId ? folder.parentId === query.parentId : !folder.parentId || !folders.has(folder.parentId)))
    .sort(byOrderThenName((folder) => folder.name))
    .map(presentFolder);
}

export interface FolderInput {
  name: string;
  parentId?: string | null;
  order?: number;
}

/** POST …/folders (edit): under a folder of the same space (400 otherwise), at most MAX_FOLDER_DEPTH deep. */
export async function createFolder(ctx: DomainContext, spaceId: string, input: FolderInput) {
  return retryLostRaces(async () => {
    const [, folders] = await Promise.all([enterSpace(ctx, spaceId, 'edit'), foldersOf(ctx.org.orgId, spaceId)]);
    const chain = input.parentId ? chainOf(folders, input.parentId, 'parentId') : [];
    if (chain.length >= MAX_FOLDER_DEPTH) throw invalidField('parentId', `Folders nest at most ${MAX_FOLDER_DEPTH} deep`);
    const now = ctx.clock.now().toISOString();
    const folder: WikiFolderItem = {
      orgId: ctx.org.orgId,
      spaceId,
      folderId: newId('wfd'),
      name: input.name,
      ...(input.parentId ? { parentId: input.parentId } : {}),
      order: input.order ?? 0,
      createdAt: now,
      updatedAt: now,
    };
    await transact((e) => [guarded(e.wikiFolder.create(folder).commit(), () => new LostRace()), ...chainUnchanged(e, chain), spaceLive(e, ctx.org.orgId, spaceId)]);
    return presentFolder(folder);
  });
}

/** Transaction item: the space still exists (a write racing its deletion writes nothing). */
export function spaceLive(e: TransactionEntities, orgId: string, spaceId: string): TransactionItem {
  return guarded(e.wikiSpace.check({ orgId, spaceId }).where((attr, op) => op.exists(attr.spaceId)).commit(), () => notFound('Wiki space'));
}

function folderOrNotFound(folders: Map<string, WikiFolderItem>, folderId: string): WikiFolderItem {
  const folder = folders.get(folderId);
  if (!folder) throw notFound('Folder');
  return folder;
}

/** GET …/folders/{folderId}. */
export async function getFolder(ctx: DomainContext, spaceId: string, folderId: string) {
  const { found } = await enterSpace(ctx, spaceId, 'view', [{ entity: db().entities.wikiFolder, key: { orgId: ctx.org.orgId, spaceId, folderId } }]);
  const folder = found[0] as WikiFolderItem | undefined;
  if (!folder) throw notFound('Folder');
  return presentFolder(folder);
}

/**
 * PATCH …/folders/{folderId} (edit): name, order, and `parentId` (null: to the top). Moving a
 * folder into itself or one of its descendants is 400.
 */
export async function updateFolder(ctx: DomainContext, spaceId: string, folderId: string, input: Partial<FolderInput>) {
  return retryLostRaces(async () => {
    const [, folders] = await Promise.all([enterSpace(ctx, spaceId, 'edit'), foldersOf(ctx.org.orgId, spaceId)]);
    const folder = folderOrNotFound(folders, folderId);
    const moves = input.parentId !== undefined && (input.parentId ?? undefined) !== folder.parentId;
    const chain = moves && input.parentId ? chainOf(folders, input.parentId, 'parentId') : [];
    if (chain.some((ancestor) => ancestor.folderId === folderId)) throw invalidField('parentId', 'A folder cannot move into itself or one of its descendants');
    if (chain.length + depthBelow(folders, folderId) >= MAX_FOLDER_DEPTH) throw invalidField('parentId', `Folders nest at most ${MAX_FOLDER_DEPTH} deep`);
    const after: WikiFolderItem = {
      ...folder,
      ...(input.name !== undefined ? { name: input.name } : {}),
      ...(input.order !== undefined ? { order: input.order } : {}),
      ...(moves && input.parentId ? { parentId: input.parentId } : {}),
      updatedAt: ctx.clock.now().toISOString(),
    };
    if (moves && !input.parentId) delete after.parentId;
    await transact((e) => [
      guarded(
        e.wikiFolder
          .put(after)
          .where((attr, op) => op.eq(attr.updatedAt, folder.updatedAt))
          .commit(),
        () => new LostRace('The folder changed concurrently; retry'),
      ),
      ...chainUnchanged(e, chain),
    ]);
    return presentFolder(after);
  });
}

/** Levels of folders under `folderId` (0 without subfolders). */
function depthBelow(folders: Map<string, WikiFolderItem>, folderId: string): number {
  const children = [...folders.values()].filter((folder) => folder.parentId === folderId);
  return children.length === 0 ? 0 : 1 + Math.max(...children.map((child) => depthBelow(folders, child.folderId)));
}

/** The folder and every folder under it, deepest first. */
function subtreeOf(folders: Map<string, WikiFolderItem>, folderId: string): WikiFolderItem[] {
  const children = [...folders.values()].filter((folder) => folder.parentId === folderId);
  return [...children.flatMap((child) => subtreeOf(folders, child.folderId)), folders.get(folderId)!];
}

/**
 * DELETE …/folders/{folderId} (edit): a folder with subfolders or pages is 409
 * FOLDER_NOT_EMPTY unless `deleteContents`; with it, the pages under it and its subfolders go
 * too, in transactions of at most 100 items (deepest first, the folder last; each carries the
 * purge record of its pages' versions and content). Should the request end half-way, the
 * same DELETE finishes the work.
 */
export async function deleteFolder(ctx: DomainContext, spaceId: string, folderId: string, deleteContents: boolean): Promise<void> {
  const [, folders, pages] = await Promise.all([
    enterSpace(ctx, spaceId, 'edit'),
    foldersOf(ctx.org.orgId, spaceId),
    db().entities.wikiPage.query.bySpace({ orgId: ctx.org.orgId, spaceId }).go({ pages: 'all', consistent: true }),
  ]);
  folderOrNotFound(folders, folderId);
  const subtree = subtreeOf(folders, folderId);
  const inside = new Set(subtree.map((folder) => folder.folderId));
  const contained: WikiPageItem[] = pages.data.filter((page) => page.folderId && inside.has(page.folderId));
  if (!deleteContents && (subtree.length > 1 || contained.length > 0)) {
    throw new AppError('FOLDER_NOT_EMPTY', 'The folder has subfolders or pages; delete them first or pass deleteContents=true', {
      folders: subtree.length - 1,
      pages: contained.length,
    });
  }
  const deletions: { pageId?: string; build: (e: TransactionEntities) => TransactionItem }[] = [
    ...contained.map((page) => ({ pageId: page.pageId, build: (e: TransactionEntities) => e.wikiPage.delete({ orgId: page.orgId, spaceId, pageId: page.pageId }).commit() })),
    ...subtree.map((folder) => ({ build: (e: TransactionEntities) => e.wikiFolder.delete({ orgId: folder.orgId, spaceId, folderId: folder.folderId }).commit() })),
  ];
  // One item of each transaction is kept for the purge record of its pages.
  for (const chunk of inTransactionChunks(deletions, 1)) {
    const pageIds = chunk.flatMap((deletion) => (deletion.pageId ? [deletion.pageId] : []));
    const purge = pageIds.length > 0 ? [jobRecord(WIKI_PURGE_JOB, ctx.org.orgId, ctx.clock, { subjectId: spaceId, data: { spaceId, pageIds } })] : [];
    await transact((e) => [...chunk.map((deletion) => deletion.build(e)), ...eventPuts(e, purge)]);
  }
}

interface TreeFolder {
  id: string;
  name: string;
  order: number;
  folders: TreeFolder[];
  pages: TreePage[];
}
interface TreePage {
  id: string;
  title: string;
  order: number;
  isPublished: boolean;
}

/**
 * GET …/spaces/{spaceId}/tree: the space's folders and page titles, nested, each level by
 * order then name. A page or folder whose folder is gone sits at the top. Customer users see
 * published pages only, and only the folders that lead to one.
 */
export async function spaceTree(ctx: DomainContext, spaceId: string) {
  const [{ access }, folders, pages] = await Promise.all([
    enterSpace(ctx, spaceId, 'view'),
    foldersOf(ctx.org.orgId, spaceId),
    db().entities.wikiPage.query.bySpace({ orgId: ctx.org.orgId, spaceId }).go({ pages: 'all' }),
  ]);
  const visible = pages.data.filter((page) => !access.publishedOnly || page.isPublished);
  const parentOf = (parentId: string | undefined) => (parentId && folders.has(parentId) ? parentId : undefined);
  const pagesIn = (folderId: string | undefined): TreePage[] =>
    visible
      .filter((page) => parentOf(page.folderId) === folderId)
      .sort(byOrderThenName((page) => page.title))
      .map((page) => ({ id: page.pageId, title: page.title, order: page.order, isPublished: page.isPublished }));
  const foldersIn = (parentId: string | undefined, depth: number): TreeFolder[] =>
    depth > MAX_FOLDER_DEPTH
      ? []
      : [...folders.values()]
          .filter((folder) => parentOf(folder.parentId) === parentId)
          .sort(byOrderThenName((folder) => folder.name))
          .map((folder) => ({ id: folder.folderId, name: folder.name, order: folder.order, folders: foldersIn(folder.folderId, depth + 1), pages: pagesIn(folder.folderId) }))
          .filter((folder) => !access.publishedOnly || folder.pages.length > 0 || folder.folders.length > 0);
  return { spaceId, folders: foldersIn(undefined, 1), pages: pagesIn(undefined) };
}
