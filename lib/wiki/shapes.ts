import * as z from 'zod';
import { anId, timestamp } from '../core/shapes.js';
import { WIKI_MEMBER_MODES, WIKI_ROLES } from '../db/entities/index.js';
import { WIKI_ACCESS_SOURCES } from './roles.js';

const role = z.enum(WIKI_ROLES);
const source = z.enum(WIKI_ACCESS_SOURCES).meta({ description: 'Where the role comes from: ADMIN, SPACE_MEMBER (the space\'s own list), BOARD_MEMBER (the linked board), ORGANIZATION (no board linked), CUSTOMER' });
const person = z.strictObject({ id: anId, name: z.string() });

export const spaceResult = z.lazy(() =>
  z
    .strictObject({
      id: anId,
      name: z.string(),
      slug: z.string(),
      description: z.string().nullable(),
      icon: z.string().nullable(),
      boardId: anId.nullable(),
      memberMode: z.enum(WIKI_MEMBER_MODES),
      createdAt: timestamp,
      updatedAt: timestamp,
    })
    .meta({ id: 'WikiSpace' }),
);

export const permissionResult = z.lazy(() =>
  z
    .strictObject({
      spaceId: anId,
      role,
      canView: z.boolean(),
      canEdit: z.boolean(),
      canManage: z.boolean(),
      publishedOnly: z.boolean().meta({ description: 'Customer users see published pages only' }),
      source,
    })
    .meta({ id: 'WikiPermission' }),
);

export const effectiveMemberResult = z.lazy(() =>
  z
    .strictObject({ userId: anId, name: z.string(), isAgent: z.boolean(), role, source, publishedOnly: z.boolean() })
    .meta({ id: 'WikiEffectiveMember' }),
);

export const memberResult = z.lazy(() =>
  z.strictObject({ userId: anId, name: z.string().nullable(), role }).meta({ id: 'WikiSpaceMember' }),
);

export const folderResult = z.lazy(() =>
  z
    .strictObject({ id: anId, spaceId: anId, name: z.string(), parentId: anId.nullable(), order: z.number(), createdAt: timestamp, updatedAt: timestamp })
    .meta({ id: 'WikiFolder' }),
);

const pageFields = {
  id: anId,
  spaceId: anId,
  title: z.string(),
  folderId: anId.nullable(),
  isPublished: z.boolean(),
  order: z.number(),
  version: z.number().int().min(1).meta({ description: 'The current version (each change of title or content makes one)' }),
  contentLength: z.number().int().min(0).meta({ description: 'Of the content, in UTF-16 code units' }),
  createdBy: person,
  updatedBy: person,
  createdAt: timestamp,
  updatedAt: timestamp,
};

export const pageResult = z.lazy(() =>
  z.strictObject({ ...pageFields, content: z.string() }).meta({ id: 'WikiPage' }),
);

export const pageSummaryResult = z.lazy(() =>
  z
    .strictObject({ ...pageFields, snippet: z.string().nullable().meta({ description: 'With `search`: the text around the first match' }) })
    .meta({ id: 'WikiPageSummary' }),
);

export const versionResult = z.lazy(() =>
  z
    .strictObject({
      id: anId,
      pageId: anId,
      number: z.number().int().min(1),
      title: z.string(),
      contentLength: z.number().int().min(0),
      author: person,
      restoredFrom: z.number().int().nullable().meta({ description: 'The version this one restored' }),
      createdAt: timestamp,
    })
    .meta({ id: 'WikiVersion' }),
);

export const versionWithContentResult = z.lazy(() =>
  z.strictObject({ ...versionResult.unwrap().shape, content: z.string() }).meta({ id: 'WikiVersionWithContent' }),
);

const treePage = z.strictObject({ id: anId, title: z.string(), order: z.number(), isPublished: z.boolean() });
const treeFolder = z
  .strictObject({
    id: anId,
    name: z.string(),
    order: z.number(),
    get folders(): z.ZodArray<typeof treeFolder> {
      return z.array(treeFolder);
    },
    pages: z.array(treePage),
  })
  .meta({ id: 'WikiTreeFolder' });

export const treeResult = z.lazy(() =>
  z.strictObject({ spaceId: anId, folders: z.array(treeFolder), pages: z.array(treePage) }).meta({ id: 'WikiTree' }),
);

export const searchHitResult = z.lazy(() =>
  z
    .strictObject({
      space: z.strictObject({ id: anId, name: z.string(), slug: z.string() }),
      pageId: anId,
      title: z.string(),
      folderId: anId.nullable(),
      snippet: z.string(),
      updatedAt: timestamp,
    })
    .meta({ id: 'WikiSearchHit' }),
);
