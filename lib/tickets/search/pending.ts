import { positionKeyOf, type TicketItem } from '../../db/entities/index.js';
import type { TransactionEntities, TransactionItem } from '../../db/transact.js';
import type { EventInput } from '../../events/index.js';

/** The internal outbox record (a job, never a webhook event) that indexes one ticket's search entries. */
export const SEARCH_INDEX_JOB = 'tickets.search-index';

/** Whether a write changes what the ticket's search entries hold: its words, board, status, position, archived or deleted state. */
export function changesSearchEntries(before: TicketItem | undefined, after: TicketItem): boolean {
  if (!before) return true;
  return (
    before.title !== after.title ||
    before.description !== after.description ||
    before.displayId !== after.displayId ||
    before.boardId !== after.boardId ||
    before.statusId !== after.statusId ||
    positionKeyOf(before.position) !== positionKeyOf(after.position) ||
    before.isArchived !== after.isArchived ||
    before.isDeleted !== after.isDeleted
  );
}

/** The pending marker of a ticket write that changes its search entries (in the write's transaction, at `at`). */
export function searchPendingItems(e: TransactionEntities, before: TicketItem | undefined, after: TicketItem, at: string): TransactionItem[] {
  if (!changesSearchEntries(before, after)) return [];
  return [e.searchPending.put({ orgId: after.orgId, ticketId: after.ticketId, version: after.version, at }).commit()];
}

/** The job that brings the ticket's entries up to date (its own outbox partition, apart from the ticket's webhook events). */
export function searchIndexJobFor(before: TicketItem | undefined, after: TicketItem): EventInput | undefined {
  if (!changesSearchEntries(before, after)) return undefined;
  return { type: SEARCH_INDEX_JOB, subjectId: `search:${after.ticketId}`, data: { ticketId: after.ticketId } };
}
