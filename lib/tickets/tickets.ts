import type { DomainContext } from '../db/context.js';
import { AppError, invalidField } from '../core/errors.js';
import { db } from '../db/service.js';
import { LostRace, retryLostRaces } from '../db/races.js';
import { requirePermission } from '../organizations/index.js';
import { loadTicketWithConfig } from './access.js';
import type { TicketFieldChanges } from './fields.js';
import { presentFullTicket } from './present.js';
import { createTicket, type CreateTicketInput } from './create.js';
import { updateTicket, type UpdateOptions } from './update.js';
import { saveTicket } from './write.js';
import { referenceGuards } from './reference-guards.js';
import { detachFromParent } from './parent-links.js';
import { loadLiveParent } from './structure/subtickets.js';

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
  expectedUpdatedAt?: string;
}

/** PATCH /boards/{boardId}/tickets/{ticketId}: any settable field (the API reference) plus statusId with its reason. */
export async function patchTicket(ctx: DomainContext, boardId: string, ticketId: string, input: PatchTicketInput) {
  requirePermission(ctx, 'tickets:edit');
  const { statusChangeReason, expectedUpdatedAt, ...changes } = input;
  // The reason is stored with a status change; alone it would be stored nowhere.
  if (statusChangeReason !== undefined && changes.statusId === undefined) throw invalidField('statusChangeReason', 'Goes with a status change: send statusId with it');
  if (expectedUpdatedAt !== undefined) return updateUnlessChanged(ctx, boardId, ticketId, expectedUpdatedAt, changes, { statusReason: statusChangeReason });
  // A concurrent write to the same ticket is no conflict: read again and apply the change again.
  return retryLostRaces(async () => {
    const loaded = await loadTicketWithConfig(ctx, boardId, ticketId);
    const ticket = await updateTicket(ctx, loaded, changes, { statusReason: statusChangeReason });
    return presentFullTicket(ticket, loaded.config, ctx);
  });
}

const staleUpdate = (currentUpdatedAt: string | undefined): AppError =>
  new AppError('STALE_UPDATE', 'The ticket was changed since it was read; reload it and retry', { currentUpdatedAt: currentUpdatedAt ?? null });

/**
 * An edit guarded by the `updatedAt` the editor read (optimistic locking, docs/features.md
 * "Editing a ticket in place"): a mismatch, or losing the version guard to a concurrent write, is 409
 * STALE_UPDATE with the ticket's current updatedAt, and nothing is written. Never retried: the
 * editor decides whether their change still stands.
 */
export async function updateUnlessChanged(ctx: DomainContext, boardId: string, ticketId: string, expectedUpdatedAt: string, changes: TicketFieldChanges, options: UpdateOptions = {}) {
  const loaded = await loadTicketWithConfig(ctx, boardId, ticketId);
  if (Date.parse(expectedUpdatedAt) !== Date.parse(loaded.ticket.updatedAt)) throw staleUpdate(loaded.ticket.updatedAt);
  try {
    return presentFullTicket(await updateTicket(ctx, loaded, changes, options), loaded.config, ctx);
  } catch (error) {
    if (!(error instanceof LostRace)) throw error;
    const current = (await db().entities.ticket.get({ ticketId }).go({ consistent: true })).data;
    throw staleUpdate(current?.updatedAt);
  }
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
