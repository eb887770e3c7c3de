import type { DomainContext } from '../db/context.js';
import { db } from '../db/service.js';
import { batchGetMixed, type KeyRequest } from '../db/batch.js';
import type { BookingItemItem, TicketItem, TimeEntryItem } from '../db/entities/index.js';
import { liveTicketOf } from '../tickets/index.js';
import { bookingItemRef } from './booking-items.js';

/** The tickets and booking items entries (or timers) name, read once for a whole list. */
export interface TimeRefs {
  ticket(ticketId: string | undefined): TicketItem | undefined;
  bookingItem(bookingItemId: string | undefined): BookingItemItem | undefined;
}

/** Reads the live tickets and the booking items that `subjects` name: one BatchGetItem (per 100 keys), none when they name nothing. */
export async function loadTimeRefs(ctx: DomainContext, subjects: readonly { ticketId?: string; bookingItemId?: string }[], known: TicketItem[] = []): Promise<TimeRefs> {
  const tickets = new Map(known.map((ticket) => [ticket.ticketId, ticket]));
  const ticketIds = [...new Set(subjects.map((subject) => subject.ticketId).filter((id): id is string => id !== undefined && !tickets.has(id)))];
  const itemIds = [...new Set(subjects.map((subject) => subject.bookingItemId).filter((id): id is string => id !== undefined))];
  const requests: KeyRequest[] = [
    ...ticketIds.map((ticketId) => ({ entity: db().entities.ticket, key: { ticketId } })),
    ...itemIds.map((bookingItemId) => ({ entity: db().entities.bookingItem, key: { orgId: ctx.org.orgId, bookingItemId } })),
  ];
  const found = requests.length > 0 ? await batchGetMixed(requests) : [];
  ticketIds.forEach((ticketId, index) => {
    const ticket = liveTicketOf(ctx, found[index] as TicketItem | undefined);
    if (ticket) tickets.set(ticketId, ticket);
  });
  const items = new Map(itemIds.map((id, index) => [id, found[ticketIds.length + index] as BookingItemItem | undefined]));
  return {
    ticket: (ticketId) => (ticketId ? tickets.get(ticketId) : undefined),
    bookingItem: (bookingItemId) => (bookingItemId ? items.get(bookingItemId) : undefined),
  };
}

/** A ticket as entries and timers name it (null once it is deleted). */
export const ticketRef = (ticket: TicketItem | undefined) =>
  ticket ? { id: ticket.ticketId, displayId: ticket.displayId, title: ticket.title, boardId: ticket.boardId } : null;

/**
 * A time entry as the API shows it. `durationMinutes` is what is booked; for an agent's entry
 * `rawDurationMinutes` is what the agent reported and `timeFactor` the factor applied.
 */
export function presentEntry(entry: TimeEntryItem, refs: TimeRefs) {
  return {
    id: entry.entryId,
    userId: entry.userId,
    user: { id: entry.userId, name: entry.userName, isAgent: entry.isAgent },
    ticketId: entry.ticketId ?? null,
    boardId: entry.boardId ?? null,
    ticket: ticketRef(refs.ticket(entry.ticketId)),
    bookingItemId: entry.bookingItemId ?? null,
    bookingItem: bookingItemRef(refs.bookingItem(entry.bookingItemId)),
    durationMinutes: entry.durationMinutes,
    rawDurationMinutes: entry.rawMinutes,
    timeFactor: entry.timeFactor ?? null,
    description: entry.description,
    date: entry.date,
    state: entry.state,
    source: entry.source,
    decidedBy: entry.decidedById ? { id: entry.decidedById, name: entry.decidedByName ?? '' } : null,
    decidedAt: entry.decidedAt ?? null,
    rejectionReason: entry.rejectionReason ?? null,
    syncStatus: entry.syncStatus ?? null,
    syncedAt: entry.syncedAt ?? null,
    syncError: entry.syncError ?? null,
    externalId: entry.externalId ?? null,
    billed: entry.billed,
    createdAt: entry.createdAt,
    updatedAt: entry.updatedAt,
  };
}

/** Entries presented with their references, read in one BatchGetItem. */
export async function presentEntries(ctx: DomainContext, entries: TimeEntryItem[], known: TicketItem[] = []) {
  const refs = await loadTimeRefs(ctx, entries, known);
  return entries.map((entry) => presentEntry(entry, refs));
}
