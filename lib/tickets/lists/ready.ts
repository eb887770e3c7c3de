import type { DomainContext } from '../../db/context.js';
import { readyRankOf, type BoardItem, type TicketItem } from '../../db/entities/index.js';
import { db } from '../../db/service.js';
import { pageOf } from '../../core/pages.js';
import type { OrgConfig } from '../config.js';
import { isReady } from '../dependencies/readiness.js';
import { lapsedClaimsOfOrganization } from '../claims/expiry.js';
import { presentTicket } from '../present.js';
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
 * few entries at a time (`batch`), merged, plus the organization's lapsed but unswept claims
 * (byOrgClaimExpiry: they are ready again, though the index cannot know it yet). `accept`
 * judges each ticket as read (the index is eventually consistent, and holds tickets of the
 * BLOCKED status, which only the configuration names). What a caller stops reading is never
 * read, so taking the first ready ticket costs the same on a backlog of any size.
 */
export async function* readyTickets(orgId: string, boardIds: string[], accept: (ticket: TicketItem) => boolean, now: Date, batch: number): AsyncGenerator<TicketItem> {
  const wanted = new Set(boardIds);
  const sources: BoardSource[] = boardIds.map((boardId) => ({ boardId, buffer: [], cursor: null, done: false }));
  const fill = async (source: BoardSource) => {
    const { data, cursor } = await db().entities.ticket.query.byReady({ orgId, readyBoard: source.boardId }).go({ limit: batch, ...(source.cursor ? { cursor: source.cursor } : {}) });
    source.cursor = cursor ?? null;
    source.done = !cursor;
    source.buffer.push(...(data as TicketItem[]).filter(accept));
  };
  const [lapsed] = await Promise.all([
    lapsedClaimsOfOrganization(orgId, now).then((tickets) => tickets.filter((ticket) => wanted.has(ticket.boardId) && accept(ticket)).sort(byReadyOrder)),
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
  return (ticket) =>
    isReady(ticket, config, now) &&
    (!filters.statusIds?.length || filters.statusIds.includes(ticket.statusId)) &&
    (!filters.typeIds?.length || filters.typeIds.includes(ticket.typeId)) &&
    (!filters.priorities?.length || filters.priorities.includes(ticket.priority)) &&
    (!filters.labelIds?.length || (ticket.labelIds ?? []).some((labelId) => filters.labelIds!.includes(labelId) && config.label(labelId) !== undefined));
}

/** Entries of a byReady partition read per Query by the ready list (it reads the boards' ready work whole). */
const LIST_BATCH = 200;

/**
 * GET /api/v1/issues?ready=true: the caller's ready work on the boards it may see, in queue
 * order, with the list's other filters. Reads the ready work of those boards (never the rest of
 * their backlog) to give the exact total.
 */
export async function listReadyIssues(ctx: DomainContext, boards: BoardItem[], filters: TicketFilters & { page: number; limit: number }, config: OrgConfig) {
  const now = ctx.clock.now();
  const context = { config, now, callerId: ctx.actor.userId };
  const accept = (ticket: TicketItem) => isReady(ticket, config, now) && matchesFilters(ticket, filters, context);
  const matching: TicketItem[] = [];
  for await (const ticket of readyTickets(ctx.org.orgId, boards.map((board) => board.boardId), accept, now, LIST_BATCH)) matching.push(ticket);
  return pageOf(matching.map((ticket) => presentTicket(ticket, config, now)), filters.page, filters.limit);
}
