import { AppError, conflict, notFound } from '../core/errors.js';
import { newId } from '../core/ids.js';
import type { DomainContext } from '../db/context.js';
import { db } from '../db/service.js';
import { guarded, isConditionFailure } from '../db/transact.js';
import type { TimerItem } from '../db/entities/index.js';
import { utcDay } from '../activity/index.js';
import { enterTimeTracking } from './access.js';
import { bookingItemRef } from './booking-items.js';
import { bookEntry, newEntry, resolveTarget, type TimeTargetRef } from './entries.js';
import { loadTimeRefs, ticketRef, type TimeRefs } from './present.js';
import { syncEndpointKey } from './sync.js';

/** A running timer (docs/features.md, Time tracking: id, ticketId, startedAt, ticket {displayId, title}). */
function presentTimer(timer: TimerItem, refs: TimeRefs) {
  return {
    id: timer.timerId,
    ticketId: timer.ticketId ?? null,
    ticket: ticketRef(refs.ticket(timer.ticketId)),
    bookingItemId: timer.bookingItemId ?? null,
    bookingItem: bookingItemRef(refs.bookingItem(timer.bookingItemId)),
    startedAt: timer.startedAt,
  };
}

async function timersOf(ctx: DomainContext): Promise<TimerItem[]> {
  const { data } = await db().entities.timer.query.byUser({ orgId: ctx.org.orgId, userId: ctx.actor.userId }).go({ pages: 'all' });
  return data.sort((a, b) => a.startedAt.localeCompare(b.startedAt) || a.timerId.localeCompare(b.timerId));
}

/** GET …/timers: the caller's running timers, oldest first (bare array). */
export async function listTimers(ctx: DomainContext) {
  enterTimeTracking(ctx, 'time-tracking:view');
  const timers = await timersOf(ctx);
  const refs = await loadTimeRefs(ctx, timers);
  return timers.map((timer) => presentTimer(timer, refs));
}

/**
 * POST …/timers: starts a timer on a ticket the caller may see, or on an active booking item.
 * One timer per ticket per person: the create is conditional on the (user, target) key, so a
 * second start on the same ticket is 409 naming the running timer.
 */
export async function startTimer(ctx: DomainContext, ref: TimeTargetRef) {
  enterTimeTracking(ctx, 'time-tracking:manage');
  const target = await resolveTarget(ctx, ref);
  const timer: TimerItem = {
    orgId: ctx.org.orgId,
    userId: ctx.actor.userId,
    target: target.ticket?.ticketId ?? target.bookingItem!.bookingItemId,
    timerId: newId('tmr'),
    ...(target.ticket ? { ticketId: target.ticket.ticketId, boardId: target.ticket.boardId } : {}),
    ...(target.bookingItem ? { bookingItemId: target.bookingItem.bookingItemId } : {}),
    startedAt: ctx.clock.now().toISOString(),
  };
  try {
    await db().entities.timer.create(timer).go({ response: 'none' });
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    const running = (await db().entities.timer.get({ orgId: timer.orgId, userId: timer.userId, target: timer.target }).go()).data;
    throw conflict(`A timer is already running on this ${target.ticket ? 'ticket' : 'booking item'}`, { timerId: running?.timerId ?? null });
  }
  const refs = await loadTimeRefs(ctx, [], target.ticket ? [target.ticket] : []);
  return presentTimer(timer, { ...refs, bookingItem: () => target.bookingItem });
}

/** Whole minutes a timer ran, at least 1. */
const minutesRun = (timer: TimerItem, now: Date): number => Math.max(1, Math.round((now.getTime() - Date.parse(timer.startedAt)) / 60_000));

/**
 * Stops one timer: its entry (dated the UTC day the timer started) and the timer's deletion are
 * one transaction, so a timer becomes exactly one entry even when stopped twice at once. An
 * agent's stop that would pass its weekly cap is refused and the timer keeps running. A timer
 * whose ticket was deleted (or is no longer visible to the caller) cannot become an entry: it
 * is discarded and the stop answers 404. A booking item deactivated since the start still
 * takes the time already run.
 */
async function stop(ctx: DomainContext, timer: TimerItem, description: string | undefined) {
  const timerKey = { orgId: timer.orgId, userId: timer.userId, target: timer.target };
  let target: Awaited<ReturnType<typeof resolveTarget>>;
  try {
    target = await resolveTarget(ctx, { ...(timer.ticketId ? { ticketId: timer.ticketId } : { bookingItemId: timer.bookingItemId! }) }, [syncEndpointKey(ctx.org.orgId)], true);
  } catch (error) {
    if (error instanceof AppError && error.status === 404) await db().entities.timer.delete(timerKey).go({ response: 'none' });
    throw error;
  }
  const entry = newEntry(ctx, target, {
    rawMinutes: minutesRun(timer, ctx.clock.now()),
    ...(description !== undefined ? { description } : {}),
    date: utcDay(new Date(timer.startedAt)),
    source: 'TIMER',
  });
  return bookEntry(ctx, target, entry, (e) => [
    guarded(e.timer.delete(timerKey).where((attr, op) => op.eq(attr.timerId, timer.timerId)).commit(), () => notFound('Timer')),
  ]);
}

/** POST …/timers/{timerId}/stop: the entry it became. */
export async function stopTimer(ctx: DomainContext, timerId: string, input: { description?: string }) {
  enterTimeTracking(ctx, 'time-tracking:manage');
  const timer = (await timersOf(ctx)).find((candidate) => candidate.timerId === timerId);
  if (!timer) throw notFound('Timer');
  return stop(ctx, timer, input.description);
}

/**
 * POST …/timers/stop-all: stops each of the caller's timers as a single stop would. A timer
 * that cannot be stopped (a cap refusal, a vanished ticket) does not hold back the others: it
 * is listed under `notStopped` with the error it met.
 */
export async function stopAllTimers(ctx: DomainContext, input: { description?: string }) {
  enterTimeTracking(ctx, 'time-tracking:manage');
  const stopped = [];
  const notStopped = [];
  for (const timer of await timersOf(ctx)) {
    try {
      stopped.push(await stop(ctx, timer, input.description));
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      notStopped.push({ timerId: timer.timerId, error: { code: error.code, message: error.message } });
    }
  }
  return { stopped, notStopped };
}
