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
    const blockers = await ticketsById(ctx.org.orgId, blockerIds);
    const open = openCount(blockers, blockerIds);
    if (open === (ticket.openBlockerCount ?? 0)) return;
    await save(ctx, { before: ticket, after: { ...ticket, openBlockerCount: open }, derivedEvents: false, ...unblockedBy(ticket, open, lastToClose(blockers, causeId)) });
  });
}

/**
 * The blocker whose closing left none open. Recounts run for each change, the write's own and the
 * events function's backstop, in either order: the backstop of an earlier close can be the one
 * that finds the last blocker closed. So the cause is named only when no blocker closed after it;
 * a cause that is no longer a blocker (deleted, or its dependency removed) is the one.
 */
function lastToClose(blockers: Map<string, TicketItem>, causeId: string): string {
  const closedAt = (blocker: TicketItem) => blocker.deletedAt ?? blocker.statusChangedAt ?? '';
  const cause = blockers.get(causeId);
  if (!cause) return causeId;
  const latest = [...blockers.values()].reduce((last, blocker) => (closedAt(blocker) > closedAt(last) ? blocker : last), cause);
  return latest.ticketId;
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
