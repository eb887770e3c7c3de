import { retryLostRaces } from '../../db/races.js';
import type { Clock } from '../../core/clock.js';
import { batchGetMixed } from '../../db/batch.js';
import { queryCount, type QueryParams } from '../../db/projected.js';
import { continueJob, type JobRun } from '../../events/index.js';
import { LOST_ASSIGNEES_JOB, userSeesBoard, type LostAssignees } from '../../boards/index.js';
import { systemContext } from '../system-context.js';
import type { DomainContext } from '../../db/context.js';
import { db } from '../../db/service.js';
import type { BoardItem, TicketItem, UserItem } from '../../db/entities/index.js';
import { loadOrgConfig, type OrgConfig } from '../config.js';
import type { TicketFieldChanges } from '../fields.js';
import { mapLimited } from '../../core/concurrency.js';
import { updateTicket, type UpdateOptions } from '../update.js';

/** What a bulk rewrite does with one ticket (decided again on a re-read after a lost race). */
export type BulkDecision =
  /** Write these changes. */
  | { changes: TicketFieldChanges; options?: UpdateOptions }
  /** Already as wanted: counted, not written. */
  | 'unchanged'
  /** Not concerned (any longer): neither counted nor written. */
  | 'skip';

const PARALLEL_WRITES = 8;

/**
 * Rewrites tickets one transaction each, through `updateTicket` (so each emits its events and
 * keeps its counters). A ticket that changed since it was read is read again and decided
 * again. Returns how many tickets are as wanted afterwards (written or already so).
 */
export async function rewriteTickets(
  ctx: DomainContext,
  tickets: TicketItem[],
  config: OrgConfig,
  boardOf: (ticket: TicketItem) => BoardItem | undefined,
  decide: (ticket: TicketItem) => BulkDecision,
): Promise<number> {
  const outcomes = await mapLimited(tickets, PARALLEL_WRITES, (first) =>
    retryLostRaces(async (attempt): Promise<number> => {
      // After a lost race (the ticket's version guard), decide again on the ticket as it is now.
      const ticket = attempt === 1 ? first : ((await db().entities.ticket.get({ ticketId: first.ticketId }).go({ consistent: true })).data ?? undefined);
      if (!ticket) return 0;
      const decision = ticket.isDeleted ? 'skip' : decide(ticket);
      const board = boardOf(ticket);
      if (decision === 'skip' || !board) return 0;
      if (decision === 'unchanged') return 1;
      await updateTicket(ctx, { board, ticket, config }, decision.changes, decision.options);
      return 1;
    }),
  );
  return outcomes.reduce((sum, outcome) => sum + outcome, 0);
}

/**
 * The number of the board's live tickets assigned to any of `userIds` (one COUNT Query of the
 * byAssignee index per user, narrowed to the board): what the lost-assignees job flags.
 */
export async function countTicketsOfAssignees(orgId: string, boardId: string, userIds: string[]): Promise<number> {
  const counts = await Promise.all(
    [...new Set(userIds)].map((userId) =>
      queryCount(db().entities.ticket.query.byAssignee({ orgId, assigneeKey: userId, boardId }).params() as QueryParams, {
        expression: '#deleted = :false',
        names: { '#deleted': 'isDeleted' },
        values: { ':false': false },
      }),
    ),
  );
  return counts.reduce((sum, count) => sum + count, 0);
}

/** Tickets one step of the lost-assignees job reads (about 2 s of writes at most). */
export const FLAGGED_PER_STEP = 200;

/**
 * One step of LOST_ASSIGNEES_JOB (run by lib/tickets/jobs.ts): the next FLAGGED_PER_STEP
 * tickets one lost user is assigned on the board, flagged as needing reassignment through the
 * ticket write path (ticket.updated, version), then the step that continues: that user's next
 * page, or the next user. A user who can see the board again by the time the step runs (added
 * back, or in another team of it) is passed over, and so is a ticket assigned to someone else
 * since. Idempotent: a flagged ticket is not written again, so a step replayed after a crash
 * redoes nothing. Done by the service (actor `system`).
 */
export async function flagLostAssigneesStep(event: JobRun<LostAssignees>, clock: Clock): Promise<number> {
  const job = event.data;
  const orgId = event.orgId;
  const index = job.user ?? 0;
  const userId = job.userIds[index];
  if (!userId) return 0;
  const [board, user] = (await batchGetMixed([
    { entity: db().entities.board, key: { orgId, boardId: job.boardId } },
    { entity: db().entities.user, key: { orgId, userId } },
  ])) as [BoardItem | undefined, UserItem | undefined];
  if (!board || board.isDeleted) return 0;
  let cursor: string | null = null;
  if (user && !userSeesBoard(user, board)) {
    const page = await db().entities.ticket.query.byAssignee({ orgId, assigneeKey: userId, boardId: board.boardId }).go({ limit: FLAGGED_PER_STEP, ...(job.cursor ? { cursor: job.cursor } : {}) });
    const tickets = (page.data as TicketItem[]).filter((ticket) => !ticket.isDeleted);
    if (tickets.length > 0) {
      await rewriteTickets(systemContext(clock, { orgId }), tickets, await loadOrgConfig(orgId), (ticket) => (ticket.boardId === board.boardId ? board : undefined), (ticket) => {
        if (ticket.assigneeId !== userId) return 'skip';
        return ticket.needsReassignment ? 'unchanged' : { changes: {}, options: { extra: { needsReassignment: true } } };
      });
    }
    cursor = page.cursor;
  }
  const next: LostAssignees = cursor ? { ...job, user: index, cursor } : { boardId: job.boardId, userIds: job.userIds, user: index + 1 };
  if (cursor || index + 1 < job.userIds.length) await continueJob(LOST_ASSIGNEES_JOB, event, clock, next);
  return 0;
}
