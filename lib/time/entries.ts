import { AppError, conflict, forbidden, invalidField, notFound } from '../core/errors.js';
import { newId } from '../core/ids.js';
import type { DomainContext } from '../db/context.js';
import { db } from '../db/service.js';
import { batchGetMixed, type KeyRequest } from '../db/batch.js';
import { guarded, type TransactionEntities, type TransactionItem } from '../db/transact.js';
import { LostRace, retryLostRaces } from '../db/races.js';
import type { BookingItemItem, TicketItem, TimeEntryItem, TimelineEntryItem, TimeSyncEndpointItem } from '../db/entities/index.js';
import { eventPuts } from '../events/index.js';
import { utcDay } from '../activity/index.js';
import { loadVisibleBoard } from '../boards/index.js';
import { notificationPut } from '../notifications/index.js';
import { hasPermission } from '../organizations/index.js';
import { assertFence, fenceCondition, liveTicketOf, resolveTicketRef } from '../tickets/index.js';
import { enterTimeTracking } from './access.js';
import { aggregateItems, transactWithCap, type AgentCap } from './aggregates.js';
import { presentEntries } from './present.js';
import { syncEndpointKey, withSyncPush } from './sync.js';

/** What time is booked on: a ticket (its id or display id) or a booking item, exactly one. */
export interface TimeTargetRef {
  ticketId?: string;
  bookingItemId?: string;
}

export interface TimeTarget {
  ticket?: TicketItem;
  bookingItem?: BookingItemItem;
}

/**
 * The ticket or booking item a timer or an entry names, read with `more` items in one
 * BatchGetItem. A ticket must be live and on a board the caller may see (404 otherwise, also
 * for another organization's); a booking item must exist (404) and be active (400), unless
 * `acceptInactive` (a timer started while it was active still books its time).
 */
export async function resolveTarget(ctx: DomainContext, ref: TimeTargetRef, more: KeyRequest[] = [], acceptInactive = false): Promise<TimeTarget & { more: unknown[] }> {
  if ((ref.ticketId === undefined) === (ref.bookingItemId === undefined)) {
    throw invalidField('ticketId', 'Give exactly one of ticketId and bookingItemId');
  }
  if (ref.ticketId !== undefined) {
    const ticketId = await resolveTicketRef(ctx, ref.ticketId);
    const [ticket, ...found] = await batchGetMixed([{ entity: db().entities.ticket, key: { ticketId } }, ...more]);
    const live = liveTicketOf(ctx, ticket as TicketItem | undefined);
    if (!live) throw notFound('Ticket');
    await loadVisibleBoard(ctx, live.boardId).catch((error: unknown) => {
      throw error instanceof AppError && error.status === 404 ? notFound('Ticket') : error;
    });
    return { ticket: live, more: found };
  }
  const [item, ...found] = await batchGetMixed([{ entity: db().entities.bookingItem, key: { orgId: ctx.org.orgId, bookingItemId: ref.bookingItemId } }, ...more]);
  const bookingItem = item as BookingItemItem | undefined;
  if (!bookingItem) throw notFound('Booking item');
  if (!bookingItem.isActive && !acceptInactive) throw invalidField('bookingItemId', 'The booking item is not active');
  return { bookingItem, more: found };
}

/** Agent minutes are booked times the factor (the agent's, else the organization's), at least 1. */
export const factored = (rawMinutes: number, factor: number): number => Math.max(1, Math.round(rawMinutes * factor));

export interface NewEntry {
  rawMinutes: number;
  description?: string;
  date: string;
  source: TimeEntryItem['source'];
}

/** A new entry by the caller: APPROVED for a person, PENDING (and factored) for an agent. */
export function newEntry(ctx: DomainContext, target: TimeTarget, input: NewEntry): TimeEntryItem {
  const now = ctx.clock.now().toISOString();
  const factor = ctx.actor.agent ? (ctx.actor.agent.timeFactor ?? ctx.org.defaultTimeFactor ?? 1) : undefined;
  return {
    orgId: ctx.org.orgId,
    entryId: newId('te'),
    userId: ctx.actor.userId,
    userName: ctx.actor.name,
    isAgent: ctx.actor.agent !== null,
    ...(target.ticket ? { ticketId: target.ticket.ticketId, boardId: target.ticket.boardId } : {}),
    ...(target.bookingItem ? { bookingItemId: target.bookingItem.bookingItemId } : {}),
    durationMinutes: factor === undefined ? input.rawMinutes : factored(input.rawMinutes, factor),
    rawMinutes: input.rawMinutes,
    ...(factor !== undefined ? { timeFactor: factor } : {}),
    description: input.description ?? '',
    date: input.date,
    state: ctx.actor.agent ? 'PENDING' : 'APPROVED',
    source: input.source,
    billed: false,
    createdAt: now,
    updatedAt: now,
    version: 1,
  };
}

type TimelineKind = Extract<TimelineEntryItem['kind'], `TIME_${string}`>;

export interface EntryWrite {
  before?: TimeEntryItem;
  after?: TimeEntryItem;
  endpoint: TimeSyncEndpointItem | undefined;
  /** The cap of the entry's agent (null: none, or a person's entry). */
  cap: AgentCap;
  timeline?: TimelineKind;
  /** The ticket of a new entry (for the owner's notification). */
  ticket?: TicketItem;
  /** Other items of the same transaction (a stopped timer's deletion). */
  related?: (e: TransactionEntities) => TransactionItem[];
}

/**
 * The one way an entry is written: the entry (created, replaced guarded by its version, or
 * deleted), the maintained aggregates (week counter under the cap, pending counters, approved
 * minutes), the ticket's timeline, the owner's notification of a new pending agent entry, and
 * the sync push, in ONE transaction. Returns the entry as stored.
 */
export async function writeEntry(ctx: DomainContext, write: EntryWrite): Promise<TimeEntryItem | undefined> {
  const { before } = write;
  const now = ctx.clock.now();
  const pushed = withSyncPush(ctx, write.endpoint, before, write.after);
  const after: TimeEntryItem | undefined = pushed.entry && before ? { ...pushed.entry, version: before.version + 1, updatedAt: now.toISOString() } : pushed.entry;
  const subject = (after ?? before)!;
  const stale = () => new LostRace('The time entry changed concurrently; retry');
  const notifyOwner = !before && after?.state === 'PENDING' && ctx.actor.agent?.ownerId ? ctx.actor.agent.ownerId : undefined;

  await transactWithCap(subject, (e) => [
    guarded(
      !before
        ? e.timeEntry.create(after!).commit()
        : after
          ? e.timeEntry.put(after).where((attr, op) => op.eq(attr.version, before.version)).commit()
          : e.timeEntry.delete({ orgId: before.orgId, entryId: before.entryId }).where((attr, op) => op.eq(attr.version, before.version)).commit(),
      before ? stale : () => new LostRace('The time entry could not be stored; retry'),
    ),
    ...(write.related?.(e) ?? []),
    ...aggregateItems(e, before, after, write.cap),
    ...(write.timeline && subject.ticketId
      ? [
          e.timelineEntry
            .create({
              ticketId: subject.ticketId,
              entryId: newId('tle'),
              orgId: subject.orgId,
              kind: write.timeline,
              actorId: ctx.actor.userId,
              actorName: ctx.actor.name,
              details: timelineDetails(before, after),
              createdAt: now.toISOString(),
            })
            .commit(),
        ]
      : []),
    ...(notifyOwner
      ? [
          notificationPut(
            e,
            {
              orgId: subject.orgId,
              userId: notifyOwner,
              type: 'AGENT_TIME_PENDING',
              data: {
                entryId: subject.entryId,
                agentId: subject.userId,
                agentName: subject.userName,
                ticketId: subject.ticketId ?? null,
                displayId: write.ticket?.displayId ?? null,
                bookingItemId: subject.bookingItemId ?? null,
                durationMinutes: subject.durationMinutes,
                date: subject.date,
              },
            },
            now,
          ),
        ]
      : []),
    ...eventPuts(e, pushed.events),
  ]);
  return after;
}

function timelineDetails(before: TimeEntryItem | undefined, after: TimeEntryItem | undefined): Record<string, unknown> {
  const entry = (after ?? before)!;
  return {
    timeEntryId: entry.entryId,
    userId: entry.userId,
    durationMinutes: entry.durationMinutes,
    date: entry.date,
    state: entry.state,
    ...(before && after && (before.durationMinutes !== after.durationMinutes || before.date !== after.date)
      ? { previousDurationMinutes: before.durationMinutes, previousDate: before.date }
      : {}),
    ...(after?.rejectionReason ? { reason: after.rejectionReason } : {}),
  };
}

/** The cap that governs the caller's own new entries. */
export const ownCap = (ctx: DomainContext): AgentCap => ({ weeklyHoursCap: ctx.actor.agent?.weeklyHoursCap ?? null });

export interface EntryInput extends TimeTargetRef {
  durationMinutes: number;
  description?: string;
  date?: string;
}

/**
 * POST /api/v1/time-tracking/entries (and the MCP tool `time_log`): the caller books time on a
 * ticket or a booking item. A person's entry is APPROVED at once (and pushed to the sync
 * endpoint); an agent's is PENDING, factored, counted against its weekly cap, and its owner is
 * notified. The date defaults to today (UTC).
 */
export async function createEntry(ctx: DomainContext, input: EntryInput, source: 'MANUAL' | 'MCP' = 'MANUAL') {
  enterTimeTracking(ctx, 'time-tracking:manage');
  // A fenced entry (X-Claim-Count, MCP claimCount) is decided again from a fresh read when the lease changed under it.
  return retryLostRaces(async () => {
    const target = await resolveTarget(ctx, input, [syncEndpointKey(ctx.org.orgId)]);
    const fenced = fencedOn(ctx, target.ticket);
    const entry = newEntry(ctx, target, {
      rawMinutes: input.durationMinutes,
      ...(input.description !== undefined ? { description: input.description } : {}),
      date: input.date ?? utcDay(ctx.clock.now()),
      source,
    });
    return bookEntry(ctx, target, entry, fenced);
  });
}

/**
 * The fence of time booked under a claim: the ticket must carry the caller's live lease of
 * that number now (checked at once) and at commit (a check in the entry's transaction).
 */
function fencedOn(ctx: DomainContext, ticket: TicketItem | undefined): EntryWrite['related'] {
  if (ctx.claimFence === undefined) return undefined;
  if (!ticket) throw invalidField('ticketId', 'A claim count (X-Claim-Count) fences time booked on a ticket only');
  assertFence(ctx, ticket);
  const condition = fenceCondition(ctx);
  return (e) => [
    guarded(e.ticket.check({ ticketId: ticket.ticketId }).where(condition).commit(), () => new LostRace('The claim changed concurrently; retry')),
  ];
}

/**
 * Writes a new entry of the caller on a resolved target (read with the sync endpoint as its
 * one further item, `syncEndpointKey`) and presents it: the creation of an entry and a timer's
 * stop alike. `related` joins items to the same transaction (the stopped timer's deletion).
 */
export async function bookEntry(ctx: DomainContext, target: TimeTarget & { more: unknown[] }, entry: TimeEntryItem, related?: EntryWrite['related']) {
  const stored = await writeEntry(ctx, {
    after: entry,
    endpoint: target.more[0] as TimeSyncEndpointItem | undefined,
    cap: ownCap(ctx),
    timeline: 'TIME_LOGGED',
    ...(target.ticket ? { ticket: target.ticket } : {}),
    ...(related ? { related } : {}),
  });
  return (await presentEntries(ctx, [stored!], target.ticket ? [target.ticket] : []))[0]!;
}

/** The entry and the organization's sync endpoint, in one BatchGetItem; 404 for an unknown or foreign id. */
async function loadEntry(ctx: DomainContext, entryId: string): Promise<{ entry: TimeEntryItem; endpoint: TimeSyncEndpointItem | undefined }> {
  const [entry, endpoint] = (await batchGetMixed([
    { entity: db().entities.timeEntry, key: { orgId: ctx.org.orgId, entryId } },
    syncEndpointKey(ctx.org.orgId),
  ])) as [TimeEntryItem | undefined, TimeSyncEndpointItem | undefined];
  if (!entry) throw notFound('Time entry');
  return { entry, endpoint };
}

const mayApprove = (ctx: DomainContext): boolean => hasPermission(ctx, 'time-tracking:approve');

/**
 * Someone else's entry on a board the caller cannot see is, to them, an entry that does not
 * exist (404): holding time-tracking:approve does not open boards. One GetItem of the board,
 * only for a non-administrator acting on another person's ticket entry.
 */
async function assertEntryVisible(ctx: DomainContext, entry: TimeEntryItem): Promise<void> {
  if (entry.userId === ctx.actor.userId || ctx.actor.isAdmin || !entry.boardId) return;
  await loadVisibleBoard(ctx, entry.boardId).catch((error: unknown) => {
    throw error instanceof AppError && error.status === 404 ? notFound('Time entry') : error;
  });
}

const billed = () => new AppError('ENTRY_BILLED', 'The entry was billed by the time-booking system and is locked');

/**
 * Who may change or delete an entry: its owner, or a holder of time-tracking:approve. A billed
 * entry is locked for everyone; an approved agent entry is changed only by an approver.
 */
function assertMayChange(ctx: DomainContext, entry: TimeEntryItem): void {
  const own = entry.userId === ctx.actor.userId;
  if (!own && !mayApprove(ctx)) throw forbidden('Only the owner of an entry or a holder of time-tracking:approve may change it', 'FORBIDDEN', { permission: 'time-tracking:approve' });
  if (entry.billed) throw billed();
  if (entry.isAgent && entry.state === 'APPROVED' && !mayApprove(ctx)) {
    throw forbidden('An approved agent entry is changed only by a holder of time-tracking:approve', 'FORBIDDEN', { permission: 'time-tracking:approve' });
  }
}

/** The cap of the entry's agent: the caller's own, or read from the agent (an approver's change). */
async function capOf(ctx: DomainContext, entry: TimeEntryItem): Promise<AgentCap> {
  if (!entry.isAgent) return { weeklyHoursCap: null };
  if (entry.userId === ctx.actor.userId) return ownCap(ctx);
  const agent = (await db().entities.user.get({ orgId: entry.orgId, userId: entry.userId }).go()).data;
  return { weeklyHoursCap: agent?.weeklyHoursCap ?? null };
}

export interface EntryChanges {
  durationMinutes?: number;
  description?: string;
  date?: string;
}

/**
 * PATCH …/entries/{entryId}: minutes (as reported: an agent entry applies its factor again),
 * description, date. A rejected entry stays as it was decided (409). The aggregates, the cap,
 * the timeline and a new push of an approved entry follow in the same transaction.
 */
export async function updateEntry(ctx: DomainContext, entryId: string, changes: EntryChanges) {
  enterTimeTracking(ctx, 'time-tracking:manage');
  return retryLostRaces(async () => {
    const { entry, endpoint } = await loadEntry(ctx, entryId);
    await assertEntryVisible(ctx, entry);
    assertMayChange(ctx, entry);
    if (entry.state === 'REJECTED') throw conflict('A rejected entry cannot be changed; log a new one', { state: entry.state });
    const rawMinutes = changes.durationMinutes ?? entry.rawMinutes;
    const after: TimeEntryItem = {
      ...entry,
      rawMinutes,
      durationMinutes: entry.timeFactor === undefined ? rawMinutes : factored(rawMinutes, entry.timeFactor),
      ...(changes.description !== undefined ? { description: changes.description } : {}),
      ...(changes.date !== undefined ? { date: changes.date } : {}),
    };
    const unchanged = after.durationMinutes === entry.durationMinutes && after.rawMinutes === entry.rawMinutes && after.description === entry.description && after.date === entry.date;
    if (unchanged) return (await presentEntries(ctx, [entry]))[0]!;
    const stored = await writeEntry(ctx, { before: entry, after, endpoint, cap: await capOf(ctx, entry), timeline: 'TIME_UPDATED' });
    return (await presentEntries(ctx, [stored!]))[0]!;
  });
}

/** DELETE …/entries/{entryId}: the aggregates fall and a pushed entry's deletion is pushed, in the same transaction. */
export async function deleteEntry(ctx: DomainContext, entryId: string): Promise<void> {
  enterTimeTracking(ctx, 'time-tracking:manage');
  await retryLostRaces(async () => {
    const { entry, endpoint } = await loadEntry(ctx, entryId);
    await assertEntryVisible(ctx, entry);
    assertMayChange(ctx, entry);
    await writeEntry(ctx, { before: entry, endpoint, cap: { weeklyHoursCap: null }, timeline: 'TIME_DELETED' });
  });
}

/**
 * POST …/entries/{entryId}/approve|reject (time-tracking:approve, never on one's own entry): a
 * PENDING entry is decided once (a decided one → 409). Approval books its minutes (overview)
 * and pushes it to the sync endpoint; rejection frees its minutes from the agent's week.
 */
export async function decideEntry(ctx: DomainContext, entryId: string, decision: 'APPROVED' | 'REJECTED', reason?: string) {
  enterTimeTracking(ctx, 'time-tracking:approve');
  return retryLostRaces(async () => {
    const { entry, endpoint } = await loadEntry(ctx, entryId);
    await assertEntryVisible(ctx, entry);
    if (entry.userId === ctx.actor.userId) throw forbidden('No one approves or rejects their own time', 'FORBIDDEN');
    if (entry.state !== 'PENDING') throw conflict(`The entry was already ${entry.state.toLowerCase()}`, { state: entry.state });
    const after: TimeEntryItem = {
      ...entry,
      state: decision,
      decidedById: ctx.actor.userId,
      decidedByName: ctx.actor.name,
      decidedAt: ctx.clock.now().toISOString(),
      ...(reason ? { rejectionReason: reason } : {}),
    };
    const stored = await writeEntry(ctx, {
      before: entry,
      after,
      endpoint,
      cap: { weeklyHoursCap: null },
      timeline: decision === 'APPROVED' ? 'TIME_APPROVED' : 'TIME_REJECTED',
    });
    return (await presentEntries(ctx, [stored!]))[0]!;
  });
}

/**
 * POST …/entries/{entryId}/resync: pushes an approved entry to the sync endpoint again. Own
 * entries, or any for administrators; a billed entry → 409 ENTRY_BILLED; no endpoint → 409
 * SYNC_NOT_CONFIGURED.
 */
export async function resyncEntry(ctx: DomainContext, entryId: string) {
  enterTimeTracking(ctx, 'time-tracking:manage');
  return retryLostRaces(async () => {
    const { entry, endpoint } = await loadEntry(ctx, entryId);
    if (entry.userId !== ctx.actor.userId && !ctx.actor.isAdmin) throw forbidden('Only the owner of an entry or an administrator may re-sync it', 'FORBIDDEN', { requiredRole: 'ADMIN' });
    if (entry.billed) throw billed();
    if (!endpoint) throw new AppError('SYNC_NOT_CONFIGURED', 'No time-booking sync endpoint is configured');
    if (entry.state !== 'APPROVED') throw conflict('Only approved entries are synced', { state: entry.state });
    const stored = await writeEntry(ctx, { before: entry, after: entry, endpoint, cap: { weeklyHoursCap: null } });
    return (await presentEntries(ctx, [stored!]))[0]!;
  });
}
