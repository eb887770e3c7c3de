import type { DomainContext } from '../core/context.js';
import { db } from '../db/service.js';
import type { TicketItem } from '../db/entities/index.js';
import { paginate } from '../http/pagination.js';
import { canSeeBoard, listOrganizationBoards, loadVisibleBoard } from '../boards/index.js';
import { loadOrgConfig } from './config.js';
import { matchesFilters, sortTickets, type TicketFilters } from './filters.js';
import { presentTicket } from './present.js';

/**
 * The Query that serves a board list: one status column per requested status
 * (`byBoard`, begins_with statusId), the assignee's tickets on this board (`byAssignee`),
 * or the whole board. Never touches other boards' or organizations' tickets.
 */
export async function queryBoardTickets(orgId: string, boardId: string, filters: TicketFilters): Promise<TicketItem[]> {
  const tickets = db().entities.ticket;
  if (filters.statusIds?.length) {
    const columns = await Promise.all(
      [...new Set(filters.statusIds)].map((statusId) => tickets.query.byBoard({ orgId, boardId, statusId }).go({ pages: 'all' })),
    );
    return columns.flatMap((column) => column.data);
  }
  if (filters.assigneeId) {
    return (await tickets.query.byAssignee({ orgId, assigneeKey: filters.assigneeId, boardId }).go({ pages: 'all' })).data;
  }
  return (await tickets.query.byBoard({ orgId, boardId }).go({ pages: 'all' })).data;
}

export interface ListQuery extends TicketFilters {
  page: number;
  limit: number;
}

/** GET /boards/{boardId}/tickets: board, configuration and tickets read in parallel. */
export async function listBoardTickets(ctx: DomainContext, boardId: string, query: ListQuery) {
  const [, config, candidates] = await Promise.all([
    loadVisibleBoard(ctx, boardId),
    loadOrgConfig(ctx.org.orgId),
    queryBoardTickets(ctx.org.orgId, boardId, query),
  ]);
  const context = { config, now: ctx.clock.now(), callerId: ctx.actor.userId };
  const matching = sortTickets(candidates.filter((ticket) => matchesFilters(ticket, query, context)), config);
  return paginate(matching.map((ticket) => presentTicket(ticket, config)), query.page, query.limit);
}

/**
 * GET /api/v1/issues: the same filters over every board the caller may see. Tickets
 * assigned to the caller come from `byAssignee` in one Query; otherwise each visible board
 * is queried (in parallel), so the cost follows the caller's boards, not the organization.
 */
export async function listIssues(ctx: DomainContext, query: ListQuery) {
  const [boards, config] = await Promise.all([listOrganizationBoards(ctx.org.orgId), loadOrgConfig(ctx.org.orgId)]);
  const visible = new Map(boards.filter((board) => canSeeBoard(ctx.actor, board)).map((board) => [board.boardId, board]));
  let candidates: TicketItem[];
  const assignee = query.assignedToMe ? ctx.actor.userId : query.assigneeId;
  if (assignee) {
    candidates = (await db().entities.ticket.query.byAssignee({ orgId: ctx.org.orgId, assigneeKey: assignee }).go({ pages: 'all' })).data;
  } else {
    candidates = (await mapLimited([...visible.keys()], 8, (boardId) => queryBoardTickets(ctx.org.orgId, boardId, query))).flat();
  }
  const context = { config, now: ctx.clock.now(), callerId: ctx.actor.userId };
  const matching = sortTickets(
    candidates.filter((ticket) => visible.has(ticket.boardId) && matchesFilters(ticket, query, context)),
    config,
  );
  return paginate(matching.map((ticket) => presentTicket(ticket, config)), query.page, query.limit);
}

/** Runs `work` over `items` with at most `limit` in flight. */
async function mapLimited<T, R>(items: T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const workers = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]!);
    }
  });
  await Promise.all(workers);
  return results;
}
