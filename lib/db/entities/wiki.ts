import { Entity, type EntityConfiguration, type EntityItem } from 'electrodb';

/*
 * The wiki (docs/features.md, Wiki). A space's folders, pages, versions and content chunks share
 * the space's partition (orgId + spaceId), each entity under its own sort-key prefix, so a
 * space is read and purged without touching another space or organization.
 */

export const WIKI_MEMBER_MODES = ['INHERIT_BOARD', 'MANAGE_SEPARATE'] as const;
export type WikiMemberMode = (typeof WIKI_MEMBER_MODES)[number];
export const WIKI_ROLES = ['view', 'edit', 'manage'] as const;
export type WikiRole = (typeof WIKI_ROLES)[number];

/**
 * A wiki space of an organization. Its slug is unique in the organization (UniqueName scope
 * `wikiSlug`) and a board links to at most one space (scope `wikiBoard`, the board id), both
 * guards taken and released in the transactions that change them. `members` (MANAGE_SEPARATE)
 * maps user ids to their role in the space; changes are guarded by `version`.
 */
export const WikiSpace = (config?: EntityConfiguration) =>
  new Entity({
  model: { entity: 'wikiSpace', version: '1', service: 'wm' },
  attributes: {
    orgId: { type: 'string', required: true },
    spaceId: { type: 'string', required: true },
    name: { type: 'string', required: true },
    slug: { type: 'string', required: true },
    description: { type: 'string' },
    icon: { type: 'string' },
    boardId: { type: 'string' },
    memberMode: { type: WIKI_MEMBER_MODES, required: true },
    /** userId → WikiRole, for MANAGE_SEPARATE. */
    members: { type: 'any' },
    createdById: { type: 'string', required: true },
    createdAt: { type: 'string', required: true, readOnly: true },
    updatedAt: { type: 'string', required: true },
    /** Incremented by every write; the condition of the next write. */
    version: { type: 'number', required: true },
  },
  indexes: {
    byOrg: { pk: { field: 'pk', composite: ['orgId'] }, sk: { field: 'sk', composite: ['spaceId'] } },
  },
}, config);
export type WikiSpaceItem = EntityItem<ReturnType<typeof WikiSpace>>;

/** A folder of a space; `parentId` absent at the top. */
export const WikiFolder = (config?: EntityConfiguration) =>
  new Entity({
  model: { entity: 'wikiFolder', version: '1', service: 'wm' },
  attributes: {
    orgId: { type: 'string', required: true },
    spaceId: { type: 'string', required: true },
    folderId: { type: 'string', required: true },
    name: { type: 'string', required: true },
    parentId: { type: 'string' },
    order: { type: 'number', required: true, default: 0 },
    createdAt: { type: 'string', required: true, readOnly: true },
    updatedAt: { type: 'string', required: true },
  },
  indexes: {
    bySpace: { pk: { field: 'pk', composite: ['orgId', 'spaceId'] }, sk: { field: 'sk', composite: ['folderId'] } },
  },
}, config);
export type WikiFolderItem = EntityItem<ReturnType<typeof WikiFolder>>;

/**
 * A page of a space: its current title and where its current content is (`version`,
 * `chunkCount`: the WikiChunk items of that version). Written with its new WikiVersion and
 * chunks in one transaction, guarded by `revision`.
 */
export const WikiPage = (config?: EntityConfiguration) =>
  new Entity({
  model: { entity: 'wikiPage', version: '1', service: 'wm' },
  attributes: {
    orgId: { type: 'string', required: true },
    spaceId: { type: 'string', required: true },
    pageId: { type: 'string', required: true },
    title: { type: 'string', required: true },
    folderId: { type: 'string' },
    isPublished: { type: 'boolean', required: true, default: false },
    order: { type: 'number', required: true, default: 0 },
    /** The current version's number (1 for a new page). */
    version: { type: 'number', required: true },
    chunkCount: { type: 'number', required: true },
    /** Of the current content, in UTF-16 code units (JavaScript string length). */
    contentLength: { type: 'number', required: true },
    /** Incremented by every write of the page (a version or not); the condition of the next write. */
    revision: { type: 'number', required: true, default: 1 },
    createdById: { type: 'string', required: true },
    createdByName: { type: 'string', required: true },
    updatedById: { type: 'string', required: true },
    updatedByName: { type: 'string', required: true },
    createdAt: { type: 'string', required: true, readOnly: true },
    updatedAt: { type: 'string', required: true },
  },
  indexes: {
    bySpace: { pk: { field: 'pk', composite: ['orgId', 'spaceId'] }, sk: { field: 'sk', composite: ['pageId'] } },
  },
}, config);
export type WikiPageItem = EntityItem<ReturnType<typeof WikiPage>>;

/** The fixed-width sort key of a version number, so string order is number order. */
export const versionKeyOf = (version: number): string => String(version).padStart(8, '0');

/** One version of a page: who made it, when, its title; its content is its WikiChunk items. */
export const WikiVersion = (config?: EntityConfiguration) =>
  new Entity({
  model: { entity: 'wikiVersion', version: '1', service: 'wm' },
  attributes: {
    orgId: { type: 'string', required: true },
    spaceId: { type: 'string', required: true },
    pageId: { type: 'string', required: true },
    /** `versionKeyOf(number)`. */
    versionKey: { type: 'string', required: true },
    /** The version's id in the API (unique, so another page's version id is unknown here). */
    versionId: { type: 'string', required: true },
    number: { type: 'number', required: true },
    title: { type: 'string', required: true },
    chunkCount: { type: 'number', required: true },
    contentLength: { type: 'number', required: true },
    authorId: { type: 'string', required: true },
    authorName: { type: 'string', required: true },
    /** Set when the version was made by restoring another. */
    restoredFrom: { type: 'number' },
    createdAt: { type: 'string', required: true },
  },
  indexes: {
    byPage: { pk: { field: 'pk', composite: ['orgId', 'spaceId'] }, sk: { field: 'sk', composite: ['pageId', 'versionKey'] } },
  },
}, config);
export type WikiVersionItem = EntityItem<ReturnType<typeof WikiVersion>>;

/**
 * One piece of a version's content: at most WIKI_CHUNK_BYTES of UTF-8, cut between code
 * points (lib/wiki/content.ts), so every item stays far below DynamoDB's 400 KB.
 */
export const WikiChunk = (config?: EntityConfiguration) =>
  new Entity({
  model: { entity: 'wikiChunk', version: '1', service: 'wm' },
  attributes: {
    orgId: { type: 'string', required: true },
    spaceId: { type: 'string', required: true },
    pageId: { type: 'string', required: true },
    versionKey: { type: 'string', required: true },
    index: { type: 'number', required: true },
    text: { type: 'string', required: true },
  },
  indexes: {
    byVersion: { pk: { field: 'pk', composite: ['orgId', 'spaceId'] }, sk: { field: 'sk', composite: ['pageId', 'versionKey', 'index'] } },
  },
}, config);
export type WikiChunkItem = EntityItem<ReturnType<typeof WikiChunk>>;
