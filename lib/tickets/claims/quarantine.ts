import { forbidden } from '../../core/errors.js';
import type { DomainContext } from '../../db/context.js';
import type { TicketItem } from '../../db/entities/index.js';
import { retryLostRaces } from '../../db/races.js';
import { requirePermission } from '../../organizations/index.js';
import { loadTicketOnBoard } from '../access.js';
import { saveTicket } from '../write.js';

/**
 * Quarantine (docs/fleet-control.md): a ticket whose leases lapsed `quarantineAfterLapses` times
 * in a row (record/lease.ts, `lapseRun`) leaves the ready queue, so one ticket that makes every agent
 * fail cannot eat the fleet. Claim-next passes it by (it is out of the byReady index), a named
 * claim answers TICKET_QUARANTINED, and a person returns it to the queue here.
 */

/**
 * DELETE …/tickets/{ticketId}/quarantine: returns the ticket to the ready queue, its run of
 * lapses reset, in one transaction with its listing entry deleted. A person decides, never an
 * agent (the agents are what kept failing). Lifting a ticket that is not quarantined changes nothing.
 */
export async function liftQuarantine(ctx: DomainContext, boardId: string, ticketId: string): Promise<void> {
  requirePermission(ctx, 'tickets:edit');
  await retryLostRaces(async () => {
    const { ticket } = await loadTicketOnBoard(ctx, boardId, ticketId);
    if (ctx.actor.isAgent) throw forbidden('Only a person may lift a quarantine', 'FORBIDDEN');
    if (!ticket.quarantinedAt) return;
    const after: TicketItem = { ...ticket, consecutiveLapses: 0 };
    delete after.quarantinedAt;
    delete after.quarantineLapses;
    await saveTicket(ctx, {
      before: ticket,
      after,
      related: (e) => [e.quarantineEntry.delete({ orgId: ticket.orgId, ticketId }).commit()],
      timeline: [{ kind: 'QUARANTINE_LIFTED', details: { since: ticket.quarantinedAt, lapses: ticket.quarantineLapses ?? 0 } }],
    });
  });
}
