import type { TransactionEntities, TransactionItem } from '../db/transact.js';
import type { TicketItem } from '../db/entities/index.js';
import { isOpenTicket } from './record/readiness.js';
import { replaceTicketItems } from './write.js';

/*
 * The parent's side of a subticket link, as items of the transaction that writes the child
 * (a create, a conversion, a promotion, a deletion): the parent's list of subtickets and its
 * count of open ones.
 */

/** The parent's counter shard: the child's write in the same transaction picks one of the random ones. */
const PARENT_SHARD = 'parent';

/**
 * The parent item with one more subticket (and one more open subticket unless the child is
 * FINAL: readiness, lib/tickets/record/readiness.ts), written only if the parent is unchanged since read.
 */
export function attachToParent(e: TransactionEntities, parent: TicketItem, child: TicketItem, at: string, changed: () => Error): TransactionItem[] {
  const openSubticketCount = (parent.openSubticketCount ?? 0) + (isOpenTicket(child) ? 1 : 0);
  return replaceTicketItems(e, parent, { ...parent, subticketIds: [...(parent.subticketIds ?? []), child.ticketId], openSubticketCount, version: parent.version + 1, updatedAt: at }, changed, PARENT_SHARD);
}

/** The parent item without the subticket (`child` as it was), written only if the parent is unchanged since read. */
export function detachFromParent(e: TransactionEntities, parent: TicketItem, child: TicketItem, at: string, changed: () => Error): TransactionItem[] {
  const openSubticketCount = Math.max(0, (parent.openSubticketCount ?? 0) - (isOpenTicket(child) ? 1 : 0));
  return replaceTicketItems(e, parent, { ...parent, subticketIds: (parent.subticketIds ?? []).filter((id) => id !== child.ticketId), openSubticketCount, version: parent.version + 1, updatedAt: at }, changed, PARENT_SHARD);
}

