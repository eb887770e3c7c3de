import { db } from '../db/service.js';
import type { BoardItem } from '../db/entities/index.js';
import { listOrganizationBoards, teamsOf, type BoardTeam } from './access.js';
import { writeBoardTeams } from './board-writes.js';
import { retryLostRaces } from '../db/races.js';

/*
 * Keeps the boards' copies of team and customer assignments in step when the teams and
 * customers domains change a team or customer. The boards of a team or customer are found
 * with one consistent Query of the organization's boards.
 */

/** Rewrites the team's name and color on every board it is assigned to (after a team rename). */
export async function renameTeamOnBoards(orgId: string, team: { teamId: string; name: string; color: string }, now: string): Promise<void> {
  await rewriteTeamOnBoards(orgId, team.teamId, now, (teams) =>
    teams.map((entry) => (entry.teamId === team.teamId ? { ...entry, name: team.name, color: team.color } : entry)),
  );
}

/** Removes the team from every board it is assigned to (used when a team is deleted). */
export async function removeTeamFromBoards(orgId: string, teamId: string, now: string): Promise<void> {
  await rewriteTeamOnBoards(orgId, teamId, now, (teams) => teams.filter((entry) => entry.teamId !== teamId));
}

/** Removes the customer from every board (used when a customer is deleted). A set delete is atomic, so no lock is needed. */
export async function removeCustomerFromBoards(orgId: string, customerId: string, now: string): Promise<void> {
  const boards = (await listOrganizationBoards(orgId, { consistent: true })).filter((board) => (board.customerIds ?? []).includes(customerId));
  await Promise.all(
    boards.map((board) =>
      db()
        .entities.board.patch({ orgId, boardId: board.boardId })
        .delete({ customerIds: [customerId] })
        .set({ updatedAt: now })
        .go(),
    ),
  );
}

const hasTeam = (board: BoardItem, teamId: string) => teamsOf(board).some((team) => team.teamId === teamId);

/** Read-modify-write of each affected board's `teams`, guarded by its `updatedAt`, re-read on a lost race. */
async function rewriteTeamOnBoards(orgId: string, teamId: string, now: string, rewrite: (teams: BoardTeam[]) => BoardTeam[]): Promise<void> {
  const boards = (await listOrganizationBoards(orgId, { consistent: true })).filter((board) => hasTeam(board, teamId));
  await Promise.all(
    boards.map((listed) =>
      retryLostRaces(async (attempt) => {
        const board = attempt === 1 ? listed : (await db().entities.board.get({ orgId, boardId: listed.boardId }).go({ consistent: true })).data;
        if (!board || board.isDeleted || !hasTeam(board, teamId)) return;
        const teams = rewrite(teamsOf(board));
        if (JSON.stringify(teams) === JSON.stringify(teamsOf(board))) return;
        await writeBoardTeams(board, teams, now);
      }),
    ),
  );
}
