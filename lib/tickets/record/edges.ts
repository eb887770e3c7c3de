import type { DependencyItem, TicketItem } from '../../db/entities/index.js';
import { db } from '../../db/service.js';
import { batchGetMixed } from '../../db/batch.js';
import { baseTicketData } from '../events.js';
import { isOpenTicket } from './readiness.js';

/*
 * Reading dependencies and judging readiness counts: what both the write path (which recounts a
 * finished or reopened ticket's dependents before it answers, lib/tickets/write.ts) and the
 * events function's backstop (dependencies/propagate.ts) read. Writes nothing.
 */

/** The two sides of every dependency of a ticket, or those of one direction (one consistent Query). */
export async function dependencyItemsOf(ticketId: string, direction?: DependencyItem['direction']): Promise<DependencyItem[]> {
  const query = db().entities.dependency.query.byTicket(direction ? { ticketId, direction } : { ticketId });
  return (await query.go({ pages: 'all', consistent: true })).data;
}

/** Tickets by id as stored (deleted ones included, other organizations' left out), in one consistent BatchGetItem. */
export async function ticketsById(orgId: string, ticketIds: string[]): Promise<Map<string, TicketItem>> {
  if (ticketIds.length === 0) return new Map();
  const found = (await batchGetMixed(ticketIds.map((ticketId) => ({ entity: db().entities.ticket, key: { ticketId } })))) as (TicketItem | undefined)[];
  return new Map(found.filter((ticket): ticket is TicketItem => !!ticket && ticket.orgId === orgId).map((ticket) => [ticket.ticketId, ticket]));
}

/** How many of these blockers are open. */
export const openCount = (blockers: Map<string, TicketItem>, blockerIds: string[]): number =>
  blockerIds.filter((id) => isOpenTicket(blockers.get(id))).length;

/** The timeline entry and event of a ticket whose last open blocker just closed or went away (none otherwise). */
export function unblockedBy(ticket: TicketItem, openAfter: number, lastBlockerId: string) {
  if (openAfter > 0 || (ticket.openBlockerCount ?? 0) === 0) return { events: [], timeline: [] };
  return {
    events: [{ type: 'ticket.unblocked', data: { ...baseTicketData(ticket), lastBlockerId } }],
    timeline: [{ kind: 'UNBLOCKED' as const, details: { lastBlockerId } }],
  };
}

/** How many of a parent's subtickets are open, from the subtickets as stored. */
export async function openSubticketsOf(parent: TicketItem): Promise<number> {
  const children = await ticketsById(parent.orgId, parent.subticketIds ?? []);
  return [...children.values()].filter((child) => child.parentTicketId === parent.ticketId && isOpenTicket(child)).length;
}
