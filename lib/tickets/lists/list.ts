import { loadTickets } from '../access.js';
import type { DomainContext } from '../../db/context.js';
import { db } from '../../db/service.js';
import { STATUS_CATEGORIES, type BoardItem, type ColumnCountItem, type StatusCategory, type StatusItem, type TicketItem } from '../../db/entities/index.js';
import { pageOf } from '../../core/pages.js';
import { canSeeBoard, listOrganizationBoards, loadVisibleBoard } from '../../boards/index.js';
import { loadOrgConfig, type OrgConfig } from '../config.js';
import { isStatusShown, matchesFilters, sortTickets, type TicketFilters } from './filters.js';
import { hasLiveClaim } from '../record/lease.js';
import { lapsedClaimsOfOrganization, liveClaimsOf, quarantineEntries } from '../record/claim-reads.js';
import { presentTicket } from '../present.js';
import { listReadyIssues } from './ready.js';
import { loadColumnCounts } from './column-counts.js';
import { mapLimited } from '../../core/concurrency.js';
import { COLUMN_LIST_FIELDS, columnsShown, pageOfTickets, pageSpans, readStatusColumn, servedByColumns, shownCount } from './columns.js';
import { facetPlan, listByFacets } from './facets.js';
import { listBySearch, servedBySearch } from './search.js';

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
        readStatusColumn(status, Number.POSITIVE_INFINITY, async (statusCategory) =>
          (await tickets.query.byBoard({ orgId, boardId, statusCategory, statusId: status.statusId }).go({ pages: 'all' })).data,
        ),
      ),
    );
    return columns.flat();
  }
  if (filters.assigneeId) {
    return (await tickets.query.byAssignee({ orgId, assigneeKey: filters.assigneeId, boardId }).go({ pages: 'all' })).data;
  }
  if (filters.milestoneId) {
    return (await tickets.query.byMilestone({ orgId, milestoneKey: filters.milestoneId }).go({ pages: 'all' })).data.filter((ticket) => ticket.boardId === boardId);
  }
  const categories = categoriesShown(filters);
  if (categories.length === STATUS_CATEGORIES.length) return (await tickets.query.byBoard({ orgId, boardId }).go({ pages: 'all' })).data;
  // A shown status whose tickets are moving to its category (`recategorizing`) has some still under a
  // category not read: those columns are read first, so a ticket that moves meanwhile is read
  // again (its newer copy kept), never missed.
  const moving = config.statuses
    .filter((status) => status.recategorizing && categories.includes(status.category))
    .flatMap((status) => STATUS_CATEGORIES.filter((category) => !categories.includes(category)).map((statusCategory) => ({ statusCategory, statusId: status.statusId })));
  const left = (await Promise.all(moving.map((column) => tickets.query.byBoard({ orgId, boardId, ...column }).go({ pages: 'all' })))).flatMap((part) => part.data);
  const parts = await Promise.all(categories.map((statusCategory) => tickets.query.byBoard({ orgId, boardId, statusCategory }).go({ pages: 'all' })));
  const read = parts.flatMap((part) => part.data);
  return left.length === 0 ? read : [...new Map([...left, ...read].map((ticket) => [ticket.ticketId, ticket])).values()];
}

/** The status categories a list without a status filter can show (the API reference). */
export function categoriesShown(filters: TicketFilters): StatusCategory[] {
  return (['ACTIVE', 'PLANNING', 'FINAL'] as const).filter((category) => isStatusShown({ category }, filters));
}

export interface ListQuery extends TicketFilters {
  page: number;
  limit: number;
}

export interface IssuesQuery extends ListQuery {
  /** Narrows to these boards (those the caller cannot see are ignored, never revealed). */
  boardIds?: string[];
  /** Only ready work, in queue order (lists/ready.ts). */
  ready?: boolean;
  /** Only quarantined tickets (claims/quarantine.ts): read from the organization's quarantine entries, never the boards. */
  quarantined?: boolean;
}

/**
 * GET /boards/{boardId}/tickets. Lists that filter only by status (and the category flags)
 * take the fast path (`listBoardColumns`): cost proportional to the page. A list with one
 * facet filter (assignee, type, label, customer, priority, impact, due dates) reads that
 * facet's index entries (lists/facets.ts), a search the search index (lists/search.ts). Every
 * other filter reads what its Query selects in full: board and configuration in parallel, then the ticket
 * Queries (in parallel), `matchesFilters`, sort, page in memory.
 */
export async function listBoardTickets(ctx: DomainContext, boardId: string, query: ListQuery) {
  if (servedByColumns(query)) {
    const [, config, counts] = await Promise.all([loadVisibleBoard(ctx, boardId), loadOrgConfig(ctx.org.orgId), loadColumnCounts(ctx.org.orgId, boardId)]);
    // A board whose live tickets fit in one page is cheaper read whole by category (one Query
    // for the default list) than column by column.
    const liveTickets = [...counts.values()].reduce((sum, count) => sum + count.total, 0);
    if (liveTickets <= query.limit) return listFromQueries(ctx, boardId, query, config);
    const page = await listBoardColumns(ctx.org.orgId, boardId, query, config, counts, ctx.clock.now());
    if (page) return page;
    return listFromQueries(ctx, boardId, query, config);
  }
  const [, config] = await Promise.all([loadVisibleBoard(ctx, boardId), loadOrgConfig(ctx.org.orgId)]);
  return (await listFromIndexes(ctx, [boardId], query, config)) ?? listFromQueries(ctx, boardId, query, config);
}

/**
 * A search from the search index, or a list with one facet filter from the facet index;
 * undefined for every other list (and a search while too many tickets are pending).
 */
async function listFromIndexes(ctx: DomainContext, boardIds: string[], filters: ListQuery, config: OrgConfig) {
  if (servedBySearch(filters)) {
    const page = await listBySearch(ctx, boardIds, filters, config);
    if (page) return page;
  }
  const plan = facetPlan(filters, ctx.actor.userId, config);
  return plan ? listByFacets(ctx, boardIds, filters, plan, config) : undefined;
}

/** The full-read path: every ticket the list's Queries select, filtered, sorted, paged in memory. */
async function listFromQueries(ctx: DomainContext, boardId: string, query: ListQuery, config: OrgConfig) {
  const candidates = await queryBoardTickets(ctx.org.orgId, boardId, query, config);
  const context = { config, now: ctx.clock.now(), callerId: ctx.actor.userId };
  const matching = sortTickets(candidates.filter((ticket) => matchesFilters(ticket, query, context)), config);
  return pageOf(matching.map((ticket) => presentTicket(ticket, config, ctx.clock.now())), query.page, query.limit);
}

/** `/issues` serves `claimable` by columns too (ColumnCount `claimed` and the lapsed claims). */
const ISSUE_COLUMN_FIELDS = new Set([...COLUMN_LIST_FIELDS, 'claimable']);

/**
 * The fast path of a board list (no filter but statuses and the category flags): the exact
 * `total` is the sum of the shown columns' counts; the page is read from the byBoard index,
 * whose order within a column (positionKey, ticketId) is the list order. Columns wholly before
 * the page are skipped by their counts; each column the page reaches is read from its start
 * (the page's part of it and what precedes it in the column, archived and deleted tickets
 * filtered out by DynamoDB), those columns in parallel. Returns undefined when the board still
 * holds live tickets of a status the organization no longer has: without a status filter those
 * sort together after every known status, by position, across statuses, which only the
 * full-read path reproduces.
 */
export async function listBoardColumns(orgId: string, boardId: string, query: ListQuery, config: OrgConfig, counts: Map<string, ColumnCountItem>, now: Date) {
  const includeArchived = query.includeArchived === true;
  if (!query.statusIds?.length && [...counts.values()].some((count) => !config.status(count.statusId) && shownCount(count, includeArchived) > 0)) {
    return undefined;
  }
  const columns = columnsShown(config, query).map((status) => ({ status, count: counts.get(status.statusId), shown: shownCount(counts.get(status.statusId), includeArchived) }));
  const { total, spans } = pageSpans(columns, query);
  const parts = await Promise.all(
    spans.map(async ({ column, skip, take }) =>
      (await readColumn(orgId, boardId, column.status, skip + take, includeArchived, column.count?.archived ?? 0)).slice(skip),
    ),
  );
  return pageOfTickets(parts.flat(), total, query, config, now);
}

/**
 * Deleted tickets stay in their column's key range (flagged, uncounted): each column Query
 * reads this many items beyond what the counts require, so a few of them cost no extra Query.
 */
const DELETED_SLACK = 10;

/**
 * The first `count` listed tickets of one column, in index order. DynamoDB's Limit counts
 * items before the filter drops deleted (and, without includeArchived, archived) tickets, so
 * it covers the column's archived tickets (known from its count) plus DELETED_SLACK: one
 * Query, unless more deleted tickets than that precede the page's end (ElectroDB's `count`
 * then reads on until it has `count` tickets or the column ends).
 */
async function readColumn(orgId: string, boardId: string, status: StatusItem, count: number, includeArchived: boolean, archived: number): Promise<TicketItem[]> {
  return readStatusColumn(status, count, async (statusCategory) => {
    const { data } = await db()
      .entities.ticket.query.byBoard({ orgId, boardId, statusCategory, statusId: status.statusId })
      .where((attr, op) => (includeArchived ? op.eq(attr.isDeleted, false) : `${op.eq(attr.isDeleted, false)} AND ${op.eq(attr.isArchived, false)}`))
      .go({ count, limit: count + (includeArchived ? 0 : archived) + DELETED_SLACK });
    // Defensive: the filter already dropped them.
    return data.filter((ticket) => !ticket.isDeleted && (includeArchived || !ticket.isArchived)).slice(0, count);
  });
}

/**
 * GET /api/v1/issues: the same filters over every board the caller may see. A holder's
 * claimed tickets (`claimedBy`) come from `byClaimHolder`, assigned tickets from `byAssignee`,
 * each one Query. A list filtered only by status
 * and the category flags (and `boardId`) takes the cross-board column path
 * (`listIssuesByColumns`); any other filter reads each visible board's matching Query (in
 * parallel), so the cost follows the caller's boards, never the organization's other data.
 */
export async function listIssues(ctx: DomainContext, query: IssuesQuery) {
  const [boards, config] = await Promise.all([listOrganizationBoards(ctx.org.orgId), loadOrgConfig(ctx.org.orgId)]);
  const wanted = query.boardIds?.length ? new Set(query.boardIds) : undefined;
  const visible = new Map(
    boards.filter((board) => canSeeBoard(ctx.actor, board) && (!wanted || wanted.has(board.boardId))).map((board) => [board.boardId, board]),
  );
  const { boardIds: _boardIds, ready, quarantined, ...filters } = query;
  if (ready) return listReadyIssues(ctx, [...visible.values()], filters, config);
  if (quarantined) {
    // The ticket's own board decides what the caller sees (an entry's board is where the ticket was quarantined).
    const entries = await quarantineEntries(ctx.org.orgId);
    const tickets = (await loadTickets(ctx, entries.map((entry) => entry.ticketId))).filter((ticket) => ticket.quarantinedAt);
    const context = { config, now: ctx.clock.now(), callerId: ctx.actor.userId };
    const matching = sortTickets(tickets.filter((ticket) => visible.has(ticket.boardId) && matchesFilters(ticket, filters, context)), config);
    return pageOf(matching.map((ticket) => presentTicket(ticket, config, ctx.clock.now())), query.page, query.limit);
  }
  if (servedByColumns(filters, ISSUE_COLUMN_FIELDS)) {
    const page = await listIssuesByColumns(ctx, [...visible.values()], filters, config);
    if (page) return page;
  }
  const indexed = await listFromIndexes(ctx, [...visible.keys()], filters, config);
  if (indexed) return indexed;
  let candidates: TicketItem[];
  const assignee = query.assignedToMe ? ctx.actor.userId : query.assigneeId;
  if (typeof query.claimedBy === 'string') {
    // The holder's live claims (byClaimHolder, expiry after now): a handful, whatever the boards hold.
    candidates = await liveClaimsOf(ctx.org.orgId, query.claimedBy, ctx.clock.now());
  } else if (assignee) {
    candidates = (await db().entities.ticket.query.byAssignee({ orgId: ctx.org.orgId, assigneeKey: assignee }).go({ pages: 'all' })).data;
  } else {
    candidates = (await mapLimited([...visible.keys()], 8, (boardId) => queryBoardTickets(ctx.org.orgId, boardId, query, config))).flat();
  }
  const context = { config, now: ctx.clock.now(), callerId: ctx.actor.userId };
  const matching = sortTickets(
    candidates.filter((ticket) => visible.has(ticket.boardId) && matchesFilters(ticket, query, context)),
    config,
  );
  return pageOf(matching.map((ticket) => presentTicket(ticket, config, ctx.clock.now())), query.page, query.limit);
}

/**
 * Boards whose display-id counter (every ticket ever numbered on the board, an upper bound of
 * its live tickets) stays at or below this are read whole by `/issues`' column path: one Query
 * per category shown costs less than counts plus column reads.
 */
export const SMALL_BOARD_TICKETS = 100;

/**
 * The cross-board fast path of GET /api/v1/issues (no filter but statuses, the category flags
 * and boardId). The list order is the organization's status order, then position and ticket
 * id across boards, so each status column of the list is the union of the boards' columns.
 * Small boards are read whole (their tickets counted as read); larger boards contribute their
 * ColumnCount items, and for each column the page reaches, their first (skip + take) tickets
 * of that column (`readColumn`), which contain every ticket the page can take from them. The
 * union is sorted like `sortTickets` and sliced: the same page and exact total as the
 * full-read path, at a cost that follows the page instead of the boards' sizes. Returns
 * undefined (full-read path) when a board holds live tickets of a status the organization no
 * longer has.
 */
async function listIssuesByColumns(ctx: DomainContext, boards: BoardItem[], query: ListQuery, config: OrgConfig) {
  const orgId = ctx.org.orgId;
  const now = ctx.clock.now();
  const includeArchived = query.includeArchived === true;
  const claimable = query.claimable === true;
  const small = boards.filter((board) => (board.ticketCounter ?? 0) <= SMALL_BOARD_TICKETS);
  const large = boards.filter((board) => (board.ticketCounter ?? 0) > SMALL_BOARD_TICKETS);
  const [smallTickets, largeCounts, lapsed] = await Promise.all([
    mapLimited(small, 8, (board) => queryBoardTickets(orgId, board.boardId, query, config)).then((parts) => parts.flat()),
    mapLimited(large, 8, (board) => loadColumnCounts(orgId, board.boardId)),
    claimable && large.length > 0 ? lapsedClaimsOfOrganization(orgId, now) : Promise.resolve([]),
  ]);
  const context = { config, now, callerId: ctx.actor.userId };
  const smallMatching = smallTickets.filter((ticket) => matchesFilters(ticket, query, context));
  if (!query.statusIds?.length) {
    const unknownStatus = (statusId: string) => !config.status(statusId);
    if (smallMatching.some((ticket) => unknownStatus(ticket.statusId))) return undefined;
    if (largeCounts.some((counts) => [...counts.values()].some((count) => unknownStatus(count.statusId) && shownCount(count, includeArchived) > 0))) return undefined;
  }
  // Claimable: never a FINAL status; a large board's column loses its live claims (claimed − lapsed).
  const shownStatuses = columnsShown(config, query).filter((status) => !claimable || status.category !== 'FINAL');
  const lapsedShown = (boardId: string, statusId: string) =>
    lapsed.filter((ticket) => ticket.boardId === boardId && ticket.statusId === statusId && !ticket.isDeleted && (includeArchived || !ticket.isArchived)).length;
  const columns = shownStatuses.map((status) => {
    const fromSmall = smallMatching.filter((ticket) => ticket.statusId === status.statusId);
    const fromLarge = large
      .map((board, index) => {
        const count = largeCounts[index]!.get(status.statusId);
        const claimedShown = claimable ? (count?.claimed ?? 0) - (includeArchived ? 0 : (count?.claimedArchived ?? 0)) : 0;
        const liveClaims = claimable ? Math.max(0, claimedShown - lapsedShown(board.boardId, status.statusId)) : 0;
        return { board, count, liveClaims, shown: Math.max(0, shownCount(count, includeArchived) - liveClaims) };
      })
      .filter((entry) => entry.shown > 0);
    return { status, fromSmall, fromLarge, shown: fromSmall.length + fromLarge.reduce((sum, entry) => sum + entry.shown, 0) };
  });
  const { total, spans } = pageSpans(columns, query);
  const parts = await Promise.all(
    spans.map(async ({ column, skip, take }) => {
      const fromLarge = await mapLimited(column.fromLarge, 8, async (entry) => {
        // Read past the column's live claims (at most `liveClaims` of the first tickets), then drop them.
        const read = await readColumn(orgId, entry.board.boardId, column.status, Math.min(skip + take, entry.shown) + entry.liveClaims, includeArchived, entry.count?.archived ?? 0);
        return claimable ? read.filter((ticket) => !hasLiveClaim(ticket, now)) : read;
      });
      return sortTickets([...column.fromSmall, ...fromLarge.flat()], config).slice(skip, skip + take);
    }),
  );
  return pageOfTickets(parts.flat(), total, query, config, now);
}
