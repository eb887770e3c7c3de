import type { TransactionEntities, TransactionItem } from '../db/transact.js';
import { TICKET_TIME_TOTAL, type TicketTimeItem, type TimeEntryItem } from '../db/entities/index.js';
import { db } from '../db/service.js';

/*
 * A ticket's time totals (TicketTime items), kept by every entry write (`aggregateItems`) as
 * the difference of what the entry contributed before and after, like the other aggregates.
 */

type StateTotals = Pick<TicketTimeItem, 'pendingCount' | 'pendingMinutes' | 'approvedCount' | 'approvedMinutes' | 'rejectedCount' | 'rejectedMinutes'>;

const STATE_FIELDS = {
  PENDING: ['pendingCount', 'pendingMinutes'],
  APPROVED: ['approvedCount', 'approvedMinutes'],
  REJECTED: ['rejectedCount', 'rejectedMinutes'],
} as const;

/** What one entry adds to its ticket's totals, and to its person's line (PENDING and APPROVED only). */
function contribution(entry: TimeEntryItem | undefined) {
  if (!entry?.ticketId) return undefined;
  const [countField, minutesField] = STATE_FIELDS[entry.state];
  return {
    ticketId: entry.ticketId,
    totals: { [countField]: 1, [minutesField]: entry.durationMinutes } as StateTotals,
    user: entry.state === 'REJECTED' ? undefined : { userId: entry.userId, count: 1, minutes: entry.durationMinutes },
  };
}

/** The TicketTime changes of an entry write from `before` to `after` (either may be absent). */
export function ticketTimeItems(e: TransactionEntities, before: TimeEntryItem | undefined, after: TimeEntryItem | undefined): TransactionItem[] {
  const was = contribution(before);
  const is = contribution(after);
  const orgId = (after ?? before)!.orgId;
  const totals = new Map<string, Record<string, number>>();
  const users = new Map<string, { ticketId: string; userId: string; count: number; minutes: number }>();
  const apply = (part: ReturnType<typeof contribution>, sign: 1 | -1) => {
    if (!part) return;
    const delta = totals.get(part.ticketId) ?? {};
    for (const [field, value] of Object.entries(part.totals)) delta[field] = (delta[field] ?? 0) + sign * (value as number);
    totals.set(part.ticketId, delta);
    if (!part.user) return;
    const key = `${part.ticketId}\u0000${part.user.userId}`;
    const line = users.get(key) ?? { ticketId: part.ticketId, userId: part.user.userId, count: 0, minutes: 0 };
    line.count += sign * part.user.count;
    line.minutes += sign * part.user.minutes;
    users.set(key, line);
  };
  apply(was, -1);
  apply(is, 1);
  const items: TransactionItem[] = [];
  for (const [ticketId, delta] of totals) {
    const changed = Object.fromEntries(Object.entries(delta).filter(([, value]) => value !== 0));
    if (Object.keys(changed).length > 0) items.push(e.ticketTime.update({ orgId, ticketId, userKey: TICKET_TIME_TOTAL }).add(changed).commit());
  }
  for (const line of users.values()) {
    // The name as of the person's latest entry write on the ticket.
    const named = after && after.userId === line.userId && after.ticketId === line.ticketId ? { name: after.userName, isAgent: after.isAgent } : undefined;
    if (line.count === 0 && line.minutes === 0 && !named) continue;
    const update = e.ticketTime.update({ orgId, ticketId: line.ticketId, userKey: line.userId }).add({ count: line.count, minutes: line.minutes });
    items.push((named ? update.set(named) : update).commit());
  }
  return items;
}

/** A ticket's time summary from its totals (one Query), shaped as the summary of its entries. */
export async function ticketTimeTotals(orgId: string, ticketId: string) {
  const { data } = await db().entities.ticketTime.query.byTicket({ orgId, ticketId }).go({ pages: 'all', consistent: true });
  const total = data.find((item) => item.userKey === TICKET_TIME_TOTAL);
  const state = (count: number | undefined, minutes: number | undefined) => ({ count: count ?? 0, minutes: minutes ?? 0 });
  const byState = {
    PENDING: state(total?.pendingCount, total?.pendingMinutes),
    APPROVED: state(total?.approvedCount, total?.approvedMinutes),
    REJECTED: state(total?.rejectedCount, total?.rejectedMinutes),
  };
  const byUser = data
    .filter((item) => item.userKey !== TICKET_TIME_TOTAL && (item.count ?? 0) > 0)
    .map((item) => ({ userId: item.userKey, name: item.name ?? '', isAgent: item.isAgent === true, minutes: item.minutes ?? 0 }));
  return { byState, byUser };
}
