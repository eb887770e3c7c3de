import { AppError } from '../core/errors.js';
import { activityDelta } from '../activity/index.js';
import { db } from '../db/service.js';
import { guarded, transact, type TransactionEntities, type TransactionItem } from '../db/transact.js';
import { ORG_SUBJECT, ORG_SUBJECT_SHARDS, type TimeEntryItem } from '../db/entities/index.js';
import { isoWeekOf } from './calendar.js';
import { ticketTimeItems } from './ticket-time.js';

/*
 * The maintained aggregates of time tracking, changed in the transaction of every entry
 * change (create, patch, approve, reject, delete) and never recomputed from entries:
 *
 * - an agent's week counter (PENDING + APPROVED minutes of an ISO week), the weekly cap's
 *   ground truth: an increase is conditional on staying within the cap;
 * - an agent's PENDING count and minutes, on its user item (agents overview `pendingTime`);
 * - APPROVED minutes per day of the entry's date: the organization's `humanMinutes` or
 *   `agentMinutes` and the agent's `approvedMinutes` (activity items the overview sums);
 * - the entry's ticket's totals per state and per person (ticket-time.ts: its summary).
 *
 * Every change is expressed as "what the entry contributed before" against "what it
 * contributes after", so one function serves every write path.
 */

/**
 * 403 WEEKLY_HOURS_CAP_REACHED. Details in hours as the cap is (`cap`, `used`: the week's
 * PENDING + APPROVED hours before the request, `requested`), and the exact minutes.
 */
export class WeeklyCapReached extends AppError {
  constructor(
    readonly capHours: number,
    usedMinutes: number,
    readonly requestedMinutes: number,
  ) {
    super('WEEKLY_HOURS_CAP_REACHED', `This entry would take the agent past its weekly cap of ${capHours} hours`, {
      cap: capHours,
      used: round2(usedMinutes / 60),
      requested: round2(requestedMinutes / 60),
      usedMinutes,
      requestedMinutes,
    });
    this.name = 'WeeklyCapReached';
  }
}

export const capReached = (capHours: number, usedMinutes: number, requestedMinutes: number): AppError => new WeeklyCapReached(capHours, usedMinutes, requestedMinutes);

const round2 = (value: number): number => Math.round(value * 100) / 100;

/** Minutes the entry counts against its agent's week (PENDING and APPROVED agent entries). */
const weekMinutes = (entry: TimeEntryItem | undefined): number =>
  entry?.isAgent && entry.state !== 'REJECTED' ? entry.durationMinutes : 0;

const approvedMinutes = (entry: TimeEntryItem | undefined): number => (entry && entry.state === 'APPROVED' ? entry.durationMinutes : 0);

const pending = (entry: TimeEntryItem | undefined): { count: number; minutes: number } =>
  entry?.isAgent && entry.state === 'PENDING' ? { count: 1, minutes: entry.durationMinutes } : { count: 0, minutes: 0 };

/** Differences keyed by `key(entry)`: after's contribution minus before's. */
function deltasBy(before: TimeEntryItem | undefined, after: TimeEntryItem | undefined, key: (entry: TimeEntryItem) => string, value: (entry: TimeEntryItem | undefined) => number) {
  const deltas = new Map<string, number>();
  if (before) deltas.set(key(before), -value(before));
  if (after) deltas.set(key(after), (deltas.get(key(after)) ?? 0) + value(after));
  return [...deltas].filter(([, delta]) => delta !== 0);
}

export interface AgentCap {
  /** The agent's weekly hours cap; null: none. */
  weeklyHoursCap: number | null;
}

/**
 * The transaction items that move the aggregates from `before` to `after` (either may be
 * absent: a creation, a deletion). `cap` is the entry's agent's cap: an increase of a week's
 * minutes is guarded by it (the guard's failure is WEEKLY_HOURS_CAP_REACHED without `used`;
 * `withCapUsage` completes it). An increase larger than the whole cap is refused here.
 */
export function aggregateItems(e: TransactionEntities, before: TimeEntryItem | undefined, after: TimeEntryItem | undefined, cap: AgentCap): TransactionItem[] {
  const entry = (after ?? before)!;
  const { orgId, userId } = entry;
  const items: TransactionItem[] = [];
  const capMinutes = cap.weeklyHoursCap === null ? null : Math.round(cap.weeklyHoursCap * 60);

  for (const [week, delta] of deltasBy(before, after, (item) => isoWeekOf(item.date), weekMinutes)) {
    const counter = e.agentWeek.update({ orgId, agentId: userId, week }).add({ minutes: delta });
    if (delta <= 0 || capMinutes === null) {
      items.push(counter.commit());
      continue;
    }
    if (delta > capMinutes) throw capReached(cap.weeklyHoursCap!, Number.NaN, delta);
    const limit = capMinutes - delta;
    items.push(
      guarded(
        counter.where((attr, op) => `${op.notExists(attr.minutes)} OR ${op.lte(attr.minutes, limit)}`).commit(),
        () => capReached(cap.weeklyHoursCap!, Number.NaN, delta),
      ),
    );
  }

  const was = pending(before);
  const is = pending(after);
  if (was.count !== is.count || was.minutes !== is.minutes) {
    items.push(
      e.user
        .patch({ orgId, userId })
        .add({ pendingTimeCount: is.count - was.count, pendingTimeMinutes: is.minutes - was.minutes })
        .commit(),
    );
  }

  // Approved minutes by the day of the work (the overview's "this month" is the work's month).
  for (const [day, delta] of deltasBy(before, after, (item) => item.date, approvedMinutes)) {
    const at = new Date(`${day}T12:00:00.000Z`);
    const shard = Math.floor(Math.random() * ORG_SUBJECT_SHARDS);
    items.push(activityDelta(e, orgId, `${ORG_SUBJECT}#${shard}`, at, entry.isAgent ? { agentMinutes: delta } : { humanMinutes: delta }));
    if (entry.isAgent) items.push(activityDelta(e, orgId, userId, at, { approvedMinutes: delta }));
  }
  // The ticket's time totals (its summary's ground truth).
  items.push(...ticketTimeItems(e, before, after));
  return items;
}

/**
 * Runs an entry transaction; a refusal by the weekly cap gains the week's `used` hours (one
 * read, on the refusal path only: the guard cannot know them).
 */
export async function transactWithCap(entry: TimeEntryItem, build: Parameters<typeof transact>[0]): Promise<void> {
  try {
    await transact(build);
  } catch (error) {
    if (!(error instanceof WeeklyCapReached)) throw error;
    const week = isoWeekOf(entry.date);
    const counter = (await db().entities.agentWeek.get({ orgId: entry.orgId, agentId: entry.userId, week }).go()).data;
    throw capReached(error.capHours, counter?.minutes ?? 0, error.requestedMinutes);
  }
}
