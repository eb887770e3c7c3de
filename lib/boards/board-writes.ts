import { notFound } from '../core/errors.js';
import { db } from '../db/service.js';
import { isConditionFailure } from '../db/transact.js';
import { LostRace } from '../db/races.js';
import type { BoardItem } from '../db/entities/index.js';
import type { BoardTeam } from './access.js';

/*
 * Every write to an existing board goes through here. Scalar fields and the member and
 * customer sets are written with a condition that the board is not deleted; the `teams`
 * list is read-modify-write guarded by `updatedAt` (optimistic locking).
 */

/**
 * A guarded board write found the board (or a team it copies) changed since it was read: the
 * caller reads again under `retryLostRaces`; if it keeps losing, 409 CONFLICT.
 */
export const boardChanged = (): LostRace => new LostRace('The board changed concurrently; retry');

/** Replaces the board's team assignments (optimistic lock on `updatedAt`); throws LostRace when it lost. */
export async function writeBoardTeams(board: BoardItem, teams: BoardTeam[], now: string): Promise<BoardItem> {
  try {
    const result = await db()
      .entities.board.patch({ orgId: board.orgId, boardId: board.boardId })
      .set({ teams, updatedAt: now })
      .where((attr, op) => op.eq(attr.updatedAt, board.updatedAt))
      .go({ response: 'all_new' });
    return result.data as BoardItem;
  } catch (error) {
    if (isConditionFailure(error)) throw boardChanged();
    throw error;
  }
}

type BoardFieldChanges = Partial<
  Pick<BoardItem, 'name' | 'description' | 'isArchived' | 'isDeleted' | 'deletedAt' | 'milestonesAndReleases' | 'explainableStatus' | 'enabledStatusIds' | 'transitionRules' | 'dispatchPaused' | 'monthlyBudgetMicros'>
> & { updatedAt: string };

/** A change of the direct members; adding to or deleting from a set is atomic, so it needs no lock. */
export type MemberChange = { add: string } | { remove: string };

/** Sets fields of a board that must still exist and not be deleted (else 404); returns the new board. */
export async function patchLiveBoard(board: BoardItem, changes: BoardFieldChanges, members?: MemberChange, remove: 'monthlyBudgetMicros'[] = []): Promise<BoardItem> {
  const patch = db().entities.board.patch({ orgId: board.orgId, boardId: board.boardId });
  const cleared = remove.length ? patch.remove(remove) : patch;
  const withMembers = !members ? cleared : 'add' in members ? cleared.add({ memberUserIds: [members.add] }) : cleared.delete({ memberUserIds: [members.remove] });
  try {
    const result = await withMembers
      .set(changes)
      .where((attr, op) => op.eq(attr.isDeleted, false))
      .go({ response: 'all_new' });
    return result.data as BoardItem;
  } catch (error) {
    if (isConditionFailure(error)) throw notFound('Board');
    throw error;
  }
}
