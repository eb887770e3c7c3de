import type { Clock } from '../../core/clock.js';
import type { DomainContext } from '../../db/context.js';
import type { DependencyItem, TicketItem } from '../../db/entities/index.js';
import { db } from '../../db/service.js';
import { batchGetMixed } from '../../db/batch.js';
import { retryLostRaces } from '../../db/races.js';
import { inTransactionChunks, transact } from '../../db/transact.js';
import type { DispatchedEvent } from '../../events/index.js';
import { baseTicketData } from '../events.js';
import { saveTicket } from '../write.js';
import { systemContext } from '../system-context.js';
import { isOpenTicket } from './readiness.js';

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

/**
 * The events function's handler of READINESS_EVENT: a deleted ticket's dependencies are
 * removed in both directions; the tickets that depended on it have their open blockers
 * recounted; its parents their open subtickets. Every step recounts from what is stored, so a
 * replay, or two records racing, converge on the same counts. Queues no delivery.
 */
export async function propagateReadiness(event: DispatchedEvent, clock: Clock): Promise<number> {
  const { ticketId, parentIds = [], deleted = false, dependents = true } = event.data as { ticketId: string; parentIds?: string[]; deleted?: boolean; dependents?: boolean };
  const ctx = systemContext(clock, { orgId: event.orgId });
  let dependentIds: string[] = [];
  if (dependents || deleted) {
    const items = await dependencyItemsOf(ticketId);
    dependentIds = items.filter((item) => item.direction === 'blocks').map((item) => item.otherId);
    if (deleted) await removeEveryDependency(items);
  }
  for (const dependentId of dependentIds) await recountBlockers(ctx, dependentId, ticketId);
  for (const parentId of parentIds) await recountSubtickets(ctx, parentId);
  return 0;
}

/** Removes each dependency of these items with its mirror, a transaction per chunk. */
async function removeEveryDependency(items: DependencyItem[]): Promise<void> {
  const keys = items.flatMap((item) => [
    { ticketId: item.ticketId, direction: item.direction, otherId: item.otherId },
    { ticketId: item.otherId, direction: item.direction === 'blocks' ? 'blockedBy' as const : 'blocks' as const, otherId: item.ticketId },
  ]);
  for (const chunk of inTransactionChunks(keys)) await transact((e) => chunk.map((key) => e.dependency.delete(key).commit()));
}

/**
 * Recounts the open blockers of one ticket and stores the count if it changed. When the last
 * one closed, the ticket is unblocked: a UNBLOCKED timeline entry and `ticket.unblocked` name
 * the blocker whose change did it.
 */
export async function recountBlockers(ctx: DomainContext, ticketId: string, causeId: string): Promise<void> {
  await retryLostRaces(async () => {
    const [ticket, edges] = await Promise.all([ticketsById(ctx.org.orgId, [ticketId]).then((found) => found.get(ticketId)), dependencyItemsOf(ticketId, 'blockedBy')]);
    if (!ticket || ticket.isDeleted) return;
    const blockerIds = edges.map((edge) => edge.otherId);
    const open = openCount(await ticketsById(ctx.org.orgId, blockerIds), blockerIds);
    if (open === (ticket.openBlockerCount ?? 0)) return;
    await saveTicket(ctx, { before: ticket, after: { ...ticket, openBlockerCount: open }, derivedEvents: false, ...unblockedBy(ticket, open, causeId) });
  });
}

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

/** Recounts the open subtickets of a parent and stores the count if it changed. */
export async function recountSubtickets(ctx: DomainContext, parentId: string): Promise<void> {
  await retryLostRaces(async () => {
    const parent = (await ticketsById(ctx.org.orgId, [parentId])).get(parentId);
    if (!parent || parent.isDeleted) return;
    const open = await openSubticketsOf(parent);
    if (open === (parent.openSubticketCount ?? 0)) return;
    await saveTicket(ctx, { before: parent, after: { ...parent, openSubticketCount: open }, derivedEvents: false });
  });
}
