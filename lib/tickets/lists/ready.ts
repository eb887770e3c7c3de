import type { DomainContext } from '../../db/context.js';
import { readyRankOf, type BoardItem, type TicketItem } from '../../db/entities/index.js';
import { db } from '../../db/service.js';
import { pageOf, pageWithTotal, type Page } from '../../core/pages.js';
import type { OrgConfig } from '../config.js';
import { BLOCKED_KEY, isReady } from '../record/readiness.js';
import { loadColumnCounts } from './column-counts.js';
import { mapLimited } from '../../core/concurrency.js';
import { lapsedClaimsOfOrganization } from '../record/claim-reads.js';
import { presentTicket } from '../present.js';
import type { Ticket } from '../shapes.js';
import { matchesFilters, type TicketFilters } from './filters.js';

/**
 * The ready queue's order: priority (critical first), due date (soonest first, none last),
 * position in the board's columns, then ticket id: the byReady index's sort key, compared as
 * the index compares it (lower-cased), so tickets read from several boards merge in index order.
 */
export const readyOrderKey = (ticket: TicketItem): string => `${readyRankOf(ticket)}#${ticket.ticketId}`.toLowerCase();

const byReadyOrder = (a: TicketItem, b: TicketItem): number => {
  const [left, right] = [readyOrderKey(a), readyOrderKey(b)];
  return left < right ? -1 : left > right ? 1 : 0;
};

interface BoardSource {
  boardId: string;
  buffer: TicketItem[];
  cursor: string | null;
  done: boolean;
}

/**
 * Ready tickets of these boards in queue order, read lazily: each board's byReady partition a
 * few entries at a time (`batch`, asked before each read: a reader may come to want more),
 * merged, plus the organization's lapsed but unswept claims (byOrgClaimExpiry: they are ready
 * again, though the index cannot know it yet). `accept` judges each ticket as read (the index
 * is eventually consistent, and holds tickets of the BLOCKED status, which only the
 * configuration names). What a caller stops reading is never read, so taking the first ready
 * ticket costs the same on a backlog of any size.
 */
export async function* readyTickets(
  orgId: string,
  boardIds: string[],
  accept: (ticket: TicketItem) => boolean,
  now: Date,
  batch: number | (() => number),
  lapsedRead: Promise<TicketItem[]> = lapsedClaimsOfOrganization(orgId, now),
): AsyncGenerator<TicketItem> {
  const wanted = new Set(boardIds);
  const sources: BoardSource[] = boardIds.map((boardId) => ({ boardId, buffer: [], cursor: null, done: false }));
  const fill = async (source: BoardSource) => {
    const { data, cursor } = await db().entities.ticket.query.byReady({ orgId, readyBoard: source.boardId }).go({ limit: typeof batch === 'number' ? batch : batch(), ...(source.cursor ? { cursor: source.cursor } : {}) });
    source.cursor = cursor ?? null;
    source.done = !cursor;
    source.buffer.push(...(data as TicketItem[]).filter(accept));
  };
  const [lapsed] = await Promise.all([
    lapsedRead.then((tickets) => tickets.filter((ticket) => wanted.has(ticket.boardId) && accept(ticket)).sort(byReadyOrder)),
    ...sources.map(fill),
  ]);
  const seen = new Set<string>();
  for (;;) {
    await Promise.all(sources.filter((source) => source.buffer.length === 0 && !source.done).map(async (source) => {
      while (source.buffer.length === 0 && !source.done) await fill(source);
    }));
    let best: TicketItem[] | undefined;
    for (const queue of [lapsed, ...sources.map((source) => source.buffer)]) {
      if (queue.length > 0 && (!best || byReadyOrder(queue[0]!, best[0]!) < 0)) best = queue;
    }
    if (!best) return;
    const next = best.shift()!;
    // A claim swept between the two reads can appear in both: once is enough.
    if (seen.has(next.ticketId)) continue;
    seen.add(next.ticketId);
    yield next;
  }
}

/** Filters of the ready queue beyond the boards (claim-next's inputs). */
export interface ReadyFilters {
  /** Only these statuses (each ACTIVE and not BLOCKED to be ready at all): e.g. In Progress but not In Review. */
  statusIds?: string[];
  labelIds?: string[];
  typeIds?: string[];
  priorities?: string[];
}

/** Whether a ticket is ready work that these filters let through. */
export function readyAcceptor(config: OrgConfig, now: Date, filters: ReadyFilters): (ticket: TicketItem) => boolean {
  const types = filters.typeIds?.length ? config.typesMatching(filters.typeIds) : undefined;
  return (ticket) =>
    isReady(ticket, config, now) &&
    (!filters.statusIds?.length || filters.statusIds.includes(ticket.statusId)) &&
    (!types || types.has(ticket.typeId)) &&
    (!filters.priorities?.length || filters.priorities.includes(ticket.priority)) &&
    (!filters.labelIds?.length || (ticket.labelIds ?? []).some((labelId) => filters.labelIds!.includes(labelId) && config.label(labelId) !== undefined));
}

/** Entries of a byReady partition read per Query by the ready list when it reads the boards' ready work whole. */
const LIST_BATCH = 200;

/** The list fields the counted path serves (the category flags change nothing for ready work, which is ACTIVE and live). */
const COUNTED_FIELDS = new Set(['page', 'limit', 'includePlanning', 'includeArchived']);

/**
 * GET /api/v1/issues?ready=true: the caller's ready work on the boards it may see, in queue
 * order. Without further filters the cost follows the page, whatever the backlog: the exact
 * `total` is the boards' ColumnCount `queued` counts of their ACTIVE statuses other than
 * BLOCKED, plus the lapsed but unswept claims that are ready again; the page is the first
 * (page × limit) tickets of the boards' queues merged (`readyTickets`, reading about a page per
 * board). With other filters (labels, types, priorities…), which no count covers, it reads the
 * boards' ready work whole (never the rest of their backlog) and pages it in memory.
 */
export async function listReadyIssues(ctx: DomainContext, boards: BoardItem[], filters: TicketFilters & { page: number; limit: number }, config: OrgConfig): Promise<Page<Ticket>> {
  const now = ctx.clock.now();
  const boardIds = boards.map((board) => board.boardId);
  if (Object.entries(filters).every(([field, value]) => value === undefined || COUNTED_FIELDS.has(field))) {
    return listCountedReady(ctx.org.orgId, boardIds, filters, config, now);
  }
  const context = { config, now, callerId: ctx.actor.userId };
  const accept = (ticket: TicketItem) => isReady(ticket, config, now) && matchesFilters(ticket, filters, context);
  const matching: TicketItem[] = [];
  for await (const ticket of readyTickets(ctx.org.orgId, boardIds, accept, now, LIST_BATCH)) matching.push(ticket);
  return pageOf(matching.map((ticket) => presentTicket(ticket, config, now)), filters.page, filters.limit);
}

/** The ready list without filters: total from the counts, the page from the queues' heads. */
async function listCountedReady(orgId: string, boardIds: string[], query: { page: number; limit: number }, config: OrgConfig, now: Date): Promise<Page<Ticket>> {
  const wanted = new Set(boardIds);
  const readyStatuses = config.statuses.filter((status) => status.category === 'ACTIVE' && status.key !== BLOCKED_KEY).map((status) => status.statusId);
  const accept = (ticket: TicketItem) => isReady(ticket, config, now);
  const end = query.page * query.limit;
  // One read of the lapsed claims for the total and the page alike.
  const lapsedRead = lapsedClaimsOfOrganization(orgId, now);
  const [counts, lapsed, heads] = await Promise.all([
    mapLimited(boardIds, 8, (boardId) => loadColumnCounts(orgId, boardId)),
    lapsedRead.then((tickets) => tickets.filter((ticket) => wanted.has(ticket.boardId) && accept(ticket))),
    (async () => {
      const taken: TicketItem[] = [];
      if (boardIds.length === 0) return taken;
      // A little beyond the page per Query: BLOCKED tickets and stale index entries are passed over.
      for await (const ticket of readyTickets(orgId, boardIds, accept, now, Math.min(LIST_BATCH, end + 5), lapsedRead)) {
        taken.push(ticket);
        if (taken.length >= end) break;
      }
      return taken;
    })(),
  ]);
  const queued = counts.reduce((sum, board) => sum + readyStatuses.reduce((inBoard, statusId) => inBoard + Math.max(0, board.get(statusId)?.queued ?? 0), 0), 0);
  const total = queued + lapsed.length;
  const items = heads.slice((query.page - 1) * query.limit, end).map((ticket) => presentTicket(ticket, config, now));
  return pageWithTotal(items, total, query.page, query.limit);
}
