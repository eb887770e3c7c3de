import { AppError, forbidden, invalidField, notFound, Conflict } from '../core/errors.js';
import { newId } from '../core/ids.js';
import type { DomainContext } from '../db/context.js';
import { db } from '../db/service.js';
import { batchGetMixed, type KeyRequest } from '../db/batch.js';
import { guarded, transact, type TransactionEntities, type TransactionItem } from '../db/transact.js';
import { LostRace, retryLostRaces } from '../db/races.js';
import { countCall, rateWindow, reportWindows } from '../db/rate-limit.js';
import type { BoardItem, UniqueNameItem, UserItem, WikiMemberMode, WikiRole, WikiSpaceItem } from '../db/entities/index.js';
import { eventPuts, jobRecord } from '../events/index.js';
import { canSeeBoard, listOrganizationBoards } from '../boards/index.js';
import { requirePermission, groupDirectoryOf, permissionsOfGroups, claimName, comparableName, releaseName } from '../organizations/index.js';
import { callerAccess, membersOf, roleAllows, wikiAccess, type WikiAccess } from './roles.js';
import { WIKI_PURGE_JOB } from './purge.js';

/*
 * Wiki spaces (docs/features.md, Wiki): CRUD, the board link, the member list and the caller's and
 * everyone's roles (lib/wiki/roles.ts). A space's slug is unique in the organization and a
 * board links to at most one space: UniqueName guards in the transactions that change them.
 */

/** Spaces created per organization and hour (README.md, Retries and limits). */
export const SPACES_PER_HOUR = 10;
/** Members of one space's own list (MANAGE_SEPARATE), so the space stays one small item. */
export const MAX_SPACE_MEMBERS = 500;

export interface EnteredSpace {
  space: WikiSpaceItem;
  /** The linked board, when it was needed to decide the caller's access (or asked for). */
  board: BoardItem | undefined;
  access: WikiAccess;
  /** Further items asked for, in request order (undefined when missing). */
  found: unknown[];
}

/**
 * The space and any further items (a page, a folder) in one BatchGetItem, then the linked
 * board only when the caller's access depends on it (or `withBoard`); 404 when the caller may
 * not view the space, 403 when the role is below `needed`.
 */
export async function enterSpace(ctx: DomainContext, spaceId: string, needed: WikiRole, more: KeyRequest[] = [], withBoard = false): Promise<EnteredSpace> {
  const [found, ...rest] = await batchGetMixed([{ entity: db().entities.wikiSpace, key: { orgId: ctx.org.orgId, spaceId } }, ...more]);
  const space = found as WikiSpaceItem | undefined;
  if (!space) throw notFound('Wiki space');
  const boardMatters = withBoard || (ctx.actor.role !== 'ADMIN' && (ctx.actor.role === 'CUSTOMER' || space.memberMode === 'INHERIT_BOARD'));
  const board = space.boardId && boardMatters ? ((await db().entities.board.get({ orgId: ctx.org.orgId, boardId: space.boardId }).go()).data ?? undefined) : undefined;
  const access = callerAccess(ctx, space, board);
  if (!roleAllows(access.role, 'view')) throw notFound('Wiki space');
  if (!roleAllows(access.role, needed)) throw forbidden(`This needs the ${needed} role in the wiki space`, 'FORBIDDEN', { requiredRole: needed, role: access.role });
  return { space, board, access, found: rest };
}

export function presentSpace(space: WikiSpaceItem) {
  return {
    id: space.spaceId,
    name: space.name,
    slug: space.slug,
    description: space.description ?? null,
    icon: space.icon ?? null,
    boardId: space.boardId ?? null,
    memberMode: space.memberMode,
    createdAt: space.createdAt,
    updatedAt: space.updatedAt,
  };
}

/** Every space of the organization the caller may view, with the caller's access (a Query of spaces ∥ one of boards). */
export async function visibleSpaces(ctx: DomainContext): Promise<{ space: WikiSpaceItem; access: WikiAccess }[]> {
  const [spaces, boards] = await Promise.all([
    db().entities.wikiSpace.query.byOrg({ orgId: ctx.org.orgId }).go({ pages: 'all' }),
    listOrganizationBoards(ctx.org.orgId),
  ]);
  const boardById = new Map(boards.map((board) => [board.boardId, board]));
  return spaces.data
    .map((space) => ({ space, access: callerAccess(ctx, space, space.boardId ? boardById.get(space.boardId) : undefined) }))
    .filter(({ access }) => roleAllows(access.role, 'view'));
}

/** GET /wiki/spaces: a bare array of the spaces the caller may view (optionally those linked to one board), by name. */
export async function listSpaces(ctx: DomainContext, query: { boardId?: string }) {
  return (await visibleSpaces(ctx))
    .map(({ space }) => space)
    .filter((space) => query.boardId === undefined || space.boardId === query.boardId)
    .sort((a, b) => a.name.localeCompare(b.name) || a.spaceId.localeCompare(b.spaceId))
    .map(presentSpace);
}

/** A slug from a name: lower-case ASCII letters, digits and single dashes (accents dropped), at most 60 characters. */
export function slugFrom(name: string): string {
  const slug = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60)
    .replace(/-+$/, '');
  return slug || 'space';
}

const slugTaken = (slug: string) => new Conflict(`A wiki space with the slug "${slug}" already exists`, { field: 'slug' });
const boardTaken = () => new Conflict('The board is already linked to a wiki space', { field: 'boardId' });

/** The transaction items that link a space to a board: the board's one-space guard, and the board still live. */
function linkItems(e: TransactionEntities, orgId: string, spaceId: string, boardId: string): TransactionItem[] {
  return [
    claimName(e, orgId, 'wikiBoard', boardId, spaceId, boardTaken),
    guarded(
      e.board.check({ orgId, boardId }).where((attr, op) => op.eq(attr.isDeleted, false)).commit(),
      () => invalidField('boardId', 'Unknown board'),
    ),
  ];
}

/** A board named in a body: visible to the caller and live, else 400 naming `field`. */
async function boardForLink(ctx: DomainContext, boardId: string, field: string): Promise<BoardItem> {
  const board = (await db().entities.board.get({ orgId: ctx.org.orgId, boardId }).go({ consistent: true })).data;
  if (!board || board.isDeleted || !canSeeBoard(ctx.actor, board)) throw invalidField(field, 'Unknown board');
  return board;
}

export interface SpaceInput {
  name: string;
  slug?: string;
  description?: string | null;
  icon?: string | null;
  boardId?: string | null;
  memberMode?: WikiMemberMode;
}

/**
 * POST /wiki/spaces (and POST /wiki/spaces/board/{boardId}): wiki:create. One transaction:
 * the space, its slug guard, the board link when given, and the organization's hourly count
 * (a refused create counts nothing). `memberMode` defaults to INHERIT_BOARD with a board and
 * MANAGE_SEPARATE without; a MANAGE_SEPARATE space starts with its creator as manager. A
 * slug derived from the name gets `-2`, `-3` … when taken; a slug given is 409 when taken.
 */
export async function createSpace(ctx: DomainContext, input: SpaceInput) {
  requirePermission(ctx, 'wiki:create');
  if (input.boardId) await boardForLink(ctx, input.boardId, 'boardId');
  const memberMode = input.memberMode ?? (input.boardId ? 'INHERIT_BOARD' : 'MANAGE_SEPARATE');
  const now = ctx.clock.now();
  const base = input.slug ?? slugFrom(input.name);
  for (let attempt = 1; ; attempt += 1) {
    const slug = input.slug || attempt === 1 ? base : `${base.slice(0, 56)}-${attempt}`;
    const space: WikiSpaceItem = {
      orgId: ctx.org.orgId,
      spaceId: newId('ws'),
      name: input.name,
      slug,
      ...(input.description ? { description: input.description } : {}),
      ...(input.icon ? { icon: input.icon } : {}),
      ...(input.boardId ? { boardId: input.boardId } : {}),
      memberMode,
      members: memberMode === 'MANAGE_SEPARATE' ? { [ctx.actor.userId]: 'manage' } : {},
      createdById: ctx.actor.userId,
      createdAt: now.toISOString(),
      updatedAt: now.toISOString(),
      version: 1,
    };
    const spaceWindow = rateWindow(ctx.org.orgId, 'wiki-space', SPACES_PER_HOUR, 3600, now);
    try {
      await transact((e) => [
        guarded(e.wikiSpace.create(space).commit(), () => new LostRace()),
        claimName(e, ctx.org.orgId, 'wikiSlug', slug, space.spaceId, () => slugTaken(slug)),
        ...(input.boardId ? linkItems(e, ctx.org.orgId, space.spaceId, input.boardId) : []),
        countCall(e, spaceWindow, now, `At most ${SPACES_PER_HOUR} wiki spaces per hour; retry later`),
      ]);
      await reportWindows([spaceWindow], now);
      return presentSpace(space);
    } catch (error) {
      // A slug made from the name tries the next suffix; a slug the caller chose is theirs to change.
      const slugClash = error instanceof AppError && error.status === 409 && error.details?.field === 'slug';
      if (input.slug || !slugClash || attempt >= 20) throw error;
    }
  }
}

/** GET /wiki/spaces/{spaceId}. */
export async function getSpace(ctx: DomainContext, spaceId: string) {
  return presentSpace((await enterSpace(ctx, spaceId, 'view')).space);
}

/** The space replaced as `after`, guarded by the `version` it was read at (LostRace otherwise), with further items. */
async function saveSpace(before: WikiSpaceItem, after: WikiSpaceItem, more: (e: TransactionEntities) => TransactionItem[] = () => []): Promise<WikiSpaceItem> {
  const saved = { ...after, version: before.version + 1 };
  await transact((e) => [
    guarded(
      e.wikiSpace
        .put(saved)
        .where((attr, op) => op.eq(attr.version, before.version))
        .commit(),
      () => new LostRace('The wiki space changed concurrently; retry'),
    ),
    ...more(e),
  ]);
  return saved;
}

/** PATCH /wiki/spaces/{spaceId} (manage): name, slug, description, icon, memberMode. */
export async function updateSpace(ctx: DomainContext, spaceId: string, input: Partial<Omit<SpaceInput, 'boardId'>>) {
  return retryLostRaces(async () => {
    const { space } = await enterSpace(ctx, spaceId, 'manage');
    const after: WikiSpaceItem = {
      ...space,
      ...(input.name !== undefined ? { name: input.name } : {}),
      ...(input.slug !== undefined ? { slug: input.slug } : {}),
      ...(input.memberMode !== undefined ? { memberMode: input.memberMode } : {}),
      ...(input.description ? { description: input.description } : {}),
      ...(input.icon ? { icon: input.icon } : {}),
      updatedAt: ctx.clock.now().toISOString(),
    };
    if (input.description === null || input.description === '') delete after.description;
    if (input.icon === null || input.icon === '') delete after.icon;
    // Whoever switches a space to its own member list stays on it as a manager (administrators need not).
    if (after.memberMode === 'MANAGE_SEPARATE' && space.memberMode !== 'MANAGE_SEPARATE' && ctx.actor.role !== 'ADMIN' && !(ctx.actor.userId in membersOf(space))) {
      after.members = { ...membersOf(space), [ctx.actor.userId]: 'manage' };
    }
    const slugMoves = after.slug !== space.slug;
    return presentSpace(
      await saveSpace(space, after, (e) =>
        slugMoves ? [releaseName(e, space.orgId, 'wikiSlug', space.slug), claimName(e, space.orgId, 'wikiSlug', after.slug, spaceId, () => slugTaken(after.slug))] : [],
      ),
    );
  });
}

/**
 * DELETE /wiki/spaces/{spaceId} (manage): the space item, its slug and board guards, and the
 * outbox record of its purge go in one transaction (the space is gone at once); its folders,
 * pages, versions and content are deleted in the background by the stream consumer
 * (lib/wiki/purge.ts), however many there are.
 */
export async function deleteSpace(ctx: DomainContext, spaceId: string): Promise<void> {
  await retryLostRaces(async () => {
    const { space } = await enterSpace(ctx, spaceId, 'manage');
    const purge = jobRecord(WIKI_PURGE_JOB, space.orgId, ctx.clock, { subjectId: spaceId, data: { spaceId } });
    await transact((e) => [
      guarded(
        e.wikiSpace
          .delete({ orgId: space.orgId, spaceId })
          .where((attr, op) => op.eq(attr.version, space.version))
          .commit(),
        () => new LostRace('The wiki space changed concurrently; retry'),
      ),
      releaseName(e, space.orgId, 'wikiSlug', space.slug),
      ...(space.boardId ? [releaseName(e, space.orgId, 'wikiBoard', space.boardId)] : []),
      ...eventPuts(e, [purge]),
    ]);
  });
}

/** The space linked to a board the caller may see (404 when none, or when the caller may not view it). */
async function spaceOfBoard(ctx: DomainContext, boardId: string): Promise<string | undefined> {
  const [board, guard] = (await batchGetMixed([
    { entity: db().entities.board, key: { orgId: ctx.org.orgId, boardId } },
    { entity: db().entities.uniqueName, key: { orgId: ctx.org.orgId, scope: 'wikiBoard', name: comparableName(boardId) } },
  ])) as [BoardItem | undefined, UniqueNameItem | undefined];
  if (!board || board.isDeleted || !canSeeBoard(ctx.actor, board)) throw notFound('Board');
  return guard?.ownerId;
}

/** GET /wiki/spaces/board/{boardId}. */
export async function getBoardSpace(ctx: DomainContext, boardId: string) {
  const spaceId = await spaceOfBoard(ctx, boardId);
  if (!spaceId) throw notFound('Wiki space of the board');
  return getSpace(ctx, spaceId);
}

/** POST /wiki/spaces/board/{boardId}: creates a space linked to the board (409 when the board has one). */
export async function createBoardSpace(ctx: DomainContext, boardId: string, input: Omit<SpaceInput, 'boardId'>) {
  requirePermission(ctx, 'wiki:create');
  await spaceOfBoard(ctx, boardId);
  return createSpace(ctx, { ...input, boardId });
}

/** POST /wiki/spaces/{spaceId}/link-board (manage): links the space to a board (replacing its link), one space per board. */
export async function linkBoard(ctx: DomainContext, spaceId: string, boardId: string) {
  return retryLostRaces(async () => {
    const { space } = await enterSpace(ctx, spaceId, 'manage');
    if (space.boardId === boardId) return presentSpace(space);
    await boardForLink(ctx, boardId, 'boardId');
    const after: WikiSpaceItem = { ...space, boardId, updatedAt: ctx.clock.now().toISOString() };
    return presentSpace(
      await saveSpace(space, after, (e) => [...(space.boardId ? [releaseName(e, space.orgId, 'wikiBoard', space.boardId)] : []), ...linkItems(e, space.orgId, spaceId, boardId)]),
    );
  });
}

/** POST /wiki/spaces/{spaceId}/unlink-board (manage): the space keeps its pages; without a link nothing changes. */
export async function unlinkBoard(ctx: DomainContext, spaceId: string) {
  return retryLostRaces(async () => {
    const { space } = await enterSpace(ctx, spaceId, 'manage');
    if (!space.boardId) return presentSpace(space);
    const after: WikiSpaceItem = { ...space, updatedAt: ctx.clock.now().toISOString() };
    delete after.boardId;
    return presentSpace(await saveSpace(space, after, (e) => [releaseName(e, space.orgId, 'wikiBoard', space.boardId!)]));
  });
}

/** GET /wiki/spaces/{spaceId}/permission: the caller's capabilities and where they come from. */
export async function spacePermission(ctx: DomainContext, spaceId: string) {
  const { access } = await enterSpace(ctx, spaceId, 'view');
  return {
    spaceId,
    role: access.role!,
    canView: true,
    canEdit: roleAllows(access.role, 'edit'),
    canManage: roleAllows(access.role, 'manage'),
    publishedOnly: access.publishedOnly,
    source: access.source!,
  };
}

/** The organization's active users (one Query), for the member views. */
async function activeUsers(orgId: string): Promise<UserItem[]> {
  const { data } = await db().entities.user.query.byOrg({ orgId }).go({ pages: 'all' });
  return data.filter((user) => user.isActive);
}

/**
 * GET /wiki/spaces/{spaceId}/effective-members: every active user of the organization who may
 * view the space, with their role and its source (the same rule as the caller's), by name.
 */
export async function effectiveMembers(ctx: DomainContext, spaceId: string) {
  const [{ space, board }, users] = await Promise.all([enterSpace(ctx, spaceId, 'view', [], true), activeUsers(ctx.org.orgId)]);
  const directory = groupDirectoryOf(ctx.org);
  return users
    .map((user) => ({
      user,
      access: wikiAccess(
        { userId: user.userId, role: user.role, customerId: user.customerId ?? null, teamIds: user.teamIds ?? [], permissions: permissionsOfGroups(directory, user.permissionGroupIds ?? []) },
        space,
        board,
      ),
    }))
    .filter(({ access }) => access.role !== null)
    .sort((a, b) => a.user.name.localeCompare(b.user.name) || a.user.userId.localeCompare(b.user.userId))
    .map(({ user, access }) => ({ userId: user.userId, name: user.name, isAgent: user.isAgent, role: access.role!, source: access.source!, publishedOnly: access.publishedOnly }));
}

/** GET /wiki/spaces/{spaceId}/members: the space's own list (MANAGE_SEPARATE), by name. */
export async function listSpaceMembers(ctx: DomainContext, spaceId: string) {
  const [{ space }, users] = await Promise.all([enterSpace(ctx, spaceId, 'view'), activeUsers(ctx.org.orgId)]);
  const names = new Map(users.map((user) => [user.userId, user]));
  return Object.entries(membersOf(space))
    .map(([userId, role]) => ({ userId, name: names.get(userId)?.name ?? null, role }))
    .sort((a, b) => (a.name ?? '').localeCompare(b.name ?? '') || a.userId.localeCompare(b.userId));
}

/**
 * POST /wiki/spaces/{spaceId}/members (manage): adds a user to the space's list, or changes
 * their role. The user must be an active internal user of the organization (400 otherwise).
 */
export async function setSpaceMember(ctx: DomainContext, spaceId: string, userId: string, role: WikiRole) {
  return retryLostRaces(async () => {
    const [{ space }, user] = await Promise.all([
      enterSpace(ctx, spaceId, 'manage'),
      db().entities.user.get({ orgId: ctx.org.orgId, userId }).go().then((result) => result.data ?? undefined),
    ]);
    if (!user?.isActive || user.role === 'CUSTOMER') throw invalidField('userId', 'Unknown user, or a customer user');
    const members = membersOf(space);
    if (members[userId] === role) return { userId, name: user.name, role };
    if (!(userId in members) && Object.keys(members).length >= MAX_SPACE_MEMBERS) throw invalidField('userId', `A space has at most ${MAX_SPACE_MEMBERS} members`);
    await saveSpace(space, { ...space, members: { ...members, [userId]: role }, updatedAt: ctx.clock.now().toISOString() });
    return { userId, name: user.name, role };
  });
}

/** DELETE /wiki/spaces/{spaceId}/members/{userId} (manage): 404 when the user is not on the list. */
export async function removeSpaceMember(ctx: DomainContext, spaceId: string, userId: string): Promise<void> {
  await retryLostRaces(async () => {
    const { space } = await enterSpace(ctx, spaceId, 'manage');
    const members = { ...membersOf(space) };
    if (!(userId in members)) throw notFound('Member of the wiki space');
    delete members[userId];
    await saveSpace(space, { ...space, members, updatedAt: ctx.clock.now().toISOString() });
  });
}
