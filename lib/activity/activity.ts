import { addSeconds, epochSeconds } from '../core/clock.js';
import { db } from '../db/service.js';
import type { TransactionEntities } from '../db/transact.js';
import { ORG_SUBJECT, ORG_SUBJECT_SHARDS, type ActivityCounter, type ActivityDayItem, type TicketItem } from '../db/entities/index.js';

/** Activity items outlive the longest window the overview reads (31 days) comfortably. */
const ACTIVITY_RETENTION_SECONDS = 90 * 24 * 3600;
const DAY_MS = 24 * 3600 * 1000;

/** The UTC calendar day of an instant, YYYY-MM-DD. */
export const utcDay = (date: Date): string => date.toISOString().slice(0, 10);

/** The first day of the instant's UTC month, YYYY-MM-01. */
export const utcMonthStart = (date: Date): string => `${date.toISOString().slice(0, 7)}-01`;

/** The UTC day `days` days before the instant's day. */
export const utcDaysBefore = (date: Date, days: number): string => utcDay(new Date(date.getTime() - days * DAY_MS));

/**
 * The transaction item that adds to one subject's counters of the instant's UTC day (an
 * upsert that cannot fail a condition: put it after the conditional items of a transaction).
 */
export function activityDelta(
  e: TransactionEntities,
  orgId: string,
  subjectId: string,
  at: Date,
  counters: Partial<Record<ActivityCounter, number>>,
) {
  const day = utcDay(at);
  const ttl = epochSeconds(addSeconds(new Date(`${day}T00:00:00.000Z`), ACTIVITY_RETENTION_SECONDS));
  return e.activityDay.update({ orgId, day, subjectId }).add(counters).set({ ttl }).commit();
}

/** Whether a ticket write closes the ticket: it enters a FINAL status (created in one, or moved into one). */
export function closesTicket(before: TicketItem | undefined, after: TicketItem): boolean {
  if (after.isDeleted || after.statusCategory !== 'FINAL') return false;
  return !before || before.isDeleted === true || before.statusCategory !== 'FINAL';
}

/** The closing counters of a ticket write by `actor`, or undefined when the write closes nothing. */
export function closingDelta(e: TransactionEntities, before: TicketItem | undefined, after: TicketItem, byAgent: boolean, at: Date) {
  if (!closesTicket(before, after)) return undefined;
  const shard = Math.floor(Math.random() * ORG_SUBJECT_SHARDS);
  return activityDelta(e, after.orgId, `${ORG_SUBJECT}#${shard}`, at, { ticketsClosed: 1, ticketsClosedByAgents: byAgent ? 1 : 0 });
}

/** An organization's activity items from `fromDay` through the instant's day (one Query, its pages). */
export async function activitySince(orgId: string, fromDay: string, now: Date): Promise<ActivityDayItem[]> {
  const tomorrow = utcDay(new Date(now.getTime() + DAY_MS));
  // BETWEEN day_from AND day_tomorrow: every subject of today sorts below the bare next day.
  const { data } = await db().entities.activityDay.query.byOrg({ orgId }).between({ day: fromDay }, { day: tomorrow }).go({ pages: 'all' });
  return data.filter((item) => item.day <= utcDay(now));
}
