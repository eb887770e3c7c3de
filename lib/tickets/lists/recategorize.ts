import type { DomainContext } from '../../db/context.js';
import { db } from '../../db/service.js';
import { transact } from '../../db/transact.js';
import { LostRace, retryLostRaces } from '../../db/races.js';
import type { StatusCategory, TicketItem } from '../../db/entities/index.js';
import { listOrganizationBoards } from '../../boards/index.js';
import { replaceTicketItems, saveTicket } from '../write.js';

/**
 * A status moved to another category: its tickets carry the category in their board index
 * key, so each is rewritten (guarded by its version, which it bumps so no writer that read
 * the old copy can overwrite the new one). Emits no events: no ticket changed for its users.
 * Column counts are keyed by status, not category: only their `queued` count can change. A claimed ticket
 * that thereby enters FINAL goes through the ticket write path instead, which ends its claim
 * (ticket.claim_released, slot freed) in the same transaction.
 * Returns how many tickets were rewritten.
 */
export async function recategorizeTickets(ctx: DomainContext, statusId: string, from: StatusCategory, to: StatusCategory): Promise<number> {
  if (from === to) return 0;
  const orgId = ctx.org.orgId;
  let rewritten = 0;
  for (const board of await listOrganizationBoards(orgId)) {
    const { data } = await db().entities.ticket.query.byBoard({ orgId, boardId: board.boardId, statusCategory: from, statusId }).go({ pages: 'all' });
    for (const ticket of data as TicketItem[]) {
      await rewriteWithRetry(ctx, ticket, to);
      rewritten += 1;
    }
  }
  return rewritten;
}

async function rewriteWithRetry(ctx: DomainContext, ticket: TicketItem, to: StatusCategory): Promise<void> {
  await retryLostRaces(async (attempt) => {
    const current = attempt === 1 ? ticket : ((await db().entities.ticket.get({ ticketId: ticket.ticketId }).go({ consistent: true })).data as TicketItem | null);
    if (!current || current.statusCategory === to) return;
    if (to === 'FINAL' && current.claimedById) {
      await saveTicket(ctx, { before: current, after: { ...current, statusCategory: to } });
      return;
    }
    // The whole item again (the entity derives its index keys from the new category), with the
    // ready queue's count when the ticket enters or leaves it.
    const after: TicketItem = { ...current, statusCategory: to, version: current.version + 1 };
    await transact((e) => replaceTicketItems(e, current, after, () => new LostRace('The ticket changed concurrently; retry')));
  });
}
