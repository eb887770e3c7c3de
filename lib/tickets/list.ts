import type { DomainContext } from '../core/context.js';
import { db } from '../db/service.js';
import { STATUS_CATEGORIES, type StatusCategory, type TicketItem } from '../db/entities/index.js';
import { paginate } from '../http/pagination.js';
import { canSeeBoard, listOrganizationBoards, loadVisibleBoard } from '../boards/index.js';
import { loadOrgConfig, type OrgConfig } from './config.js';
import { matchesFilters, sortTickets, type TicketFilters } from './filters.js';
import { presentTicket } from './present.js';

/**
 * The Queries that serve a board list, never touching other boards or organizations:
 * - a status filter reads those status columns (`byBoard`, category + status prefix);
 * - an assignee filter reads the assignee's tickets on this board (`byAssignee`);
 * - otherwise only the categories the list can show: ACTIVE, plus PLANNING with
 *   includePlanning and FINAL with includeArchived — finished history is not read for the
 *   default list, however long it grows.
 */
export async function queryBoardTickets(orgId: string, boardId: string, filters: TicketFilters, config: OrgConfig): Promise<TicketItem[]> {
  const tickets = db().entities.ticket;
  if (filters.statusIds?.length) {
    const statuses = [...new Set(filters.statusIds)].map((statusId) => config.status(statusId)).filter((status) => status !== undefined);
    const columns = await Promise.all(
      statuses.map((status) =>
        tickets.query.byBoard({ orgId, boardId, statusCategory: status.category, statusId: status.statusId }).go({ pages: 'all' }),
      ),
    );
    return columns.flatMap((column) => column.data);
  }
  if (filters.assigneeId) {
    return (await tickets.query.byAssignee({ orgId, assigneeKey: filters.assigneeId, boardId }).go({ pages: 'all' })).data;
  }
  const categories = categoriesShown(filters);
  if (categories.length === STATUS_CATEGORIES.length) return (await tickets.query.byBoard({ orgId, boardId }).go({ pages: 'all' })).data;
  const parts = await Promise.all(categories.map((statusCategory) => tickets.query.byBoard({ orgId, boardId, statusCategory }).go({ pages: 'all' })));
  return parts.flatMap((part) => part.data);
}

/** The status categories a list without a status filter can show (spec §3.1). */
export function categoriesShown(filters: TicketFilters): StatusCategory[] {
  return [
    'ACTIVE' as const,
    ...(filters.includePlanning ? (['PLANNING'] as const) : []),
    ...(filters.includeArchived ? (['FINAL'] as const) : []),
  ];
}

export interface ListQuery extends TicketFilters {
  page: number;
  limit: number;
}

export interface IssuesQuery extends ListQuery {
  /** Narrows to these boards (those the caller cannot see are ignored, never revealed). */
  boardIds?: string[];
}

/** GET /boards/{boardId}/tickets: board and configuration in parallel, then the ticket Queries (in parallel). */
export async function listBoardTickets(ctx: DomainContext, boardId: string, query: ListQuery) {
  const [, config] = await Promise.all([loadVisibleBoard(ctx, boardId), loadOrgConfig(ctx.org.orgId)]);
  const candidates = await queryBoardTickets(ctx.org.orgId, boardId, query, config);
  const context = { config, now: ctx.clock.now(), callerId: ctx.actor.userId };
  const matching = sortTickets(candidates.filter((ticket) => matchesFilters(ticket, query, context)), config);
  return paginate(matching.map((ticket) => presentTicket(ticket, config)), query.page, query.limit);
}

/**
 * GET /api/v1/issues: the same filters over every board the caller may see. Tickets
 * assigned to the caller come from `byAssignee` in one Query; otherwise each visible board
 * is queried (in parallel), so the cost follows the caller's boards, not the organization.
 */
export async function listIssues(ctx: DomainContext, query: IssuesQuery) {
  const [boards, config] = await Promise.all([listOrganizationBoards(ctx.org.orgId), loadOrgConfig(ctx.org.orgId)]);
  const wanted = query.boardIds?.length ? new Set(query.boardIds) : undefined;
  const visible = new Map(
    boards.filter((board) => canSeeBoard(ctx.actor, board) && (!wanted || wanted.has(board.boardId))).map((board) => [board.boardId, board]),
  );
  let candidates: TicketItem[];
  const assignee = query.assignedToMe ? ctx.actor.userId : query.assigneeId;
  if (assignee) {
    candidates = (await db().entities.ticket.query.byAssignee({ orgId: ctx.org.orgId, assigneeKey: assignee }).go({ pages: 'all' })).data;
  } else {
    candidates = (await mapLimited([...visible.keys()], 8, (boardId) => queryBoardTickets(ctx.org.orgId, boardId, query, config))).flat();
  }
  const context = { config, now: ctx.clock.now(), callerId: ctx.actor.userId };
  const matching = sortTickets(
    candidates.filter((ticket) => visible.has(ticket.boardId) && matchesFilters(ticket, query, context)),
    config,
  );
  return paginate(matching.map((ticket) => presentTicket(ticket, config)), query.page, query.limit);
}

/** Runs `work` over `items` with at most `limit` in flight. */
export async function mapLimited<T, R>(items: T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
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
