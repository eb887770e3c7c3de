import { invalidField, notFound } from '../core/errors.js';
import type { Actor, DomainContext } from '../db/context.js';
import { db } from '../db/service.js';
import { batchGetMixed } from '../db/batch.js';
import type { BoardItem, Role } from '../db/entities/index.js';

/** Who a person is, as far as board access is concerned (an actor or a stored user). */
export interface BoardAccessSubject {
  userId: string;
  role: Role;
  customerId: string | null;
  teamIds: ReadonlySet<string> | readonly string[];
}

/**
 * Whether the actor may see the board (docs/agents.md, board access): administrators see
 * every board; customers the boards their customer is assigned to; everyone else the boards
 * a team of theirs is assigned to or that they were added to directly. A token's
 * `allowedBoardIds` narrows this further (docs/agents.md). Deleted boards are seen by no one.
 */
export function canSeeBoard(actor: Actor, board: BoardItem): boolean {
  const allowed = actor.credential.allowedBoardIds;
  if (allowed.length > 0 && !allowed.includes(board.boardId)) return false;
  return membershipGrantsAccess(actor, board);
}

/**
 * The membership half of `canSeeBoard`, without token restrictions: also answers "who
 * loses access" when a team or a direct member is removed from a board.
 */
export function membershipGrantsAccess(subject: BoardAccessSubject, board: BoardItem): boolean {
  if (board.isDeleted) return false;
  if (subject.role === 'CUSTOMER') return subject.customerId !== null && (board.customerIds ?? []).includes(subject.customerId);
  if (subject.role === 'ADMIN') return true;
  if ((board.memberUserIds ?? []).includes(subject.userId)) return true;
  const teamIds = new Set(subject.teamIds);
  return teamsOf(board).some((team) => teamIds.has(team.teamId));
}

export interface BoardTeam {
  teamId: string;
  name: string;
  color: string;
  assignedAt: string;
}

export const teamsOf = (board: Pick<BoardItem, 'teams'>): BoardTeam[] => (board.teams as BoardTeam[] | undefined) ?? [];

/** The board if the caller may see it; 404 for a missing, deleted, foreign or hidden board. */
export function visibleOrNotFound(ctx: DomainContext, board: BoardItem | undefined): BoardItem {
  if (!board || !canSeeBoard(ctx.actor, board)) throw notFound('Board');
  return board;
}

/**
 * The board, if it exists in the caller's organization and the caller may see it; 404 otherwise.
 * `consistent` reads the latest write (used before guarded writes, so a retry sees the winner).
 */
export async function loadVisibleBoard(ctx: DomainContext, boardId: string, options: { consistent?: boolean } = {}): Promise<BoardItem> {
  const board = (await db().entities.board.get({ orgId: ctx.org.orgId, boardId }).go({ consistent: options.consistent ?? false })).data;
  return visibleOrNotFound(ctx, board ?? undefined);
}

/**
 * Every board of the organization that is not deleted (one Query, all pages). `consistent`
 * includes writes that finished just before (used when rewriting boards after a change).
 */
export async function listOrganizationBoards(orgId: string, options: { consistent?: boolean } = {}): Promise<BoardItem[]> {
  const { data } = await db()
    .entities.board.query.byOrg({ orgId })
    .where((attr, op) => op.eq(attr.isDeleted, false))
    .go({ pages: 'all', consistent: options.consistent ?? false });
  return data;
}

/**
 * The organization's board that follows `after` in id order, deleted ones too (the first when
 * `after` is undefined): one small Query. Background jobs walk the boards with it, a step at a
 * time, carrying the last board done.
 */
export async function nextBoardOf(orgId: string, after?: string): Promise<BoardItem | undefined> {
  const boards = db().entities.board.query.byOrg({ orgId });
  const { data } = await (after === undefined ? boards : boards.gt({ boardId: after })).go({ limit: 1 });
  return data[0];
}

/** Validates that every id names a live board of the organization (400 naming the field otherwise). */
export async function assertBoardsExist(ctx: DomainContext, boardIds: string[], field: string): Promise<void> {
  if (boardIds.length === 0) return;
  const unique = [...new Set(boardIds)];
  const boards = (await batchGetMixed(
    unique.map((boardId) => ({ entity: db().entities.board, key: { orgId: ctx.org.orgId, boardId } })),
  )) as (BoardItem | undefined)[];
  boards.forEach((board, index) => {
    if (!board || board.isDeleted) throw invalidField(`${field}.${boardIds.indexOf(unique[index]!)}`, 'Unknown board');
  });
}
