import type { TransactionEntities, TransactionItem } from '../../db/transact.js';
import { FACET_COUNT_SHARDS, positionKeyOf, type TicketFacetItem, type TicketItem } from '../../db/entities/index.js';

/**
 * The facet index (lib/db/entities/ticket-facet.ts): one entry per (live ticket, filter value),
 * so a list filtered by assignee, type, label, customer, priority, impact or due date reads the
 * entries of the values asked for, never the board's other tickets.
 */

/** The range key of every facet but `due`. */
const NO_RANGE = '-';

/** A due date as its range key: normalized ISO 8601 (sortable); undefined when it does not parse. */
export function dueKeyOf(date: string): string | undefined {
  const time = Date.parse(date);
  return Number.isFinite(time) ? new Date(time).toISOString() : undefined;
}

/**
 * A ticket's facet entries as stored: none for a deleted ticket (or none at all). The position
 * key is derived from `position` here, never copied: a write's `after` may still carry the key
 * of its `before`.
 */
export function facetsOf(ticket: TicketItem | undefined): TicketFacetItem[] {
  if (!ticket || ticket.isDeleted) return [];
  const values: [facet: string, rangeKey: string][] = [
    [`type:${ticket.typeId}`, NO_RANGE],
    [`priority:${ticket.priority}`, NO_RANGE],
  ];
  if (ticket.assigneeId) values.push([`assignee:${ticket.assigneeId}`, NO_RANGE]);
  if (ticket.customerId) values.push([`customer:${ticket.customerId}`, NO_RANGE]);
  if (ticket.impactLevel) values.push([`impact:${ticket.impactLevel}`, NO_RANGE]);
  for (const labelId of new Set(ticket.labelIds ?? [])) values.push([`label:${labelId}`, NO_RANGE]);
  const due = ticket.dueDate ? dueKeyOf(ticket.dueDate) : undefined;
  values.push(due ? ['due', due] : ['due:none', NO_RANGE]);
  const entry = {
    orgId: ticket.orgId,
    boardId: ticket.boardId,
    ticketId: ticket.ticketId,
    statusId: ticket.statusId,
    positionKey: positionKeyOf(ticket.position),
    isArchived: ticket.isArchived === true,
  };
  return values.map(([facet, rangeKey]) => ({ ...entry, facet, rangeKey }));
}

const entryKey = (entry: TicketFacetItem): string => `${entry.boardId}\u0000${entry.facet}\u0000${entry.rangeKey}`;

/**
 * The facet entries a ticket write changes, for its transaction: entries of values the ticket
 * no longer has are deleted; new ones, and those whose status, position or archived flag
 * changed, are put. A write that changes none of these (a claim, a heartbeat) adds no item.
 * The ticket's version guard orders the writes of one ticket, so its entries follow its states.
 */
export function facetItems(e: TransactionEntities, before: TicketItem | undefined, after: TicketItem): TransactionItem[] {
  const was = new Map(facetsOf(before).map((entry) => [entryKey(entry), entry]));
  const is = new Map(facetsOf(after).map((entry) => [entryKey(entry), entry]));
  const items: TransactionItem[] = [];
  for (const [key, entry] of was) {
    if (!is.has(key)) items.push(e.ticketFacet.delete({ orgId: entry.orgId, boardId: entry.boardId, facet: entry.facet, rangeKey: entry.rangeKey, ticketId: entry.ticketId }).commit());
  }
  for (const [key, entry] of is) {
    const old = was.get(key);
    if (!old || old.statusId !== entry.statusId || old.positionKey !== entry.positionKey || old.isArchived !== entry.isArchived) {
      items.push(e.ticketFacet.put(entry).commit());
    }
  }
  return items;
}

/** Whether FacetCount items count a facet: the values a ticket has at most one of per kind. */
export const isCountedFacet = (facet: string): boolean => !facet.startsWith('label:') && facet !== 'due';

/**
 * The FacetCount changes of a ticket write, as items of its transaction: the state it replaces
 * leaves its (board, value, status) counts, the new state (a live ticket) enters them; only
 * nonzero deltas, each an upsert into one shard (picked at random, or `shard` when a transaction
 * writes two tickets, as `columnCountItems`). A write that changes no counted value, status,
 * archived flag, board or deletion adds none.
 */
export function facetCountItems(e: TransactionEntities, before: TicketItem | undefined, after: TicketItem, shard?: string): TransactionItem[] {
  const deltas = new Map<string, { boardId: string; facet: string; statusId: string; total: number; archived: number }>();
  const apply = (ticket: TicketItem | undefined, sign: 1 | -1) => {
    for (const entry of facetsOf(ticket)) {
      if (!isCountedFacet(entry.facet)) continue;
      const key = `${entry.boardId}\u0000${entry.facet}\u0000${entry.statusId}`;
      const delta = deltas.get(key) ?? { boardId: entry.boardId, facet: entry.facet, statusId: entry.statusId, total: 0, archived: 0 };
      delta.total += sign;
      if (entry.isArchived) delta.archived += sign;
      deltas.set(key, delta);
    }
  };
  apply(before, -1);
  apply(after, 1);
  return [...deltas.values()]
    .filter((delta) => delta.total !== 0 || delta.archived !== 0)
    .map((delta) =>
      e.facetCount
        .update({ orgId: after.orgId, boardId: delta.boardId, facet: delta.facet, statusId: delta.statusId, shard: shard ?? String(Math.floor(Math.random() * FACET_COUNT_SHARDS)) })
        .add({ total: delta.total, archived: delta.archived })
        .commit(),
    );
}

