import type { DomainContext } from '../db/context.js';
import type { TicketItem } from '../db/entities/index.js';
import type { EventInput } from '../events/index.js';

/**
 * The base of every ticket and comment event: the four ids of docs/webhooks.md (never content), and the
 * ticket's `claimCount` (0 if never claimed), the fence: a CI or PR bot acting on an event can
 * discard work done under a lease that has since been superseded.
 */
export const baseTicketData = (ticket: TicketItem) => ({
  ticketId: ticket.ticketId,
  boardId: ticket.boardId,
  projectId: ticket.boardId,
  organizationId: ticket.orgId,
  claimCount: ticket.claimCount ?? 0,
});

/**
 * The events one ticket write emits, derived from the state before and after it, so every
 * write path emits them the same way: created, deleted, or updated — plus status_changed and
 * assigned when those changed.
 */
export function ticketEventsFor(ctx: DomainContext, before: TicketItem | undefined, after: TicketItem): EventInput[] {
  if (!before) return [{ type: 'ticket.created', data: baseTicketData(after) }];
  if (after.isDeleted && !before.isDeleted) return [{ type: 'ticket.deleted', data: baseTicketData(before) }];
  const events: EventInput[] = [{ type: 'ticket.updated', data: { ...baseTicketData(after), actorId: ctx.actor.userId } }];
  if (before.statusId !== after.statusId) {
    events.push({
      type: 'ticket.status_changed',
      data: { ...baseTicketData(after), oldStatusId: before.statusId, newStatusId: after.statusId, actorId: ctx.actor.userId },
    });
  }
  if ((before.assigneeId ?? null) !== (after.assigneeId ?? null)) {
    events.push({
      type: 'ticket.assigned',
      data: { ...baseTicketData(after), oldAssigneeId: before.assigneeId ?? null, newAssigneeId: after.assigneeId ?? null },
    });
  }
  return events;
}
