import { invalidField } from '../core/errors.js';
import { pageOf, pageWithTotal } from '../core/pages.js';
import type { DomainContext } from '../db/context.js';
import { db } from '../db/service.js';
import { queryCount, type QueryParams } from '../db/projected.js';
import type { TicketItem, TimeEntryItem, TimeEntryState } from '../db/entities/index.js';
import { canSeeBoard, listOrganizationBoards, loadVisibleBoard } from '../boards/index.js';
import { requirePermission, hasPermission } from '../organizations/index.js';
import { loadTicketOnBoard } from '../tickets/index.js';
import { enterTimeTracking } from './access.js';
import { dayAtOffset, dayRange } from './calendar.js';
import { bookingItemRef } from './booking-items.js';
import { loadTimeRefs, presentEntry, ticketRef } from './present.js';
import { ticketTimeTotals } from './ticket-time.js';

/*
 * Reading time: the entry lists, recent work, today's work, and a ticket's summaries. Every
 * list is one Query of an index made for it (a user's, a board's or a ticket's entries, or the
 * organization's PENDING ones), then one BatchGetItem for the tickets and booking items shown.
 */

const newestFirst = (a: TimeEntryItem, b: TimeEntryItem) => b.date.localeCompare(a.date) || b.entryId.localeCompare(a.entryId);

interface Period {
  year?: number;
  month?: number;
}

/** The date range of `year` / `month` (a month without a year is of the current UTC year); undefined: all time. */
function periodRange(ctx: DomainContext, period: Period): { from: string; to: string } | undefined {
  if (period.year === undefined && period.month === undefined) return undefined;
  return dayRange(period.year ?? ctx.clock.now().getUTCFullYear(), period.month);
}

/** Entries the caller's token may show: a token limited to boards hides entries of other boards. */
function withinTokenBoards(ctx: DomainContext, entries: TimeEntryItem[]): TimeEntryItem[] {
  const allowed = ctx.actor.credential.allowedBoardIds;
  return allowed.length === 0 ? entries : entries.filter((entry) => !entry.boardId || allowed.includes(entry.boardId));
}

/**
 * The boards whose entries of other people the caller may see (booking-item entries always):
 * undefined for every board (an administrator whose token names no boards); else the boards
 * they see (administrators every board; anyone else costs one Query of the boards), narrowed to
 * the token's boards when it names some.
 */
async function boardsShown(ctx: DomainContext): Promise<Set<string> | undefined> {
  const allowed = ctx.actor.credential.allowedBoardIds;
  if (ctx.actor.isAdmin) return allowed.length === 0 ? undefined : new Set(allowed);
  const visible = (await listOrganizationBoards(ctx.org.orgId)).filter((board) => canSeeBoard(ctx.actor, board)).map((board) => board.boardId);
  return new Set(allowed.length === 0 ? visible : visible.filter((boardId) => allowed.includes(boardId)));
}

/** Other people's entries the caller may see: those on the boards `boardsShown` answers, and booking-item entries. */
async function onVisibleBoards(ctx: DomainContext, entries: TimeEntryItem[]): Promise<TimeEntryItem[]> {
  const shown = await boardsShown(ctx);
  return shown === undefined ? entries : entries.filter((entry) => !entry.boardId || shown.has(entry.boardId));
}

/** Beyond this many boards, a list filters its entries itself rather than in a DynamoDB filter. */
const MAX_FILTERED_BOARDS = 50;

/** A DynamoDB filter of an index of time entries, as ElectroDB builds it. */
type EntryFilter = Parameters<ReturnType<ReturnType<typeof db>['entities']['timeEntry']['query']['byUser']>['where']>[0];

/** The query's filters as DynamoDB applies them to an index of entries: `state`, `boardId`, and entries on `boards` (or booking-item entries); undefined for none. */
function entryFilter(filters: { state?: TimeEntryState; boardId?: string; boards?: readonly string[] }): EntryFilter | undefined {
  const { state, boardId, boards } = filters;
  if (!state && !boardId && !boards) return undefined;
  return (attr, op) => {
    const parts: string[] = [state ? op.eq(attr.state, state) : '', boardId ? op.eq(attr.boardId, boardId) : ''].filter(Boolean);
    // Parentheses only around a part joined to others (DynamoDB refuses redundant ones); an
    // operator names its attribute when called, so only the parts used are built.
    if (boards) {
      const onBoards = [op.notExists(attr.boardId), ...boards.map((shown) => op.eq(attr.boardId, shown))].join(' OR ');
      parts.push(parts.length > 0 ? `(${onBoards})` : onBoards);
    }
    return parts.join(' AND ');
  };
}

export interface EntryListQuery extends Period {
  page: number;
  limit: number;
  boardId?: string;
  search?: string;
  state?: TimeEntryState;
  userId?: string;
}

/**
 * GET /api/v1/time-tracking/entries. The caller's own entries by default; `userId` names
 * another person's (time-tracking:approve). `state=PENDING` from an approver without `userId`
 * is the organization's approval queue. Filters: `year`, `month`, `boardId`, `state`, and
 * `search` (any case, in the description, the ticket's display id and title, the booking
 * item's name). Newest first; exact total.
 */
export async function listEntries(ctx: DomainContext, query: EntryListQuery) {
  enterTimeTracking(ctx, 'time-tracking:view');
  const range = periodRange(ctx, query);
  let entries: TimeEntryItem[];
  if (query.state === 'PENDING' && query.userId === undefined && hasPermission(ctx, 'time-tracking:approve')) {
    const indexed = await indexedPendingPage(ctx, range, query);
    if (indexed) return indexed;
    const byDate = db().entities.timeEntry.query.pendingByDate({ orgId: ctx.org.orgId });
    entries = (await (range ? byDate.between({ date: range.from }, { date: `${range.to}~` }) : byDate).go({ pages: 'all' })).data;
    entries = await onVisibleBoards(ctx, entries);
  } else {
    const userId = query.userId ?? ctx.actor.userId;
    if (userId !== ctx.actor.userId) requirePermission(ctx, 'time-tracking:approve');
    const indexed = await indexedUserPage(ctx, userId, range, query);
    if (indexed) return indexed;
    const byUser = db().entities.timeEntry.query.byUser({ orgId: ctx.org.orgId, userId });
    entries = (await (range ? byUser.between({ date: range.from }, { date: `${range.to}~` }) : byUser).go({ pages: 'all' })).data;
    entries = userId === ctx.actor.userId ? withinTokenBoards(ctx, entries) : await onVisibleBoards(ctx, entries);
  }
  entries = entries.filter(
    (entry) => (!query.boardId || entry.boardId === query.boardId) && (!query.state || entry.state === query.state),
  );
  return pageOfEntries(ctx, entries.sort(newestFirst), query, query.search);
}

/**
 * A user's entries without a search, as the caller may see them (their own, or anyone's for an
 * administrator: only the token's boards limit them), newest first: the user's index is in
 * that order (date, then entry id), so the page is read from its end, DynamoDB keeping the
 * entries of the state, board and token's boards asked for, no further than the page's last
 * entry; the exact total is a COUNT with the same filter, beside it. Undefined for the lists
 * that need the entries themselves: a search (it matches the tickets' titles), or another
 * person's entries seen by a non-administrator (only on the boards they see).
 */
async function indexedUserPage(ctx: DomainContext, userId: string, range: { from: string; to: string } | undefined, query: EntryListQuery) {
  const allowed = ctx.actor.credential.allowedBoardIds;
  if (query.search?.trim() || allowed.length > MAX_FILTERED_BOARDS || (userId !== ctx.actor.userId && !ctx.actor.isAdmin)) return undefined;
  const byUser = db().entities.timeEntry.query.byUser({ orgId: ctx.org.orgId, userId });
  const inPeriod = range ? byUser.between({ date: range.from }, { date: `${range.to}~` }) : byUser;
  const filter = entryFilter({ state: query.state, boardId: query.boardId, boards: allowed.length > 0 ? allowed : undefined });
  return pageFromIndexEnd(ctx, filter ? inPeriod.where(filter) : inPeriod, query);
}

/**
 * The approvers' queue without a search, newest first (the `pendingByDate` index): that index is in the list's order,
 * so the page is read from its end, DynamoDB keeping the entries of the board asked for and of
 * the boards the caller may see, no further than the page's last entry; the exact total is a
 * COUNT with the same filter, beside it. Undefined for a search, or when the caller sees more
 * boards than a filter names (the entries are then read and filtered here).
 */
async function indexedPendingPage(ctx: DomainContext, range: { from: string; to: string } | undefined, query: EntryListQuery) {
  if (query.search?.trim()) return undefined;
  const shown = await boardsShown(ctx);
  if (shown && shown.size > MAX_FILTERED_BOARDS) return undefined;
  const byDate = db().entities.timeEntry.query.pendingByDate({ orgId: ctx.org.orgId });
  const inPeriod = range ? byDate.between({ date: range.from }, { date: `${range.to}~` }) : byDate;
  const filter = entryFilter({ boardId: query.boardId, boards: shown ? [...shown] : undefined });
  return pageFromIndexEnd(ctx, filter ? inPeriod.where(filter) : inPeriod, query);
}

/** An ElectroDB Query of time entries, ready to run: its page and its parameters (for the COUNT). */
interface EntryQuery {
  go(options: { order: 'desc'; count: number }): Promise<{ data: TimeEntryItem[] }>;
  params(): object;
}

/**
 * One page of an index whose order is the list's, newest first (date, then entry id): read from
 * the index's end no further than the page's last entry, and its exact total counted by
 * DynamoDB (a number comes back) beside it; `beside` runs in parallel (a check of the board, or
 * of the ticket, which then serves the page's references).
 */
async function pageFromIndexEnd(ctx: DomainContext, selected: EntryQuery, page: { page: number; limit: number }, beside?: Promise<{ ticket?: TicketItem } | object>) {
  const start = (page.page - 1) * page.limit;
  const [read, total, alongside] = await Promise.all([
    selected.go({ order: 'desc', count: start + page.limit }),
    queryCount(selected.params() as QueryParams, { expression: '', names: {}, values: {} }),
    beside,
  ]);
  const items = read.data.slice(start, start + page.limit);
  // A ticket read beside (the ticket whose entries these are) is not read again.
  const known = alongside && 'ticket' in alongside && alongside.ticket ? [alongside.ticket] : [];
  const refs = await loadTimeRefs(ctx, items, known);
  return pageWithTotal(items.map((entry) => presentEntry(entry, refs)), total, page.page, page.limit);
}

/** One page of entries, presented; a search reads the references of every candidate first. */
async function pageOfEntries(ctx: DomainContext, entries: TimeEntryItem[], page: { page: number; limit: number }, search?: string) {
  const needle = search?.trim().toLowerCase();
  if (!needle) {
    const slice = pageOf(entries, page.page, page.limit);
    const refs = await loadTimeRefs(ctx, slice.items);
    return { ...slice, items: slice.items.map((entry) => presentEntry(entry, refs)) };
  }
  const refs = await loadTimeRefs(ctx, entries);
  const matching = entries.filter((entry) => {
    const ticket = refs.ticket(entry.ticketId);
    const item = refs.bookingItem(entry.bookingItemId);
    return [entry.description, ticket?.displayId, ticket?.title, item?.name].some((text) => text?.toLowerCase().includes(needle));
  });
  const slice = pageOf(matching, page.page, page.limit);
  return { ...slice, items: slice.items.map((entry) => presentEntry(entry, refs)) };
}

/**
 * GET /api/v1/boards/{boardId}/time-entries: everyone's entries on a board the caller may see,
 * newest first. The board's index is in that order (date, then entry id), so the page is read
 * from its end, no further than the page's last entry, and the exact total is a COUNT of the
 * period (DynamoDB sends back a number), beside it: the request never reads every entry of the
 * board or period.
 */
export async function listBoardEntries(ctx: DomainContext, boardId: string, query: Period & { page: number; limit: number }) {
  enterTimeTracking(ctx, 'time-tracking:view');
  const range = periodRange(ctx, query);
  const byBoard = db().entities.timeEntry.query.byBoard({ orgId: ctx.org.orgId, boardKey: boardId });
  const inPeriod = range ? byBoard.between({ date: range.from }, { date: `${range.to}~` }) : byBoard;
  return pageFromIndexEnd(ctx, inPeriod, query, loadVisibleBoard(ctx, boardId));
}

/**
 * GET …/tickets/{ticketId}/time-entries: everyone's entries on the ticket, newest first. The
 * ticket's by-date index is in that order, so the page is read from its end with a COUNT beside
 * it (as a board's list is), the ticket's access checked in parallel.
 */
export async function listTicketEntries(ctx: DomainContext, boardId: string, ticketId: string, query: { page: number; limit: number }) {
  enterTimeTracking(ctx, 'time-tracking:view');
  const byDate = db().entities.timeEntry.query.byTicketDate({ orgId: ctx.org.orgId, ticketKey: ticketId });
  return pageFromIndexEnd(ctx, byDate, query, loadTicketOnBoard(ctx, boardId, ticketId));
}

/**
 * GET …/time-entries/summary: the time tracked on a ticket. `totalMinutes` counts PENDING and
 * APPROVED minutes (rejected time was never tracked); `byState` shows all three; `byUser` the
 * tracked minutes per person or agent, most first.
 */
export async function ticketSummary(ctx: DomainContext, boardId: string, ticketId: string) {
  enterTimeTracking(ctx);
  return (await ticketTime(ctx, boardId, ticketId)).summary;
}

/** The ticket and its time summary, from its maintained totals (one Query of a handful of items, ticket-time.ts). */
async function ticketTime(ctx: DomainContext, boardId: string, ticketId: string) {
  const [{ ticket }, totals] = await Promise.all([loadTicketOnBoard(ctx, boardId, ticketId), ticketTimeTotals(ctx.org.orgId, ticketId)]);
  return { ticket, summary: summaryOf(ticketId, totals.byState, totals.byUser) };
}

type ByState = Record<TimeEntryItem['state'], { count: number; minutes: number }>;
type UserLine = { userId: string; name: string; isAgent: boolean; minutes: number };

/** The summary's shape, from totals by state and per person. */
function summaryOf(ticketId: string, byState: ByState, byUser: UserLine[]) {
  return {
    ticketId,
    totalMinutes: byState.PENDING.minutes + byState.APPROVED.minutes,
    entryCount: byState.PENDING.count + byState.APPROVED.count,
    byUser: [...byUser].sort((a, b) => b.minutes - a.minutes || a.userId.localeCompare(b.userId)),
    byState,
  };
}

/**
 * GET …/time-entries/summary-with-budget: the summary against the ticket's estimate
 * (`estimatedHours`). Without an estimate the budget figures are null and nothing is over.
 */
export async function ticketSummaryWithBudget(ctx: DomainContext, boardId: string, ticketId: string) {
  enterTimeTracking(ctx);
  const { ticket, summary } = await ticketTime(ctx, boardId, ticketId);
  const estimatedHours = ticket.estimatedHours ?? null;
  const estimatedMinutes = estimatedHours === null ? null : Math.round(estimatedHours * 60);
  const tracked = summary.totalMinutes;
  return {
    ...summary,
    estimatedHours,
    estimatedMinutes,
    trackedMinutes: tracked,
    remainingMinutes: estimatedMinutes === null ? null : Math.max(0, estimatedMinutes - tracked),
    percentage: estimatedMinutes === null || estimatedMinutes === 0 ? null : Math.round((tracked / estimatedMinutes) * 1000) / 10,
    isOverBudget: estimatedMinutes !== null && tracked > estimatedMinutes,
  };
}

/** Entries grouped by what they book (a ticket or a booking item), in the order of first appearance. */
function groupByTarget(entries: TimeEntryItem[]) {
  const groups = new Map<string, TimeEntryItem[]>();
  for (const entry of entries) {
    const key = entry.ticketId ?? `item:${entry.bookingItemId}`;
    groups.set(key, [...(groups.get(key) ?? []), entry]);
  }
  return [...groups.values()];
}

/** How far back `recent` looks: the caller's newest entries. */
const RECENT_WINDOW = 200;

/**
 * GET …/entries/recent: what the caller booked lately, one group per ticket or booking item,
 * the most recently booked first (at most `limit` groups, from their newest 200 entries).
 */
export async function recentEntries(ctx: DomainContext, query: { limit: number }) {
  enterTimeTracking(ctx, 'time-tracking:view');
  const { data } = await db()
    .entities.timeEntry.query.byUser({ orgId: ctx.org.orgId, userId: ctx.actor.userId })
    .go({ order: 'desc', limit: RECENT_WINDOW });
  const groups = groupByTarget(withinTokenBoards(ctx, data).sort(newestFirst)).slice(0, query.limit);
  const refs = await loadTimeRefs(ctx, groups.map((group) => group[0]!));
  return groups.map((group) => {
    const last = group[0]!;
    return {
      ticketId: last.ticketId ?? null,
      ticket: ticketRef(refs.ticket(last.ticketId)),
      bookingItemId: last.bookingItemId ?? null,
      bookingItem: bookingItemRef(refs.bookingItem(last.bookingItemId)),
      lastDate: last.date,
      lastEntry: presentEntry(last, refs),
      entryCount: group.length,
      totalMinutes: group.reduce((total, entry) => total + entry.durationMinutes, 0),
    };
  });
}

/**
 * GET …/entries/today-by-ticket: the caller's entries of their today (the calendar day at
 * `tzOffset` minutes east of UTC, −840 to +840), grouped by ticket or booking item with totals.
 */
export async function todayByTicket(ctx: DomainContext, query: { tzOffset: number }) {
  enterTimeTracking(ctx, 'time-tracking:view');
  if (Math.abs(query.tzOffset) > 840) throw invalidField('tzOffset', 'Between -840 and 840 minutes');
  const date = dayAtOffset(ctx.clock.now(), query.tzOffset);
  const { data } = await db()
    .entities.timeEntry.query.byUser({ orgId: ctx.org.orgId, userId: ctx.actor.userId })
    .begins({ date })
    .go({ pages: 'all' });
  const entries = withinTokenBoards(ctx, data.filter((entry) => entry.date === date)).sort((a, b) => a.entryId.localeCompare(b.entryId));
  const refs = await loadTimeRefs(ctx, entries);
  const groups = groupByTarget(entries).map((group) => {
    const first = group[0]!;
    return {
      ticketId: first.ticketId ?? null,
      ticket: ticketRef(refs.ticket(first.ticketId)),
      bookingItemId: first.bookingItemId ?? null,
      bookingItem: bookingItemRef(refs.bookingItem(first.bookingItemId)),
      totalMinutes: group.reduce((total, entry) => total + entry.durationMinutes, 0),
      entries: group.map((entry) => presentEntry(entry, refs)),
    };
  });
  return { date, tzOffset: query.tzOffset, totalMinutes: groups.reduce((total, group) => total + group.totalMinutes, 0), tickets: groups };
}
