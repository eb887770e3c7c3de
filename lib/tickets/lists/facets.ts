import type { TicketFacetItem, } from '../../db/entities/index.js';
import { mapLimited } from '../../core/concurrency.js';
import type { Page } from '../../core/pages.js';
import type { OrgConfig } from '../config.js';
import type { presentTicket } from '../present.js';
import { entryShown, sortTickets, type TicketFilters } from './filters.js';
import { countFacetEntries, facetColumns, loadFacetCounts, readFacetColumn, readFacetEntries, type FacetEntry, type FacetPlan } from './facet-reads.js';
import { dueKeyOf, isCountedFacet } from '../record/facets.js';
import type { QueryCursor } from '../../db/projected.js';
import { loadColumnCounts } from './column-counts.js';
import { COLUMN_LIST_FIELDS, columnsShown, densePageFromColumns, pageOfTickets, shownCount } from './columns.js';
import { loadTickets } from '../access.js';
import type { DomainContext } from '../../db/context.js';

/**
 * Lists served by the facet index (its entries are written with each ticket, lib/tickets/record/facets.ts):
 * a list filtered by one facet reads the entries of the values asked for, never the board's other tickets.
 */


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
