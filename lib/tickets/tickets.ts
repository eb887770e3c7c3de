import type { DomainContext } from '../db/context.js';
import { invalidField } from '../core/errors.js';
import { LostRace, retryLostRaces } from '../db/races.js';
import { requirePermission } from '../organizations/index.js';
import { loadTicketWithConfig } from './access.js';
import type { TicketFieldChanges } from './fields.js';
import { presentFullTicket } from './present.js';
import { createTicket, type CreateTicketInput } from './create.js';
import { updateTicket } from './update.js';
import { saveTicket } from './write.js';
import { referenceGuards } from './reference-guards.js';
import { detachFromParent, loadLiveParent } from './structure/subtickets.js';

/** POST /boards/{boardId}/tickets → {data: ticket}. */
export async function createBoardTicket(ctx: DomainContext, boardId: string, input: CreateTicketInput) {
  const { ticket, config } = await createTicket(ctx, boardId, input);
  return presentFullTicket(ticket, config, ctx);
}

/** GET /boards/{boardId}/tickets/{ticketId} → {data: full ticket}. */
export async function getTicket(ctx: DomainContext, boardId: string, ticketId: string) {
  const { ticket, config } = await loadTicketWithConfig(ctx, boardId, ticketId);
  return presentFullTicket(ticket, config, ctx);
}

export interface PatchTicketInput extends TicketFieldChanges {
  statusChangeReason?: string;
}

/** PATCH /boards/{boardId}/tickets/{ticketId}: any settable field (spec §2.2) plus statusId with its reason. */
export async function patchTicket(ctx: DomainContext, boardId: string, ticketId: string, input: PatchTicketInput) {
  requirePermission(ctx, 'tickets:edit');
  const { statusChangeReason, ...changes } = input;
  // The reason is stored with a status change; alone it would be stored nowhere.
  if (statusChangeReason !== undefined && changes.statusId === undefined) throw invalidField('statusChangeReason', 'Goes with a status change: send statusId with it');
  // A concurrent write to the same ticket is no conflict: read again and apply the change again.
  return retryLostRaces(async () => {
    const loaded = await loadTicketWithConfig(ctx, boardId, ticketId);
    const ticket = await updateTicket(ctx, loaded, changes, { statusReason: statusChangeReason });
    return presentFullTicket(ticket, loaded.config, ctx);
  });
}

/** DELETE (soft): the ticket is 404 everywhere afterwards and leaves every list. */
export async function deleteTicket(ctx: DomainContext, boardId: string, ticketId: string): Promise<void> {
  requirePermission(ctx, 'tickets:delete');
  await retryLostRaces(async () => {
    const { ticket } = await loadTicketWithConfig(ctx, boardId, ticketId);
    // A deleted subticket leaves its parent's list in the same transaction.
    const parent = await loadLiveParent(ctx, ticket);
    const now = ctx.clock.now().toISOString();
    const after = { ...ticket, isDeleted: true, deletedAt: now, updatedAt: now };
    const guards = referenceGuards(ticket, after);
    await saveTicket(ctx, {
      before: ticket,
      after,
      related: (e) => [...guards(e), ...(parent ? detachFromParent(e, parent, ticket, now, () => new LostRace('The parent ticket changed concurrently; retry')) : [])],
    });
  });
}
