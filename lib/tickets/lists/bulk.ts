import { retryLostRaces } from '../../db/races.js';
import type { DomainContext } from '../../db/context.js';
import { db } from '../../db/service.js';
import type { BoardItem, TicketItem } from '../../db/entities/index.js';
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
 * Flags the board's live tickets assigned to any of `userIds` as needing reassignment (one
 * byAssignee Query per user, narrowed to the board; the organization configuration only
 * when there is something to write). Returns how many tickets carry the flag for them.
 */
export async function flagTicketsOfAssignees(ctx: DomainContext, board: BoardItem, userIds: string[]): Promise<number> {
  const lost = new Set(userIds);
  if (lost.size === 0) return 0;
  const orgId = ctx.org.orgId;
  const found = await Promise.all(
    [...lost].map((userId) => db().entities.ticket.query.byAssignee({ orgId, assigneeKey: userId, boardId: board.boardId }).go({ pages: 'all' })),
  );
  const tickets = found.flatMap((result) => result.data).filter((ticket) => !ticket.isDeleted);
  if (tickets.length === 0) return 0;
  const config = await loadOrgConfig(orgId);
  return rewriteTickets(
    ctx,
    tickets,
    config,
    (ticket) => (ticket.boardId === board.boardId ? board : undefined),
    (ticket) => {
      if (!ticket.assigneeId || !lost.has(ticket.assigneeId)) return 'skip';
      return ticket.needsReassignment ? 'unchanged' : { changes: {}, options: { extra: { needsReassignment: true } } };
    },
  );
}
