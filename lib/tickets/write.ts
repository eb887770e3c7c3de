import { AppError, conflict } from '../core/errors.js';
import type { DomainContext } from '../core/context.js';
import { newId } from '../core/ids.js';
import { transact, type TransactionEntities } from '../db/transact.js';
import type { TicketItem, TimelineEntryItem } from '../db/entities/index.js';
import { eventPuts, newEventRecord, type EventInput } from '../events/outbox.js';
import { ticketEventsFor } from './events.js';

/** Builds the extra items of a ticket transaction (ElectroDB `.commit()` results). */
export type TransactionItemsBuilder = (e: TransactionEntities) => any[];

/** The byAssignee key of unassigned tickets. */
export const UNASSIGNED = '-';

export interface TimelineInput {
  kind: TimelineEntryItem['kind'];
  details?: Record<string, unknown>;
}

export interface TicketWrite {
  /** The ticket as read (undefined for a create). Its `version` guards the write. */
  before?: TicketItem;
  /** The ticket as it shall be. */
  after: TicketItem;
  /** Extra timeline entries beyond the ones derived from the change (status, assignee). */
  timeline?: TimelineInput[];
  /** Extra events beyond the derived ones. */
  events?: EventInput[];
  /** Other items that must change in the same transaction (counters, parents, checks). */
  related?: TransactionItemsBuilder;
  /** The domain error for a failed condition of a related item (index within `related`). */
  onRelatedFailed?: (index: number) => AppError;
  /** The error when the ticket itself changed since it was read. */
  onStale?: () => AppError;
  /** Explainable Status: the reason stored with a status change. */
  statusReason?: string;
}

/**
 * The one way a ticket is written: the ticket (created, or replaced guarded by its version),
 * its timeline entries and its events, and any related items, in ONE transaction. Either all
 * of it happens or none of it does.
 */
export async function saveTicket(ctx: DomainContext, write: TicketWrite): Promise<TicketItem> {
  const now = ctx.clock.now().toISOString();
  const after: TicketItem = {
    ...write.after,
    assigneeKey: write.after.assigneeId ?? UNASSIGNED,
    ...(write.before
      ? { version: write.before.version + 1, updatedAt: write.after.updatedAt === write.before.updatedAt ? now : write.after.updatedAt }
      : {}),
  };
  const timeline = [...derivedTimeline(write.before, after, write.statusReason), ...(write.timeline ?? [])].map((entry) => ({
    ticketId: after.ticketId,
    entryId: newId('tle'),
    orgId: after.orgId,
    kind: entry.kind,
    actorId: ctx.actor.userId,
    actorName: ctx.actor.name,
    details: entry.details ?? {},
    createdAt: now,
  }));
  const events = [...ticketEventsFor(ctx, write.before, after), ...(write.events ?? [])].map((event) => newEventRecord(after.orgId, ctx.clock, event));
  await transact(
    (e) => [
      write.before
        ? e.ticket
            .put(after)
            .where((attr, op) => op.eq(attr.version, write.before!.version))
            .commit()
        : e.ticket.create(after).commit(),
      ...(write.related?.(e) ?? []),
      ...timeline.map((entry) => e.timelineEntry.create(entry).commit()),
      ...eventPuts(e, events),
    ],
    (index) => {
      if (index === 0) return write.onStale?.() ?? conflict('The ticket changed concurrently; retry');
      return write.onRelatedFailed?.(index - 1) ?? conflict('A related item changed concurrently; retry');
    },
  );
  return after;
}

function derivedTimeline(before: TicketItem | undefined, after: TicketItem, reason: string | undefined): TimelineInput[] {
  if (!before) return [{ kind: 'CREATED', details: { statusId: after.statusId, assigneeId: after.assigneeId ?? null } }];
  const entries: TimelineInput[] = [];
  if (before.statusId !== after.statusId) {
    entries.push({ kind: 'STATUS_CHANGED', details: { fromStatusId: before.statusId, toStatusId: after.statusId, reason: reason ?? null } });
  }
  if ((before.assigneeId ?? null) !== (after.assigneeId ?? null)) {
    entries.push({ kind: 'ASSIGNED', details: { fromAssigneeId: before.assigneeId ?? null, toAssigneeId: after.assigneeId ?? null } });
  }
  if (before.boardId !== after.boardId) {
    entries.push({ kind: 'MOVED', details: { fromBoardId: before.boardId, toBoardId: after.boardId, fromDisplayId: before.displayId, toDisplayId: after.displayId } });
  }
  return entries;
}
