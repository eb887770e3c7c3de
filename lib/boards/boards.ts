import { Conflict, conflict, invalidField, notFound } from '../core/errors.js';
import type { DomainContext } from '../db/context.js';
import { newId } from '../core/ids.js';
import { db } from '../db/service.js';
import { batchGetMixed } from '../db/batch.js';
import { guarded, transact } from '../db/transact.js';
import type { BoardItem, TeamItem } from '../db/entities/index.js';
import { pageOf } from '../core/pages.js';
import { requirePermission } from '../organizations/index.js';
import { canSeeBoard, listOrganizationBoards, loadVisibleBoard, type BoardTeam } from './access.js';
import { boardChanged, patchLiveBoard } from './board-writes.js';
import { retryLostRaces } from '../db/races.js';
import { prefixAlternatives, prefixFromName } from './prefix.js';
import { presentBoard } from './present.js';

export interface ListBoardsQuery {
  page: number;
  limit: number;
  search?: string;
  includeArchived?: boolean;
  archivedOnly?: boolean;
}

/**
 * The boards the caller may see (the API reference): archived ones only with `includeArchived`,
 * only archived ones with `archivedOnly`; `search` matches the name case-insensitively.
 * Sorted by name, then id.
 */
export async function listBoards(ctx: DomainContext, query: ListBoardsQuery) {
  const needle = query.search?.trim().toLowerCase();
  const boards = (await listOrganizationBoards(ctx.org.orgId))
    .filter((board) => canSeeBoard(ctx.actor, board))
    .filter((board) => (query.archivedOnly ? board.isArchived : query.includeArchived || !board.isArchived))
    .filter((board) => !needle || board.searchName.includes(needle))
    .sort((a, b) => a.searchName.localeCompare(b.searchName) || a.boardId.localeCompare(b.boardId));
  return pageOf(
    boards.map((board) => presentBoard(board, ctx.actor)),
    query.page,
    query.limit,
  );
}

export async function getBoard(ctx: DomainContext, boardId: string) {
  return presentBoard(await loadVisibleBoard(ctx, boardId), ctx.actor);
}

export interface CreateBoardInput {
  name: string;
  prefix?: string;
  description?: string;
  teamIds?: string[];
  customerIds?: string[];
}

/** The prefix a create wanted is held by another board (explicit prefix: 409; generated: try the next). */
class PrefixTaken extends Conflict {
  constructor(readonly prefix: string) {
    super(`The prefix ${prefix} is already in use`, { field: 'prefix', prefix });
  }
}

/** How many free alternatives of a generated prefix are tried before giving up. */
const GENERATED_PREFIX_ATTEMPTS = 3;

/**
 * Creates a board with its prefix reservation, team assignments and customers in one
 * transaction. Referenced customers are checked inside it; referenced teams are read first
 * (their name and color are copied onto the board) and guarded inside it by their
 * `updatedAt`, so a team renamed or deleted meanwhile makes the create start over.
 * A creator who is not an administrator becomes a direct member, so they see their board.
 */
/** A board as written: the entity derives `searchName` from its name. */
type NewBoard = Omit<BoardItem, 'searchName'>;

export async function createBoard(ctx: DomainContext, input: CreateBoardInput) {
  requirePermission(ctx, 'boards:create');
  return retryLostRaces(async () => {
    const teams = await loadTeams(ctx, input.teamIds ?? []);
    const at = ctx.clock.now().toISOString();
    const board: NewBoard = {
      orgId: ctx.org.orgId,
      boardId: newId('brd'),
      name: input.name,
      prefix: '',
      description: input.description ?? '',
      isArchived: false,
      isDeleted: false,
      teams: teams.map((team): BoardTeam => ({ teamId: team.teamId, name: team.name, color: team.color, assignedAt: at })),
      ...(ctx.actor.isAdmin ? {} : { memberUserIds: [ctx.actor.userId] }),
      ...(input.customerIds?.length ? { customerIds: [...new Set(input.customerIds)] } : {}),
      milestonesAndReleases: false,
      explainableStatus: false,
      ticketCounter: 0,
      createdAt: at,
      updatedAt: at,
    };
    const created = input.prefix
      ? await insertBoard(board, input.prefix.toUpperCase(), teams, input.customerIds ?? [])
      : await insertWithGeneratedPrefix(board, teams, input.customerIds ?? []);
    return presentBoard(created, ctx.actor);
  });
}

/** The referenced teams (one consistent BatchGetItem); 400 naming `teamIds.N` for an unknown one. */
async function loadTeams(ctx: DomainContext, teamIds: string[]): Promise<TeamItem[]> {
  const unique = [...new Set(teamIds)];
  if (unique.length === 0) return [];
  const teams = (await batchGetMixed(
    unique.map((teamId) => ({ entity: db().entities.team, key: { orgId: ctx.org.orgId, teamId } })),
  )) as (TeamItem | undefined)[];
  return teams.map((team, index) => {
    if (!team) throw invalidField(`teamIds.${teamIds.indexOf(unique[index]!)}`, 'Unknown team');
    return team;
  });
}

async function insertWithGeneratedPrefix(board: NewBoard, teams: TeamItem[], customerIds: string[]): Promise<NewBoard> {
  const base = prefixFromName(board.name);
  try {
    return await insertBoard(board, base, teams, customerIds);
  } catch (error) {
    if (!(error instanceof PrefixTaken)) throw error;
  }
  for (const candidate of (await freePrefixes(board.orgId, prefixAlternatives(base))).slice(0, GENERATED_PREFIX_ATTEMPTS)) {
    try {
      return await insertBoard(board, candidate, teams, customerIds);
    } catch (error) {
      // Taken between the read and the write by a concurrent create: try the next one.
      if (!(error instanceof PrefixTaken)) throw error;
    }
  }
  throw conflict(`No free prefix derived from ${base}; send one`, { field: 'prefix' });
}

/** Which of the candidates no board holds (one BatchGetItem of their reservations), in order. */
async function freePrefixes(orgId: string, candidates: string[]): Promise<string[]> {
  const reservations = await batchGetMixed(candidates.map((prefix) => ({ entity: db().entities.boardPrefix, key: { orgId, prefix } })));
  return candidates.filter((_, index) => reservations[index] === undefined);
}

/**
 * One TransactWriteItems: the prefix reservation (fails if taken), the board, a check per
 * team (unchanged since read) and per customer (exists). Deleted boards keep their
 * reservation, so a prefix is never reused within the organization.
 */
async function insertBoard(board: NewBoard, prefix: string, teams: TeamItem[], customerIds: string[]): Promise<NewBoard> {
  const created: NewBoard = { ...board, prefix };
  const uniqueCustomers = [...new Set(customerIds)];
  await transact((e) => [
    guarded(e.boardPrefix.create({ orgId: board.orgId, prefix, boardId: board.boardId }).commit(), () => new PrefixTaken(prefix)),
    guarded(e.board.create(created).commit(), boardChanged),
    ...teams.map((team) =>
      guarded(
        e.team
          .check({ orgId: board.orgId, teamId: team.teamId })
          .where((attr, op) => op.eq(attr.updatedAt, team.updatedAt))
          .commit(),
        boardChanged,
      ),
    ),
    ...uniqueCustomers.map((customerId) =>
      guarded(
        e.customer
          .check({ orgId: board.orgId, customerId })
          .where((attr, op) => op.exists(attr.customerId))
          .commit(),
        () => invalidField(`customerIds.${customerIds.indexOf(customerId)}`, 'Unknown customer'),
      ),
    ),
  ]);
  return created;
}

export interface UpdateBoardInput {
  name?: string;
  description?: string;
  isArchived?: boolean;
  features?: { milestonesAndReleases?: boolean; explainableStatus?: boolean };
  /** Replaces the customers assigned to the board (whose customer users then see it). */
  customerIds?: string[];
  dispatchPaused?: boolean;
  monthlyBudgetMicros?: number | null;
}

/** Changes the board's own fields (the prefix never changes: ticket display ids are built from it). */
export async function updateBoard(ctx: DomainContext, boardId: string, input: UpdateBoardInput) {
  requirePermission(ctx, 'boards:edit');
  const board = await loadVisibleBoard(ctx, boardId);
  const changes = {
    ...(input.name !== undefined ? { name: input.name } : {}),
    ...(input.description !== undefined ? { description: input.description } : {}),
    ...(input.isArchived !== undefined ? { isArchived: input.isArchived } : {}),
    ...(input.features?.milestonesAndReleases !== undefined ? { milestonesAndReleases: input.features.milestonesAndReleases } : {}),
    ...(input.features?.explainableStatus !== undefined ? { explainableStatus: input.features.explainableStatus } : {}),
    ...(input.dispatchPaused !== undefined ? { dispatchPaused: input.dispatchPaused } : {}),
    ...(input.monthlyBudgetMicros !== undefined && input.monthlyBudgetMicros !== null ? { monthlyBudgetMicros: input.monthlyBudgetMicros } : {}),
  };
  // A budget of null removes it (with the customers too: replaceCustomers writes the other fields).
  const clearsBudget = input.monthlyBudgetMicros === null && board.monthlyBudgetMicros !== undefined;
  if (clearsBudget) {
    const cleared = await patchLiveBoard(board, { ...changes, updatedAt: ctx.clock.now().toISOString() }, undefined, ['monthlyBudgetMicros']);
    if (input.customerIds === undefined) return presentBoard(cleared, ctx.actor);
  }
  if (input.customerIds !== undefined) return presentBoard(await replaceCustomers(ctx, board, changes, input.customerIds), ctx.actor);
  if (Object.keys(changes).length === 0) return presentBoard(board, ctx.actor);
  const updated = await patchLiveBoard(board, { ...changes, updatedAt: ctx.clock.now().toISOString() });
  return presentBoard(updated, ctx.actor);
}

/** One transaction: the board's fields and customer set, and a check that every customer exists. */
async function replaceCustomers(ctx: DomainContext, board: BoardItem, changes: Partial<BoardItem>, customerIds: string[]): Promise<BoardItem> {
  const unique = [...new Set(customerIds)];
  const at = ctx.clock.now().toISOString();
  await transact((e) => {
    const patch = e.board.patch({ orgId: board.orgId, boardId: board.boardId });
    const withCustomers = unique.length ? patch.set({ ...changes, customerIds: unique, updatedAt: at }) : patch.set({ ...changes, updatedAt: at }).remove(['customerIds']);
    return [
      guarded(withCustomers.where((attr, op) => op.eq(attr.isDeleted, false)).commit(), () => notFound('Board')),
      ...unique.map((customerId) =>
        guarded(
          e.customer
            .check({ orgId: board.orgId, customerId })
            .where((attr, op) => op.exists(attr.customerId))
            .commit(),
          () => invalidField(`customerIds.${customerIds.indexOf(customerId)}`, 'Unknown customer'),
        ),
      ),
    ];
  });
  return { ...board, ...changes, customerIds: unique, updatedAt: at };
}

/** POST .../archive and .../unarchive (the API reference): the same change as PATCH isArchived. */
export const setBoardArchived = (ctx: DomainContext, boardId: string, isArchived: boolean) => updateBoard(ctx, boardId, { isArchived });

/** Soft delete (the API reference): the board is 404 from now on; its prefix stays reserved. */
export async function deleteBoard(ctx: DomainContext, boardId: string): Promise<void> {
  requirePermission(ctx, 'boards:delete');
  const board = await loadVisibleBoard(ctx, boardId);
  const at = ctx.clock.now().toISOString();
  await patchLiveBoard(board, { isDeleted: true, deletedAt: at, updatedAt: at });
}
