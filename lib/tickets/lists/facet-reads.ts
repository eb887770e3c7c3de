import { queryCount, queryProjected, type QueryCursor, type QueryParams } from '../../db/projected.js';
import { db } from '../../db/service.js';
import type { StatusItem, TicketItem } from '../../db/entities/index.js';
import type { TicketFilters } from './filters.js';
import { readStatusColumn } from './columns.js';

/**
 * Reads of the facet index, and the dense facet list of one board (most of the board has the value: a type every ticket has):
 * reading every entry for the page would cost what the board holds. Instead
 * - the exact total is counted by DynamoDB (`Select: COUNT` over the value's entries, the
 *   list's statuses, archived flag and due range as a filter): nothing is sent back but a number;
 * - the page is read from the board's columns in list order, DynamoDB keeping only the tickets
 *   with the value (a filter on the ticket's own field), until the page is full: about
 *   (page end) ÷ (share of the board with the value) tickets.
 */

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

const ENTRY_FIELDS = ['ticketId', 'statusId', 'positionKey', 'isArchived', 'rangeKey'] as const;

/** The entry fields a list reads (never the keys). */
export interface FacetEntry {
  ticketId: string;
  statusId: string;
  positionKey: string;
  isArchived: boolean;
  rangeKey: string;
}

/** The Query of one value's entries on one board, a due range bounding its key range (as ElectroDB builds it). */
function facetQuery(orgId: string, boardId: string, facet: string, range: FacetPlan['range'], now: Date): QueryParams {
  const query = db().entities.ticketFacet.query;
  const key = { orgId, boardId, facet };
  const before = dueBound({ facets: [facet], range }, now);
  const after = range?.after;
  const selected =
    before && after
      ? query.byFacet(key).between({ rangeKey: after }, { rangeKey: before })
      : before
        ? query.byFacet(key).lt({ rangeKey: before })
        : after
          ? query.byFacet(key).gt({ rangeKey: after })
          : query.byFacet(key);
  return selected.params() as QueryParams;
}

/**
 * One value's entries on one board (consistent Queries), from `start`, up to `limit` when given:
 * what was read and where it stopped.
 */
export async function readFacetEntries(orgId: string, boardId: string, facet: string, range: FacetPlan['range'], now: Date, limit?: number, start?: QueryCursor): Promise<{ entries: FacetEntry[]; next: QueryCursor }> {
  const { items, next } = await queryProjected<FacetEntry>(facetQuery(orgId, boardId, facet, range, now), ENTRY_FIELDS, limit, start);
  return { entries: items, next };
}

/**
 * One value's FacetCount items on one board (one consistent Query of its own small partition),
 * shards summed by status: what the counted path of a facet list totals.
 */
export async function loadFacetCounts(orgId: string, boardId: string, facet: string): Promise<Map<string, { total: number; archived: number }>> {
  const { data } = await db().entities.facetCount.query.byFacet({ facet, boardId, orgId }).go({ pages: 'all', consistent: true });
  const counts = new Map<string, { total: number; archived: number }>();
  for (const shard of data) {
    const count = counts.get(shard.statusId) ?? { total: 0, archived: 0 };
    count.total += shard.total;
    count.archived += shard.archived;
    counts.set(shard.statusId, count);
  }
  return counts;
}

/**
 * The number of one value's listed entries on one board from `start` (Select COUNT: DynamoDB
 * sends back a number, not the entries): in the given statuses, not archived unless
 * `includeArchived`, due dates in the plan's range.
 */
export async function countFacetEntries(orgId: string, boardId: string, facet: string, plan: FacetPlan, statusIds: string[], includeArchived: boolean, now: Date, start: QueryCursor): Promise<number> {
  if (statusIds.length === 0) return 0;
  const params = facetQuery(orgId, boardId, facet, plan.range, now);
  const names: Record<string, string> = { '#fcStatus': 'statusId' };
  const values: Record<string, unknown> = {};
  const filters = [`#fcStatus IN (${statusIds.map((statusId, index) => { values[`:fcStatus${index}`] = statusId; return `:fcStatus${index}`; }).join(', ')})`];
  if (!includeArchived) {
    names['#fcArchived'] = 'isArchived';
    values[':fcFalse'] = false;
    filters.push('#fcArchived = :fcFalse');
  }
  const before = dueBound({ facets: [facet], range: plan.range }, now);
  if (plan.range) names['#fcRange'] = 'rangeKey';
  if (before !== undefined) {
    values[':fcBefore'] = before;
    filters.push('#fcRange < :fcBefore');
  }
  if (plan.range?.after !== undefined) {
    values[':fcAfter'] = plan.range.after;
    filters.push('#fcRange > :fcAfter');
  }
  return queryCount(params, { expression: filters.join(' AND '), names, values }, start);
}

/**
 * The first `count` tickets of one column that have one of the plan's values, in index order
 * (DynamoDB filters by the ticket's own field, the same values the entries are keyed by;
 * ElectroDB's `count` reads on until it has them or the column ends). `expectedShare` sizes
 * each read: the share of the column expected to match.
 */
export async function readFacetColumn(orgId: string, boardId: string, status: StatusItem, plan: FacetPlan, includeArchived: boolean, now: Date, count: number, expectedShare: number): Promise<TicketItem[]> {
  const [kind] = plan.facets[0]!.split(':');
  const values = plan.facets.map((facet) => facet.slice(kind!.length + 1));
  return readStatusColumn(status, count, async (statusCategory) => {
    const { data } = await db()
      .entities.ticket.query.byBoard({ orgId, boardId, statusCategory, statusId: status.statusId })
      .where((attr, op) => {
        const parts = [op.eq(attr.isDeleted, false)];
        if (!includeArchived) parts.push(op.eq(attr.isArchived, false));
        const anyOf = (terms: string[]) => `(${terms.join(' OR ')})`;
        if (kind === 'assignee') parts.push(anyOf(values.map((value) => op.eq(attr.assigneeId, value))));
        else if (kind === 'type') parts.push(anyOf(values.map((value) => op.eq(attr.typeId, value))));
        else if (kind === 'label') parts.push(anyOf(values.map((value) => op.contains(attr.labelIds, value))));
        else if (kind === 'customer') parts.push(anyOf(values.map((value) => op.eq(attr.customerId, value))));
        else if (kind === 'priority') parts.push(anyOf(values.map((value) => op.eq(attr.priority, value as TicketItem['priority']))));
        else if (kind === 'impact') parts.push(anyOf(values.map((value) => op.eq(attr.impactLevel, value as NonNullable<TicketItem['impactLevel']>))));
        else if (plan.facets[0] === 'due:none') parts.push(op.notExists(attr.dueDate));
        else {
          parts.push(op.exists(attr.dueDate));
          const before = dueBound(plan, now);
          if (before !== undefined) parts.push(op.lt(attr.dueDate, before));
          if (plan.range?.after !== undefined) parts.push(op.gt(attr.dueDate, plan.range.after));
        }
        return parts.join(' AND ');
      })
      .go({ count, limit: Math.min(1_000, Math.ceil(count / Math.max(expectedShare, 0.01)) + 10) });
    return data.slice(0, count);
  });
}

/** The exclusive upper bound of a due range: `dueBefore`, or now when overdue, whichever is earlier. */
export function dueBound(plan: FacetPlan, now: Date): string | undefined {
  const range = plan.range;
  if (!range) return undefined;
  return [range.before, range.overdue ? now.toISOString() : undefined].filter((key): key is string => key !== undefined).sort()[0];
}

/** The statuses (list order) a facet list shows on a board: the list's columns, without FINAL ones when overdue. */
export function facetColumns(columns: StatusItem[], filters: TicketFilters): StatusItem[] {
  return filters.overdue ? columns.filter((status) => status.category !== 'FINAL') : columns;
}

