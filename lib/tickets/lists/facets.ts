import type { TransactionEntities, TransactionItem } from '../../db/transact.js';
import { FACET_COUNT_SHARDS, positionKeyOf, type TicketFacetItem, type TicketItem } from '../../db/entities/index.js';
import { mapLimited } from '../../core/concurrency.js';
import type { Page } from '../../core/pages.js';
import type { OrgConfig } from '../config.js';
import type { presentTicket } from '../present.js';
import { entryShown, sortTickets, type TicketFilters } from './filters.js';
import { countFacetEntries, facetColumns, loadFacetCounts, readFacetColumn, readFacetEntries, type FacetEntry } from './facet-reads.js';
import type { QueryCursor } from '../../db/projected.js';
import { loadColumnCounts } from './column-counts.js';
import { COLUMN_LIST_FIELDS, columnsShown, densePageFromColumns, pageOfTickets, shownCount } from './columns.js';
import { loadTickets } from '../access.js';
import type { DomainContext } from '../../db/context.js';

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

/** What a facet list reads: these facets' entries on each board, due dates within `range`. */
export interface FacetPlan {
  facets: string[];
  range?: { before?: string; after?: string; overdue: boolean };
  /**
   * Values whose tickets are moving to another value of the plan (a deleted type's, to its
   * replacement, lists/retype.ts): read to their end before the others are read, so a ticket
   * that moves meanwhile is found under one value or the other, never under neither.
   */
  leaving?: string[];
}

const present = (value: unknown): boolean => value !== undefined && value !== false && !(Array.isArray(value) && value.length === 0);

/**
 * The facet entries that serve a list, or undefined when it filters by anything else, or by
 * two facets at once (then the Queries of lists/list.ts serve it). One of: assignee (or
 * assignedToMe), types, labels (the live ones), customer, priorities, impact levels, due dates
 * (dueBefore, dueAfter and overdue, together or alone) or noDueDate.
 */
export function facetPlan(filters: TicketFilters & { page: number; limit: number }, callerId: string, config: OrgConfig): FacetPlan | undefined {
  const set = Object.entries(filters).filter(([field, value]) => present(value) && !COLUMN_LIST_FIELDS.has(field)).map(([field]) => field);
  const due = new Set(['dueBefore', 'dueAfter', 'overdue']);
  if (set.length === 0) return undefined;
  if (set.every((field) => due.has(field))) {
    return { facets: ['due'], range: { before: filters.dueBefore && dueKeyOf(filters.dueBefore), after: filters.dueAfter && dueKeyOf(filters.dueAfter), overdue: filters.overdue === true } };
  }
  if (set.length > 1) return undefined;
  switch (set[0]) {
    case 'assigneeId':
      return { facets: [`assignee:${filters.assigneeId}`] };
    case 'assignedToMe':
      return { facets: [`assignee:${callerId}`] };
    case 'typeIds': {
      const matching = [...config.typesMatching(filters.typeIds ?? [])];
      const leaving = matching.filter((typeId) => !config.type(typeId)).map((typeId) => `type:${typeId}`);
      return { facets: matching.map((typeId) => `type:${typeId}`), ...(leaving.length > 0 ? { leaving } : {}) };
    }
    case 'labelIds':
      // Ids of deleted labels may linger on tickets; they match nothing.
      return { facets: [...new Set(filters.labelIds)].filter((labelId) => config.label(labelId)).map((labelId) => `label:${labelId}`) };
    case 'customerId':
      return { facets: [`customer:${filters.customerId}`] };
    case 'priorities':
      return { facets: [...new Set(filters.priorities)].map((priority) => `priority:${priority}`) };
    case 'impactLevels':
      return { facets: [...new Set(filters.impactLevels)].map((level) => `impact:${level}`) };
    case 'noDueDate':
      return { facets: ['due:none'] };
    default:
      return undefined;
  }
}

/** Whether an entry is on the list: its status shown, archived only when asked for, its due date in range. */
function entryListed(entry: FacetEntry, filters: TicketFilters, plan: FacetPlan, config: OrgConfig, now: Date): boolean {
  if (!entryShown(entry, filters, config)) return false;
  const category = config.status(entry.statusId)?.category ?? 'ACTIVE';
  const range = plan.range;
  if (range) {
    const due = Date.parse(entry.rangeKey);
    if (range.before !== undefined && !(due < Date.parse(range.before))) return false;
    if (range.after !== undefined && !(due > Date.parse(range.after))) return false;
    if (range.overdue && (!(due < now.getTime()) || category === 'FINAL')) return false;
  }
  return true;
}

/** Entries a facet list reads before it knows whether the value is dense on the board. */
const FIRST_READ = 400;


/**
 * A list served by the facet index, over one board or many (`/issues`): each board's entries of
 * the plan's values (in parallel), those the list shows, in list order (status, position, id:
 * `sortTickets`), deduplicated (a ticket with two of the labels asked for has two entries); the
 * exact total is their number, and only the page's tickets are read (one BatchGetItem). The
 * cost follows the matching tickets' entries (a few dozen bytes each), never the boards' other
 * tickets. A value that most of one board has (more than FIRST_READ entries) is served by
 * `denseBoardPage` instead: a counted total and the page read from the columns.
 */
export async function listByFacets(ctx: DomainContext, boardIds: string[], filters: TicketFilters & { page: number; limit: number }, plan: FacetPlan, config: OrgConfig): Promise<Page<ReturnType<typeof presentTicket>>> {
  const orgId = ctx.org.orgId;
  const now = ctx.clock.now();
  const reads = boardIds.flatMap((boardId) => plan.facets.map((facet) => ({ boardId, facet })));
  // Values being left are read whole (only while a type's deletion moves its tickets).
  const firsts = await leavingFirst(plan, reads, (read) => read.facet, async (read, left) => ({
    ...read,
    ...(await readFacetEntries(orgId, read.boardId, read.facet, plan.range, now, left ? undefined : FIRST_READ)),
  }));
  // Values are disjoint on a ticket except labels: their counts would add up a ticket twice.
  const countable = plan.facets.length === 1 || !plan.facets[0]?.startsWith('label:');
  if (boardIds.length === 1 && countable && firsts.some((first) => first.next)) {
    // Values the FacetCount items count (kept for every ticket): the total is read there.
    const counted = plan.facets.every(isCountedFacet);
    const page = await denseBoardPage(orgId, boardIds[0]!, filters, plan, config, now, firsts, counted);
    if (page) return page;
  }
  const rests = await mapLimited(firsts, 8, async (first) => (first.next ? (await readFacetEntries(orgId, first.boardId, first.facet, plan.range, now, undefined, first.next)).entries : []));
  const unique = new Map<string, FacetEntry>();
  for (const entry of [...firsts.flatMap((first) => first.entries), ...rests.flat()]) {
    if (!unique.has(entry.ticketId) && entryListed(entry, filters, plan, config, now)) unique.set(entry.ticketId, entry);
  }
  return pageOfEntries(ctx, [...unique.values()], filters, config);
}

/**
 * A value most of one board has (a type every ticket has): reading all its entries would cost
 * what the board holds. The exact total is the sum of the value's FacetCount items over the
 * listed statuses when the value is `counted` (a few items a value), else the listed entries
 * already read plus a COUNT of the rest (DynamoDB sends back a number, but reads every entry);
 * the page is read from the board's columns in list order,
 * DynamoDB keeping only the tickets with the value, until the page is full: about (page end) ÷
 * (the value's share of the listed board) tickets. Answers undefined (read the entries) when
 * the board holds live tickets of a status the organization no longer has, or when the page
 * lies so deep that the column reads would cost more than the entries.
 */
async function denseBoardPage(
  orgId: string, boardId: string, filters: TicketFilters & { page: number; limit: number }, plan: FacetPlan, config: OrgConfig, now: Date,
  firsts: { facet: string; entries: FacetEntry[]; next: QueryCursor }[],
  counted: boolean,
): Promise<Page<ReturnType<typeof presentTicket>> | undefined> {
  const includeArchived = filters.includeArchived === true;
  const columns = facetColumns(columnsShown(config, filters), filters);
  // The values' FacetCount items hold the total (a few items a value); else DynamoDB counts the entries past the first read.
  const [counts, total] = counted
    ? await Promise.all([
        loadColumnCounts(orgId, boardId),
        leavingFirst(plan, plan.facets, (facet) => facet, (facet) => loadFacetCounts(orgId, boardId, facet)).then((values) =>
          columns.reduce((sum, status) => sum + values.reduce((inner, value) => inner + shownCount(value.get(status.statusId), includeArchived), 0), 0),
        ),
      ])
    : await Promise.all([
        loadColumnCounts(orgId, boardId),
        Promise.all(firsts.map((first) => (first.next ? countFacetEntries(orgId, boardId, first.facet, plan, columns.map((status) => status.statusId), includeArchived, now, first.next) : 0))).then(
          (rests) => firsts.flatMap((first) => first.entries).filter((entry) => entryListed(entry, filters, plan, config, now)).length + rests.reduce((sum, count) => sum + count, 0),
        ),
      ]);
  return densePageFromColumns(columns, counts, total, filters, config, now, (status, count, share) =>
    readFacetColumn(orgId, boardId, status, plan, includeArchived, now, count, share),
  );
}

/**
 * `read` of each item (a read of one of the plan's values), answers in the items' order: the
 * reads of values being left (`plan.leaving`) first, the others once those answered.
 */
async function leavingFirst<T, R>(plan: FacetPlan, items: T[], facetOf: (item: T) => string, read: (item: T, left: boolean) => Promise<R>): Promise<R[]> {
  const leaving = new Set(plan.leaving);
  const answers = new Map<T, R>();
  for (const left of [true, false]) {
    const wave = items.filter((item) => leaving.has(facetOf(item)) === left);
    const answered = await mapLimited(wave, 8, (item) => read(item, left));
    for (const [index, item] of wave.entries()) answers.set(item, answered[index]!);
  }
  return items.map((item) => answers.get(item)!);
}

/**
 * The page of a list whose every listed ticket is known by an index entry (status, position,
 * id): sorted into list order (`sortTickets`), the exact total is their number, and only the
 * page's tickets are read (one BatchGetItem).
 */
export async function pageOfEntries(ctx: DomainContext, entries: Pick<TicketFacetItem, 'ticketId' | 'statusId' | 'positionKey'>[], filters: { page: number; limit: number }, config: OrgConfig): Promise<Page<ReturnType<typeof presentTicket>>> {
  const listed = sortTickets(entries, config);
  const start = (filters.page - 1) * filters.limit;
  // A ticket deleted between the two reads is left out of its page.
  const tickets = await loadTickets(ctx, listed.slice(start, start + filters.limit).map((entry) => entry.ticketId));
  return pageOfTickets(tickets, listed.length, filters, config, ctx.clock.now());
}
