import { db } from '../db/service.js';
import type { StatusCategory, TicketItem } from '../db/entities/index.js';
import { listOrganizationBoards } from '../boards/index.js';
import { positionKeyOf } from './write.js';

/**
 * A status moved to another category: its tickets carry the category in their board index
 * key, so each is rewritten (guarded by its version, which it bumps so no writer that read
 * the old copy can overwrite the new one). Emits no events: no ticket changed for its users.
 * Column counts are keyed by status, not category, so they do not change.
 * Returns how many tickets were rewritten.
 */
export async function recategorizeTickets(orgId: string, statusId: string, from: StatusCategory, to: StatusCategory): Promise<number> {
  if (from === to) return 0;
  let rewritten = 0;
  for (const board of await listOrganizationBoards(orgId)) {
    const { data } = await db().entities.ticket.query.byBoard({ orgId, boardId: board.boardId, statusCategory: from, statusId }).go({ pages: 'all' });
    for (const ticket of data as TicketItem[]) {
      await rewriteWithRetry(ticket, to);
      rewritten += 1;
    }
  }
  return rewritten;
}

async function rewriteWithRetry(ticket: TicketItem, to: StatusCategory): Promise<void> {
  let current: TicketItem | null = ticket;
  for (let attempt = 0; current && attempt < 5; attempt += 1) {
    if (current.statusCategory === to) return;
    try {
      const expected = current.version;
      await db()
        // positionKey is part of the byBoard key: re-derived from position (as saveTicket does) so the column order holds.
        .entities.ticket.put({ ...current, statusCategory: to, positionKey: positionKeyOf(current.position), version: expected + 1 })
        .where((attr, op) => op.eq(attr.version, expected))
        .go({ response: 'none' });
      return;
    } catch {
      current = (await db().entities.ticket.get({ ticketId: ticket.ticketId }).go({ consistent: true })).data as TicketItem | null;
    }
  }
}
