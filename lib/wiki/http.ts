import * as z from 'zod';
import { authenticated, fromOperation, type Routes, onFirstUse } from '../http/routes.js';
import { getPageOp, searchWikiOp } from './operations.js';
import { idParam, optionalText, pageQuery, queryBoolean, requiredText } from '../http/validation.js';
import { WIKI_MEMBER_MODES, WIKI_ROLES } from '../db/entities/index.js';
import {
  createBoardSpace, createSpace, deleteSpace, effectiveMembers, getBoardSpace, getSpace, linkBoard, listSpaceMembers, listSpaces, removeSpaceMember,
  setSpaceMember, spacePermission, unlinkBoard, updateSpace,
} from './spaces.js';
import { createFolder, deleteFolder, getFolder, listFolders, spaceTree, updateFolder } from './folders.js';
import { MAX_CONTENT_LENGTH, createPage, deletePage, getPage, getVersion, listPages, listVersions, restoreVersion, updatePage } from './pages.js';
import { searchSpace, searchWiki } from './search.js';
import {
  effectiveMemberResult, folderResult, memberResult, pageResult, pageSummaryResult, permissionResult, searchHitResult, spaceResult, treeResult, versionResult,
  versionWithContentResult,
} from './shapes.js';

/**
 * A page body at the limits, each character escaped as `\uXXXX` (6 bytes), with its title:
 * 500,000 × 6 + 255 × 6 and room for the other fields.
 */
const PAGE_BODY_BYTES = 3_100_000;

const spaceParams = z.object({ spaceId: idParam });
const pageParams = z.object({ spaceId: idParam, pageId: idParam });
const folderParams = z.object({ spaceId: idParam, folderId: idParam });
const versionParams = z.object({ spaceId: idParam, pageId: idParam, versionId: idParam });

const slug = z
  .string()
  .min(1)
  .max(60)
  .regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, 'Lower-case letters, digits and single dashes (a-z0-9-)');
const spaceFields = {
  slug: slug.optional(),
  description: optionalText(500).nullable().optional(),
  icon: optionalText(100).nullable().optional(),
  memberMode: z.enum(WIKI_MEMBER_MODES).optional(),
};
const RATE_LIMITED = ['RATE_LIMITED'] as const;

const content = z
  .string()
  .max(MAX_CONTENT_LENGTH, `At most ${MAX_CONTENT_LENGTH} characters (UTF-16 code units)`)
  .meta({ description: `Up to ${MAX_CONTENT_LENGTH} characters, counted in UTF-16 code units (an emoji outside the BMP counts 2)` });
const title = requiredText(255);
const order = z.number().int().min(0).max(1_000_000);

/** Routes of the `wiki` group (docs/features.md, Wiki). Roles per space: lib/wiki/roles.ts. */
export const wikiRoutes: Routes = {
  'GET /api/v1/wiki/spaces': onFirstUse(() =>
    authenticated({
      scope: 'read',
      summary: 'List the wiki spaces the caller may view',
      result: z.array(spaceResult),
      query: z.strictObject({ boardId: idParam.optional() }),
      handler: (ctx, { query }) => listSpaces(ctx, query),
    }),
  ),
  'POST /api/v1/wiki/spaces': onFirstUse(() =>
    authenticated({
      scope: 'write',
      summary: 'Create a wiki space',
      description:
        'Needs wiki:create; 10 per organization and hour. `slug` defaults to one made from the name (with `-2`, `-3` … when taken); a slug given that is taken is 409. `memberMode` defaults to INHERIT_BOARD with a `boardId` and MANAGE_SEPARATE without (the creator then manages the space).',
      status: 201,
      result: spaceResult,
      errors: RATE_LIMITED,
      body: z.strictObject({ name: requiredText(100), ...spaceFields, boardId: idParam.optional() }),
      handler: (ctx, { body }) => createSpace(ctx, body),
    }),
  ),
  'GET /api/v1/wiki/search': onFirstUse(() =>
    authenticated({
      ...fromOperation(searchWikiOp),
      summary: 'Search every wiki space the caller may view',
      description: 'Titles and current content, case-insensitive; each hit carries a snippet around the match.',
      result: searchHitResult,
      envelope: 'page',
      query: z.strictObject({ q: requiredText(200), ...pageQuery(20, 50) }),
      handler: (ctx, { query }) => searchWiki(ctx, query.q, query),
    }),
  ),
  'GET /api/v1/wiki/spaces/board/{boardId}': onFirstUse(() =>
    authenticated({
      scope: 'read',
      summary: 'Get the wiki space linked to a board',
      result: spaceResult,
      params: z.object({ boardId: idParam }),
      handler: (ctx, { params }) => getBoardSpace(ctx, params.boardId),
    }),
  ),
  'POST /api/v1/wiki/spaces/board/{boardId}': onFirstUse(() =>
    authenticated({
      scope: 'write',
      summary: 'Create a wiki space linked to a board',
      description: 'A board links to at most one space (409 when it has one).',
      status: 201,
      result: spaceResult,
      errors: RATE_LIMITED,
      params: z.object({ boardId: idParam }),
      body: z.strictObject({ name: requiredText(100), ...spaceFields }),
      handler: (ctx, { params, body }) => createBoardSpace(ctx, params.boardId, body),
    }),
  ),
  'GET /api/v1/wiki/spaces/{spaceId}': onFirstUse(() =>
    authenticated({
      scope: 'read',
      summary: 'Get a wiki space',
      result: spaceResult,
      params: spaceParams,
      handler: (ctx, { params }) => getSpace(ctx, params.spaceId),
    }),
  ),
  'PATCH /api/v1/wiki/spaces/{spaceId}': onFirstUse(() =>
    authenticated({
      scope: 'write',
      summary: 'Change a wiki space (manage role)',
      result: spaceResult,
      params: spaceParams,
      body: z.strictObject({ name: requiredText(100).optional(), ...spaceFields }),
      handler: (ctx, { params, body }) => updateSpace(ctx, params.spaceId, body),
    }),
  ),
  'DELETE /api/v1/wiki/spaces/{spaceId}': onFirstUse(() =>
    authenticated({
      scope: 'write',
      summary: 'Delete a wiki space (manage role)',
      description: 'The space is gone at once; its folders, pages and versions are deleted in the background.',
      status: 204,
      params: spaceParams,
      handler: (ctx, { params }) => deleteSpace(ctx, params.spaceId),
    }),
  ),
  'GET /api/v1/wiki/spaces/{spaceId}/tree': onFirstUse(() =>
    authenticated({
      scope: 'read',
      summary: "A space's folders and page titles, nested",
      result: treeResult,
      params: spaceParams,
      handler: (ctx, { params }) => spaceTree(ctx, params.spaceId),
    }),
  ),
  'GET /api/v1/wiki/spaces/{spaceId}/permission': onFirstUse(() =>
    authenticated({
      scope: 'read',
      summary: "The caller's capabilities in a space",
      result: permissionResult,
      params: spaceParams,
      handler: (ctx, { params }) => spacePermission(ctx, params.spaceId),
    }),
  ),
  'GET /api/v1/wiki/spaces/{spaceId}/effective-members': onFirstUse(() =>
    authenticated({
      scope: 'read',
      summary: 'Everyone who may view a space, with their role and where it comes from',
      result: z.array(effectiveMemberResult),
      params: spaceParams,
      handler: (ctx, { params }) => effectiveMembers(ctx, params.spaceId),
    }),
  ),
  'POST /api/v1/wiki/spaces/{spaceId}/link-board': onFirstUse(() =>
    authenticated({
      scope: 'write',
      summary: 'Link a space to a board (manage role)',
      description: 'Replaces the current link; a board links to at most one space (409).',
      result: spaceResult,
      params: spaceParams,
      body: z.strictObject({ boardId: idParam }),
      handler: (ctx, { params, body }) => linkBoard(ctx, params.spaceId, body.boardId),
    }),
  ),
  'POST /api/v1/wiki/spaces/{spaceId}/unlink-board': onFirstUse(() =>
    authenticated({
      scope: 'write',
      summary: 'Unlink a space from its board (manage role)',
      result: spaceResult,
      params: spaceParams,
      handler: (ctx, { params }) => unlinkBoard(ctx, params.spaceId),
    }),
  ),
  'GET /api/v1/wiki/spaces/{spaceId}/members': onFirstUse(() =>
    authenticated({
      scope: 'read',
      summary: "A space's own member list (MANAGE_SEPARATE)",
      result: z.array(memberResult),
      params: spaceParams,
      handler: (ctx, { params }) => listSpaceMembers(ctx, params.spaceId),
    }),
  ),
  'POST /api/v1/wiki/spaces/{spaceId}/members': onFirstUse(() =>
    authenticated({
      scope: 'write',
      summary: "Add a user to a space's member list, or change their role (manage role)",
      result: memberResult,
      params: spaceParams,
      body: z.strictObject({ userId: idParam, role: z.enum(WIKI_ROLES) }),
      handler: (ctx, { params, body }) => setSpaceMember(ctx, params.spaceId, body.userId, body.role),
    }),
  ),
  'DELETE /api/v1/wiki/spaces/{spaceId}/members/{userId}': onFirstUse(() =>
    authenticated({
      scope: 'write',
      summary: "Remove a user from a space's member list (manage role)",
      status: 204,
      params: z.object({ spaceId: idParam, userId: idParam }),
      handler: (ctx, { params }) => removeSpaceMember(ctx, params.spaceId, params.userId),
    }),
  ),
  'GET /api/v1/wiki/spaces/{spaceId}/pages': onFirstUse(() =>
    authenticated({
      scope: 'read',
      summary: "List or search a space's pages",
      description: '`folderId` keeps one folder\'s pages; `search` keeps the pages whose title or content contains it (any case), each with a snippet.',
      result: pageSummaryResult,
      envelope: 'page',
      params: spaceParams,
      query: z.strictObject({ folderId: idParam.optional(), search: requiredText(200).optional(), ...pageQuery(20, 100) }),
      handler: (ctx, { params, query }) => (query.search ? searchSpace(ctx, params.spaceId, query.search, query, query.folderId) : listPages(ctx, params.spaceId, query)),
    }),
  ),
  'POST /api/v1/wiki/spaces/{spaceId}/pages': onFirstUse(() =>
    authenticated({
      scope: 'write',
      summary: 'Create a page (edit role)',
      description: '60 per organization and hour. The page starts at version 1.',
      status: 201,
      result: pageResult,
      errors: RATE_LIMITED,
      maxBodyBytes: PAGE_BODY_BYTES,
      params: spaceParams,
      body: z.strictObject({ title, content: content.optional(), folderId: idParam.nullable().optional(), isPublished: z.boolean().optional(), order: order.optional() }),
      handler: (ctx, { params, body }) => createPage(ctx, params.spaceId, body),
    }),
  ),
  'GET /api/v1/wiki/spaces/{spaceId}/pages/{pageId}': onFirstUse(() =>
    authenticated({
      ...fromOperation(getPageOp),
      summary: 'Get a page with its content',
      result: pageResult,
      params: pageParams,
      handler: (ctx, { params }) => getPage(ctx, params.spaceId, params.pageId),
    }),
  ),
  'PATCH /api/v1/wiki/spaces/{spaceId}/pages/{pageId}': onFirstUse(() =>
    authenticated({
      scope: 'write',
      summary: 'Change a page (edit role)',
      description: 'A change of title or content makes a new version. With `expectedVersion`, a page at another version is 409 STALE_UPDATE naming the current one.',
      result: pageResult,
      errors: ['STALE_UPDATE'],
      maxBodyBytes: PAGE_BODY_BYTES,
      params: pageParams,
      body: z.strictObject({
        title: title.optional(),
        content: content.optional(),
        folderId: idParam.nullable().optional(),
        isPublished: z.boolean().optional(),
        order: order.optional(),
        expectedVersion: z.number().int().min(1).optional(),
      }),
      handler: (ctx, { params, body }) => updatePage(ctx, params.spaceId, params.pageId, body),
    }),
  ),
  'DELETE /api/v1/wiki/spaces/{spaceId}/pages/{pageId}': onFirstUse(() =>
    authenticated({
      scope: 'write',
      summary: 'Delete a page (edit role)',
      status: 204,
      params: pageParams,
      handler: (ctx, { params }) => deletePage(ctx, params.spaceId, params.pageId),
    }),
  ),
  'GET /api/v1/wiki/spaces/{spaceId}/pages/{pageId}/versions': onFirstUse(() =>
    authenticated({
      scope: 'read',
      summary: "A page's versions, newest first",
      result: versionResult,
      envelope: 'page',
      params: pageParams,
      query: z.strictObject(pageQuery(20, 100)),
      handler: (ctx, { params, query }) => listVersions(ctx, params.spaceId, params.pageId, query),
    }),
  ),
  'GET /api/v1/wiki/spaces/{spaceId}/pages/{pageId}/versions/{versionId}': onFirstUse(() =>
    authenticated({
      scope: 'read',
      summary: 'One version of a page, with its content',
      result: versionWithContentResult,
      params: versionParams,
      handler: (ctx, { params }) => getVersion(ctx, params.spaceId, params.pageId, params.versionId),
    }),
  ),
  'POST /api/v1/wiki/spaces/{spaceId}/pages/{pageId}/versions/{versionId}/restore': onFirstUse(() =>
    authenticated({
      scope: 'write',
      summary: 'Restore a version (edit role): a new version with its title and content',
      result: pageResult,
      params: versionParams,
      handler: (ctx, { params }) => restoreVersion(ctx, params.spaceId, params.pageId, params.versionId),
    }),
  ),
  'GET /api/v1/wiki/spaces/{spaceId}/folders': onFirstUse(() =>
    authenticated({
      scope: 'read',
      summary: 'List the folders under a folder (the top level without `parentId`)',
      result: z.array(folderResult),
      params: spaceParams,
      query: z.strictObject({ parentId: idParam.optional() }),
      handler: (ctx, { params, query }) => listFolders(ctx, params.spaceId, query),
    }),
  ),
  'POST /api/v1/wiki/spaces/{spaceId}/folders': onFirstUse(() =>
    authenticated({
      scope: 'write',
      summary: 'Create a folder (edit role)',
      status: 201,
      result: folderResult,
      params: spaceParams,
      body: z.strictObject({ name: requiredText(100), parentId: idParam.nullable().optional(), order: order.optional() }),
      handler: (ctx, { params, body }) => createFolder(ctx, params.spaceId, body),
    }),
  ),
  'GET /api/v1/wiki/spaces/{spaceId}/folders/{folderId}': onFirstUse(() =>
    authenticated({
      scope: 'read',
      summary: 'Get a folder',
      result: folderResult,
      params: folderParams,
      handler: (ctx, { params }) => getFolder(ctx, params.spaceId, params.folderId),
    }),
  ),
  'PATCH /api/v1/wiki/spaces/{spaceId}/folders/{folderId}': onFirstUse(() =>
    authenticated({
      scope: 'write',
      summary: 'Rename, reorder or move a folder (edit role)',
      description: '`parentId: null` moves it to the top; into itself or one of its descendants is 400.',
      result: folderResult,
      params: folderParams,
      body: z.strictObject({ name: requiredText(100).optional(), parentId: idParam.nullable().optional(), order: order.optional() }),
      handler: (ctx, { params, body }) => updateFolder(ctx, params.spaceId, params.folderId, body),
    }),
  ),
  'DELETE /api/v1/wiki/spaces/{spaceId}/folders/{folderId}': onFirstUse(() =>
    authenticated({
      scope: 'write',
      summary: 'Delete a folder (edit role)',
      description: 'A folder with subfolders or pages is 409 FOLDER_NOT_EMPTY unless `deleteContents=true`, which deletes them too.',
      status: 204,
      errors: ['FOLDER_NOT_EMPTY'],
      params: folderParams,
      query: z.strictObject({ deleteContents: queryBoolean.optional() }),
      handler: (ctx, { params, query }) => deleteFolder(ctx, params.spaceId, params.folderId, query.deleteContents ?? false),
    }),
  ),
};
