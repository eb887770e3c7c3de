import { invalidField, notFound } from '../core/errors.js';
import type { Actor, DomainContext } from '../core/context.js';
import { db } from '../db/service.js';
import { batchGetMixed } from '../db/batch.js';
import type { BoardItem } from '../db/entities/index.js';

/**
 * Whether the actor may see the board (DESIGN.md §4, "Board access"): administrators see
 * every board; customers the boards their customer is assigned to; everyone else the boards
 * a team of theirs is assigned to or that they were added to directly. A token's
 * `allowedBoardIds` narrows this further (spec §5.3). Deleted boards are seen by no one.
 */
export function canSeeBoard(actor: Actor, board: BoardItem): boolean {
  if (board.isDeleted) return false;
  const allowed = actor.credential.allowedBoardIds;
  if (allowed.length > 0 && !allowed.includes(board.boardId)) return false;
  if (actor.role === 'CUSTOMER') return actor.customerId !== null && (board.customerIds ?? []).includes(actor.customerId);
  if (actor.isAdmin) return true;
  if ((board.memberUserIds ?? []).includes(actor.userId)) return true;
  return teamsOf(board).some((team) => actor.teamIds.has(team.teamId));
}

export interface BoardTeam {
  teamId: string;
  name: string;
  color: string;
  assignedAt: string;
}

export const teamsOf = (board: BoardItem): BoardTeam[] => (board.teams as BoardTeam[] | undefined) ?? [];

/** The board, if it exists in the caller's organization and the caller may see it; 404 otherwise. */
export async function loadVisibleBoard(ctx: DomainContext, boardId: string): Promise<BoardItem> {
  const board = (await db().entities.board.get({ orgId: ctx.org.orgId, boardId }).go()).data;
  if (!board || !canSeeBoard(ctx.actor, board)) throw notFound('Board');
  return board;
}

/** Every board of the organization that is not deleted (one Query, all pages). */
export async function listOrganizationBoards(orgId: string): Promise<BoardItem[]> {
  const { data } = await db()
    .entities.board.query.byOrg({ orgId })
    .where((attr, op) => op.eq(attr.isDeleted, false))
    .go({ pages: 'all' });
  return data;
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
