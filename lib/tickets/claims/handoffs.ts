import type { DomainContext } from '../../db/context.js';
import type { HandoffItem } from '../../db/entities/index.js';
import { db } from '../../db/service.js';
import { loadTicketOnBoard } from '../access.js';

/** A handoff as the API shows it. */
export function presentHandoff(handoff: HandoffItem) {
  return {
    id: handoff.handoffId,
    ticketId: handoff.ticketId,
    from: { id: handoff.fromId, name: handoff.fromName, isAgent: handoff.fromIsAgent },
    claimCount: handoff.claimCount,
    summary: handoff.summary ?? null,
    nextSteps: handoff.nextSteps ?? null,
    branch: handoff.branch ?? null,
    links: handoff.links ?? [],
    lastNote: handoff.lastNote ?? null,
    lastHeartbeatAt: handoff.lastHeartbeatAt ?? null,
    auto: handoff.auto,
    createdAt: handoff.createdAt,
  };
}

export type HandoffView = ReturnType<typeof presentHandoff>;

/** The newest handoffs of a ticket (one Query, newest first); the ticket's access is the caller's to check. */
async function newestHandoffs(ticketId: string, limit: number): Promise<HandoffItem[]> {
  return (await db().entities.handoff.query.byTicket({ ticketId }).go({ order: 'desc', limit, consistent: true })).data;
}

/** The ticket's latest handoff as claim responses carry it, or null (the ticket is the caller's, already checked). */
export async function latestHandoffOf(ctx: DomainContext, ticketId: string): Promise<HandoffView | null> {
  const [latest] = await newestHandoffs(ticketId, 1);
  return latest && latest.orgId === ctx.org.orgId ? presentHandoff(latest) : null;
}

/** GET …/tickets/{ticketId}/handoffs: the ticket's handoffs, newest first (at most `limit`). */
export async function listHandoffs(ctx: DomainContext, boardId: string, ticketId: string, limit: number) {
  const [{ ticket }, handoffs] = await Promise.all([loadTicketOnBoard(ctx, boardId, ticketId), newestHandoffs(ticketId, limit)]);
  return handoffs.filter((handoff) => handoff.ticketId === ticket.ticketId && handoff.orgId === ctx.org.orgId).map(presentHandoff);
}
