import { STATUS_CATEGORIES, type ColumnCountItem, type StatusCategory, type StatusItem, type TicketItem } from '../../db/entities/index.js';
import { pageWithTotal, type Page } from '../../core/pages.js';
import type { OrgConfig } from '../config.js';
import { presentTicket } from '../present.js';
import { isStatusShown, sortInColumn, type TicketFilters } from './filters.js';

/** The list fields every index path serves besides its own filter: the page and the status filters. */
export const COLUMN_LIST_FIELDS = new Set(['page', 'limit', 'statusIds', 'includePlanning', 'includeArchived']);

/** Whether a list filters by nothing but the given fields (by default status and the category flags); a field set even to false counts. */
export function servedByColumns(query: object, fields: Set<string> = COLUMN_LIST_FIELDS): boolean {
  return Object.entries(query).every(([field, value]) => value === undefined || fields.has(field));
}

/** A page of tickets already in list order with its exact total, shaped like `pageOf`'s. */
export function pageOfTickets(tickets: TicketItem[], total: number, query: { page: number; limit: number }, config: OrgConfig, now: Date): Page<ReturnType<typeof presentTicket>> {
  return pageWithTotal(tickets.map((ticket) => presentTicket(ticket, config, now)), total, query.page, query.limit);
}

/**
 * The status columns a list shows, in list order (organization status order): the statuses
 * asked for by id (any category), or those `matchesFilters` lets through without a status
 * filter: ACTIVE, PLANNING with includePlanning, FINAL with includeArchived, and a status
 * marked `isFinal` only with includeArchived.
 */
export function columnsShown(config: OrgConfig, filters: TicketFilters): StatusItem[] {
  if (filters.statusIds?.length) {
    const wanted = new Set(filters.statusIds);
    return config.statuses.filter((status) => wanted.has(status.statusId));
  }
  return config.statuses.filter((status) => isStatusShown(status, filters));
}

/**
 * The first `count` tickets of one status's column in index order, where `read` answers the
 * first `count` filed under one category (the category is part of the board index key): one
 * read, or, while the status's tickets move to its category (`recategorizing`,
 * lists/recategorize.ts), the categories they move from first and then its own, merged in
 * column order (a ticket's place in the column does not depend on its category). In that order
 * a ticket that moves between the reads is read twice (its newer copy is kept), never missed.
 */
export async function readStatusColumn(status: StatusItem, count: number, read: (category: StatusCategory) => Promise<TicketItem[]>): Promise<TicketItem[]> {
  if (!status.recategorizing) return read(status.category);
  const left = (await Promise.all(STATUS_CATEGORIES.filter((category) => category !== status.category).map(read))).flat();
  const moved = await read(status.category);
  const newest = new Map([...left, ...moved].map((ticket) => [ticket.ticketId, ticket]));
  return sortInColumn([...newest.values()]).slice(0, count);
}

/** Live tickets of a column the list shows (archived ones only with includeArchived). */
export const shownCount = (count: Pick<ColumnCountItem, 'total' | 'archived'> | undefined, includeArchived: boolean): number =>
  count ? Math.max(0, count.total - (includeArchived ? 0 : count.archived)) : 0;

/** Beyond this many column tickets, reading a dense list's entries costs less than the column reads. */
export const MAX_COLUMN_SCAN = 2_000;

/**
 * The page of a dense list of one board (most of the listed board matches) whose exact `total` is
 * known: read from the board's columns in list order (`readColumn` returns a column's first
 * `count` matching tickets, sizing its reads by the expected `share`), until the page is full:
 * about (page end) ÷ (the list's share of the listed board) tickets. Undefined (the caller reads
 * its entries) when the board holds live tickets of a status the organization no longer has, or
 * when the page lies so deep that the column reads would cost more than the entries.
 */
export async function densePageFromColumns(
  columns: StatusItem[], counts: Map<string, ColumnCountItem>, total: number, filters: TicketFilters & { page: number; limit: number }, config: OrgConfig, now: Date,
  readColumn: (status: StatusItem, count: number, share: number) => Promise<TicketItem[]>,
): Promise<Page<ReturnType<typeof presentTicket>> | undefined> {
  if ([...counts.values()].some((count) => !config.status(count.statusId) && count.total > 0)) return undefined;
  const includeArchived = filters.includeArchived === true;
  const shown = columns.reduce((sum, status) => sum + shownCount(counts.get(status.statusId), includeArchived), 0);
  const start = (filters.page - 1) * filters.limit;
  const end = Math.min(start + filters.limit, total);
  const share = shown > 0 ? Math.min(1, total / shown) : 1;
  if (end / share > MAX_COLUMN_SCAN) return undefined;
  const found: TicketItem[] = [];
  for (const status of columns) {
    if (found.length >= end) break;
    if (shownCount(counts.get(status.statusId), includeArchived) === 0) continue;
    found.push(...(await readColumn(status, end - found.length, share)));
  }
  return pageOfTickets(found.slice(start, end), total, filters, config, now);
}

/**
 * Which columns a page reaches and what it takes from each: columns wholly before the page are
 * skipped by their `shown` counts; of each column the page reaches, `skip` tickets precede the
 * page and `take` are on it. `total` is the sum of the columns' counts (exact, like the list).
 */
export function pageSpans<C extends { shown: number }>(columns: C[], query: { page: number; limit: number }) {
  const total = columns.reduce((sum, column) => sum + column.shown, 0);
  const start = (query.page - 1) * query.limit;
  const end = Math.min(start + query.limit, total);
  const spans: { column: C; skip: number; take: number }[] = [];
  let offset = 0;
  for (const column of columns) {
    if (offset >= end) break;
    if (column.shown > 0 && offset + column.shown > start) {
      const skip = Math.max(0, start - offset);
      spans.push({ column, skip, take: Math.min(column.shown, end - offset) - skip });
    }
    offset += column.shown;
  }
  return { total, spans };
}
