import type { DomainContext } from '../../db/context.js';
import { retryLostRaces } from '../../db/races.js';
import type { TicketItem } from '../../db/entities/index.js';
import { dependencyItemsOf, openCount, openSubticketsOf, ticketsById, unblockedBy } from './edges.js';

/*
 * Readiness recounts: a ticket's open blockers and a parent's open subtickets, counted from what
 * is stored and written through the ticket write path (`save`, lib/tickets/write.ts, passed in:
 * that module calls these before a write answers). A recount that finds the count right writes
 * nothing, so the write's own recount and the events function's backstop never fight.
 */

/**
 * The ticket write path (`saveTicket`), as these recounts call it: a bookkeeping write of the
 * ticket's counts, with the unblocking entry and event when there is one.
 */
export type SaveTicket = (ctx: DomainContext, write: { before: TicketItem; after: TicketItem; derivedEvents: false } & Partial<ReturnType<typeof unblockedBy>>) => Promise<TicketItem>;

/**
 * Recounts the open blockers of one ticket and stores the count if it changed. When the last
 * one closed, the ticket is unblocked: a UNBLOCKED timeline entry and `ticket.unblocked` name
 * the blocker whose change did it.
 */
export async function recountBlockers(ctx: DomainContext, save: SaveTicket, ticketId: string, causeId: string): Promise<void> {
  await retryLostRaces(async () => {
    const [ticket, edges] = await Promise.all([ticketsById(ctx.org.orgId, [ticketId]).then((found) => found.get(ticketId)), dependencyItemsOf(ticketId, 'blockedBy')]);
    if (!ticket || ticket.isDeleted) return;
    const blockerIds = edges.map((edge) => edge.otherId);
    const open = openCount(await ticketsById(ctx.org.orgId, blockerIds), blockerIds);
    if (open === (ticket.openBlockerCount ?? 0)) return;
    await save(ctx, { before: ticket, after: { ...ticket, openBlockerCount: open }, derivedEvents: false, ...unblockedBy(ticket, open, causeId) });
  });
}

/** Recounts the open subtickets of a parent and stores the count if it changed. */
export async function recountSubtickets(ctx: DomainContext, save: SaveTicket, parentId: string): Promise<void> {
  await retryLostRaces(async () => {
    const parent = (await ticketsById(ctx.org.orgId, [parentId])).get(parentId);
    if (!parent || parent.isDeleted) return;
    const open = await openSubticketsOf(parent);
    if (open === (parent.openSubticketCount ?? 0)) return;
    await save(ctx, { before: parent, after: { ...parent, openSubticketCount: open }, derivedEvents: false });
  });
}
