import { invalidField, notFound } from '../core/errors.js';
import type { DomainContext } from '../db/context.js';
import { db } from '../db/service.js';
import { batchGetMixed } from '../db/batch.js';
import { guarded, transact } from '../db/transact.js';
import type { BoardItem, TeamItem, UserItem } from '../db/entities/index.js';
import { eventPuts, jobKind, jobRecord, type JobPayload } from '../events/index.js';
import { requirePermission } from '../organizations/index.js';
import { loadVisibleBoard, membershipGrantsAccess, teamsOf, visibleOrNotFound, type BoardAccessSubject } from './access.js';
import { boardChanged, patchLiveBoard, writeBoardTeams } from './board-writes.js';
import { retryLostRaces } from '../db/races.js';
import { presentBoard } from './present.js';

/**
 * The number of the board's live tickets assigned to any of `userIds` (they can no longer see
 * the board): the tickets the background job flags as needing reassignment. Tickets build on
 * boards, so the tickets domain's implementation is handed in by the route (boards never import tickets).
 */
export type CountTicketsOfAssignees = (orgId: string, boardId: string, userIds: string[]) => Promise<number>;

/**
 * The background job that flags the live tickets of users who lost access to a board as needing
 * reassignment (run by the tickets domain, lib/tickets/jobs.ts). Recorded in the same
 * transaction as the membership change, so it is never lost nor run before it.
 */
export const LOST_ASSIGNEES_JOB = jobKind(
  'boards.lostAssignees',
  (z) => z.object({
    boardId: z.string(),
    /** The users who could see the board before the change and not after it. */
    userIds: z.array(z.string()),
    /** The user the next step reads, by position in `userIds`. */
    user: z.optional(z.int().check(z.nonnegative())),
    /** Where that user's Query reads on. */
    cursor: z.optional(z.string()),
  }),
);
export type LostAssignees = JobPayload<typeof LOST_ASSIGNEES_JOB>;

const lostAssigneesJob = (ctx: DomainContext, boardId: string, userIds: string[]) =>
  jobRecord(LOST_ASSIGNEES_JOB, ctx.org.orgId, ctx.clock, { subjectId: boardId, data: { boardId, userIds } });

/** Assigns a team to the board (the API reference); assigning an assigned team again changes nothing. */
export async function assignTeamToBoard(ctx: DomainContext, boardId: string, teamId: string) {
  requirePermission(ctx, 'boards:manage-members');
  return retryLostRaces(async () => {
    const [found, team] = (await batchGetMixed([
      { entity: db().entities.board, key: { orgId: ctx.org.orgId, boardId } },
      { entity: db().entities.team, key: { orgId: ctx.org.orgId, teamId } },
    ])) as [BoardItem | undefined, TeamItem | undefined];
    const board = visibleOrNotFound(ctx, found);
    if (!team) throw invalidField('teamId', 'Unknown team');
    if (teamsOf(board).some((entry) => entry.teamId === teamId)) return presentBoard(board, ctx.actor);
    const at = ctx.clock.now().toISOString();
    const teams = [...teamsOf(board), { teamId, name: team.name, color: team.color, assignedAt: at }];
    // The team check keeps a concurrent rename or delete of the team from being missed.
    await transact((e) => [
      guarded(
        e.board
          .patch({ orgId: ctx.org.orgId, boardId })
          .set({ teams, updatedAt: at })
          .where((attr, op) => op.eq(attr.updatedAt, board.updatedAt))
          .commit(),
        boardChanged,
      ),
      guarded(
        e.team
          .check({ orgId: ctx.org.orgId, teamId })
          .where((attr, op) => op.eq(attr.updatedAt, team.updatedAt))
          .commit(),
        boardChanged,
      ),
    ]);
    return presentBoard({ ...board, teams, updatedAt: at }, ctx.actor);
  });
}

/**
 * Removes a team from the board. Its members who thereby lose access to the board (not
 * administrators, not direct members, not in another team of the board) may leave tickets
 * behind that need another assignee: they are counted at once (one COUNT Query per such
 * user) and flagged in the background (LOST_ASSIGNEES_JOB, recorded with the change).
 */
export async function removeTeamFromBoard(ctx: DomainContext, boardId: string, teamId: string, countTicketsOfAssignees: CountTicketsOfAssignees) {
  requirePermission(ctx, 'boards:manage-members');
  const [listed, users] = await Promise.all([loadVisibleBoard(ctx, boardId, { consistent: true }), organizationUsers(ctx.org.orgId)]);
  return retryLostRaces(async (attempt) => {
    const board = attempt === 1 ? listed : await loadVisibleBoard(ctx, boardId, { consistent: true });
    if (!teamsOf(board).some((entry) => entry.teamId === teamId)) throw notFound('Team');
    const now = ctx.clock.now().toISOString();
    const teams = teamsOf(board).filter((entry) => entry.teamId !== teamId);
    const lost = usersLosingAccess(users, board, { ...board, teams });
    if (lost.length === 0) {
      await writeBoardTeams(board, teams, now);
      return { flaggedTicketCount: 0 };
    }
    await transact((e) => [
      guarded(
        e.board
          .patch({ orgId: ctx.org.orgId, boardId })
          .set({ teams, updatedAt: now })
          .where((attr, op) => op.eq(attr.updatedAt, board.updatedAt))
          .commit(),
        boardChanged,
      ),
      ...eventPuts(e, [lostAssigneesJob(ctx, boardId, lost)]),
    ]);
    return { flaggedTicketCount: await countTicketsOfAssignees(ctx.org.orgId, boardId, lost) };
  });
}

/** Adds a person or agent directly to the board: an active, internal (not CUSTOMER) user of the organization. */
export async function addBoardMember(ctx: DomainContext, boardId: string, userId: string) {
  requirePermission(ctx, 'boards:manage-members');
  const [found, user] = await loadBoardAndUser(ctx, boardId, userId);
  const board = visibleOrNotFound(ctx, found);
  if (!user) throw invalidField('userId', 'Unknown user');
  if (!user.isActive) throw invalidField('userId', 'The user is deactivated');
  if (user.role === 'CUSTOMER') throw invalidField('userId', 'Customer users get board access through their customer');
  if ((board.memberUserIds ?? []).includes(userId)) return presentBoard(board, ctx.actor);
  const updated = await patchLiveBoard(board, { updatedAt: ctx.clock.now().toISOString() }, { add: userId });
  return presentBoard(updated, ctx.actor);
}

/**
 * Removes a direct member; if that costs them access to the board, their tickets on it are
 * flagged in the background (LOST_ASSIGNEES_JOB, recorded with the change).
 */
export async function removeBoardMember(ctx: DomainContext, boardId: string, userId: string): Promise<void> {
  requirePermission(ctx, 'boards:manage-members');
  const [found, user] = await loadBoardAndUser(ctx, boardId, userId);
  const board = visibleOrNotFound(ctx, found);
  if (!(board.memberUserIds ?? []).includes(userId)) throw notFound('Board member');
  const now = ctx.clock.now().toISOString();
  const lost = usersLosingAccess(user ? [user] : [], board, { ...board, memberUserIds: (board.memberUserIds ?? []).filter((id) => id !== userId) });
  if (lost.length === 0) {
    await patchLiveBoard(board, { updatedAt: now }, { remove: userId });
    return;
  }
  // Removing from the set is atomic, so the write needs no lock; the job judges access again when it runs.
  await transact((e) => [
    guarded(
      e.board
        .patch({ orgId: ctx.org.orgId, boardId })
        .delete({ memberUserIds: [userId] })
        .set({ updatedAt: now })
        .where((attr, op) => op.eq(attr.isDeleted, false))
        .commit(),
      () => notFound('Board'),
    ),
    ...eventPuts(e, [lostAssigneesJob(ctx, boardId, lost)]),
  ]);
}

async function loadBoardAndUser(ctx: DomainContext, boardId: string, userId: string) {
  return (await batchGetMixed([
    { entity: db().entities.board, key: { orgId: ctx.org.orgId, boardId } },
    { entity: db().entities.user, key: { orgId: ctx.org.orgId, userId } },
  ])) as [BoardItem | undefined, UserItem | undefined];
}

async function organizationUsers(orgId: string): Promise<UserItem[]> {
  return (await db().entities.user.query.byOrg({ orgId }).go({ pages: 'all' })).data;
}

const accessSubject = (user: UserItem): BoardAccessSubject => ({
  userId: user.userId,
  role: user.role,
  customerId: user.customerId ?? null,
  teamIds: user.teamIds ?? [],
});

/** Whether the user (a person or agent of the organization) can see the board as it is now. */
export const userSeesBoard = (user: UserItem, board: BoardItem): boolean => membershipGrantsAccess(accessSubject(user), board);

/** The users who could see the board before a change and cannot after it. */
function usersLosingAccess(users: UserItem[], before: BoardItem, after: BoardItem): string[] {
  return users
    .map(accessSubject)
    .filter((subject) => membershipGrantsAccess(subject, before) && !membershipGrantsAccess(subject, after))
    .map((subject) => subject.userId);
}
