import { positionKeyOf, termCountName, type TicketItem } from '../../db/entities/index.js';
import { db } from '../../db/service.js';
import type { TransactionEntities, TransactionItem } from '../../db/transact.js';
import { eventPuts, type EventInput, type EventRecord, jobEvent, jobKind } from '../../events/index.js';
import { recordOfEntries, termEntriesOf } from './indexer.js';
import { countUpdate } from './counts.js';

/** The job that indexes one ticket's search entries. */
export const SEARCH_INDEX_JOB = jobKind('tickets.search-index', (z) => z.object({ ticketId: z.string() }));

/** Whether a write changes what the ticket's search entries hold: its words, board, status, position, archived or deleted state. */
export function changesSearchEntries(before: TicketItem | undefined, after: TicketItem): boolean {
  if (!before) return true;
  return (
    before.title !== after.title ||
    before.description !== after.description ||
    before.displayId !== after.displayId ||
    before.boardId !== after.boardId ||
    before.statusId !== after.statusId ||
    positionKeyOf(before.position) !== positionKeyOf(after.position) ||
    before.isArchived !== after.isArchived ||
    before.isDeleted !== after.isDeleted
  );
}

/** The job that brings the ticket's entries up to date (its own outbox partition, apart from the ticket's webhook events). */
export function searchIndexJobFor(before: TicketItem | undefined, after: TicketItem): EventInput | undefined {
  if (!changesSearchEntries(before, after)) return undefined;
  return jobEvent(SEARCH_INDEX_JOB, { subjectId: `search:${after.ticketId}`, data: { ticketId: after.ticketId } });
}

/**
 * The ids of the organization's tickets whose search entries may not reflect them yet (their
 * pending markers: one consistent Query), at most `atMost`: a caller that only needs to know
 * whether more than some number are pending reads one more than that, never a backlog of thousands.
 */
export async function pendingTicketIds(orgId: string, atMost: number): Promise<string[]> {
  const { data } = await db().entities.searchPending.query.byOrganization({ orgId }).go({ count: atMost, consistent: true, attributes: ['ticketId'] });
  return data.map(({ ticketId }) => ticketId);
}

/**
 * The search items of a ticket write, in the write's own transaction, beside its other items:
 * - a new ticket whose entries fit beside them (`room` items left, one kept for an idempotency
 *   mark) is indexed right there: its search record (settled, at the ticket's version, as a run
 *   of the indexer leaves it), each entry (counted) and each term count's move. A board written
 *   through the API is then searchable from its entries at once, with no backlog for the events
 *   function to work through and no pending marker sending searches to the board itself;
 * - any other write that changes what the entries hold: the pending marker (at `at`) and the
 *   indexing job `job` (from `searchIndexJobFor`), which the events function runs (`pending`:
 *   a create left so is indexed by its own request right after it commits, `saveTicket`).
 */
export function searchItems(e: TransactionEntities, before: TicketItem | undefined, after: TicketItem, at: string, job: EventRecord | undefined, room: number): { items: TransactionItem[]; pending: boolean } {
  if (!job) return { items: [], pending: false };
  const indexed = before ? undefined : indexedAtCreate(e, after, room - 1);
  if (indexed) return { items: indexed, pending: false };
  return { items: [e.searchPending.put({ orgId: after.orgId, ticketId: after.ticketId, version: after.version, at }).commit(), ...eventPuts(e, [job])], pending: true };
}

/** A new ticket's record, entries and count moves, when they fit in `room` items; undefined when not. */
function indexedAtCreate(e: TransactionEntities, ticket: TicketItem, room: number): TransactionItem[] | undefined {
  const entries = termEntriesOf(ticket);
  if (1 + 2 * entries.length > room) return undefined;
  const { orgId, ticketId, version } = ticket;
  const record = e.ticketSearchDoc.create({ ticketId, orgId, version, ...recordOfEntries(entries), extra: [], dirty: false }).commit();
  return [
    record,
    ...entries.flatMap((entry) => [
      e.ticketTerm.create({ ...entry, counted: true }).commit(),
      { Update: countUpdate(entry, [[termCountName(entry.shared ?? 0, entry.statusId, entry.isArchived === true), 1]]) },
    ]),
  ];
}
