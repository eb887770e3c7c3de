import type { Actor } from '../db/context.js';
import type { BoardItem } from '../db/entities/index.js';
import { teamsOf } from './access.js';

const byNameThenId = (a: { name: string; id: string }, b: { name: string; id: string }) =>
  a.name.localeCompare(b.name, undefined, { sensitivity: 'base' }) || a.id.localeCompare(b.id);

/**
 * The board as the API shows it (the API reference plus its team assignments, features and members).
 * A customer user sees only its own customer among the board's customers and none of the
 * internal team and member assignments.
 */
export function presentBoard(board: Omit<BoardItem, 'searchName'>, viewer: Actor) {
  const isCustomer = viewer.role === 'CUSTOMER';
  const customerIds = [...(board.customerIds ?? [])].filter((id) => !isCustomer || id === viewer.customerId).sort();
  return {
    id: board.boardId,
    name: board.name,
    prefix: board.prefix,
    description: board.description,
    isArchived: board.isArchived,
    createdAt: board.createdAt,
    updatedAt: board.updatedAt,
    teams: isCustomer ? [] : teamsOf(board).map((team) => ({ id: team.teamId, name: team.name, color: team.color })).sort(byNameThenId),
    features: { milestonesAndReleases: board.milestonesAndReleases, explainableStatus: board.explainableStatus },
    memberIds: isCustomer ? [] : [...(board.memberUserIds ?? [])].sort(),
    customerIds,
    dispatchPaused: board.dispatchPaused === true,
    monthlyBudgetMicros: isCustomer ? null : board.monthlyBudgetMicros ?? null,
  };
}

export type PresentedBoard = ReturnType<typeof presentBoard>;
