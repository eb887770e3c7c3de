/**
 * Tickets for the benchmarks, written straight into the table in batches, shaped like
 * `createTicket` writes them (with the board's ColumnCount items, the tickets' facet entries
 * and their FacetCount items as the write path keeps them, and their search entries and term counts as the events function indexes them).
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { newId } from '../../lib/core/ids.js';
import { forEachAtMost } from '../../lib/core/concurrency.js';
import { isQueued, positionKeyOf, termCountName, type TicketItem } from '../../lib/db/entities/index.js';
import { documentDb } from '../../lib/db/client.js';
import { db } from '../../lib/db/service.js';
import { facetsOf, isCountedFacet } from '../../lib/tickets/record/facets.js';
import { countUpdate, searchTermsOf, termEntriesOf } from '../../lib/tickets/search/index.js';

const DESCRIPTION = 'Steps to reproduce: open the board, filter by status, scroll to the end of the column and check the totals. '.repeat(2);

export interface SeedBoard {
  orgId: string;
  boardId: string;
  prefix: string;
}

export interface SeedVocabulary {
  activeStatusIds: string[];
  typeId: string;
  assignee: { id: string; name: string };
  createdById: string;
  /** When given: every 7th ticket carries this label. */
  labelId?: string;
  /** When given: every 11th ticket is for this customer. */
  customerId?: string;
}

/** A ticket as `createTicket` writes it (lib/tickets/create.ts), with varied ACTIVE statuses. */
function ticketFactory(board: SeedBoard, vocabulary: SeedVocabulary, start: Date, assignEvery: number) {
  return (number: number): TicketItem => {
    const createdAt = new Date(start.getTime() + number * 1000).toISOString();
    const assigned = number % assignEvery === 0;
    return {
      ticketId: newId('tkt'),
      orgId: board.orgId,
      boardId: board.boardId,
      number,
      displayId: `${board.prefix}-${number}`,
      title: `Ticket ${number}: ${['fix', 'build', 'review', 'document'][number % 4]} the ${['login', 'export', 'search', 'billing', 'import'][number % 5]} flow`,
      description: DESCRIPTION,
      statusId: vocabulary.activeStatusIds[number % vocabulary.activeStatusIds.length]!,
      statusCategory: 'ACTIVE',
      priority: (['low', 'medium', 'high', 'critical'] as const)[number % 4]!,
      typeId: vocabulary.typeId,
      labelIds: vocabulary.labelId && number % 7 === 0 ? [vocabulary.labelId] : [],
      ...(vocabulary.customerId && number % 11 === 0 ? { customerId: vocabulary.customerId } : {}),
      ...(assigned ? { assigneeId: vocabulary.assignee.id, assigneeName: vocabulary.assignee.name } : {}),
      ...(number % 3 === 0 ? { dueDate: new Date(start.getTime() + (number - 2_000) * 86_400_000).toISOString() } : {}),
      isArchived: false,
      isDeleted: false,
      position: start.getTime() + number,
      needsReassignment: false,
      commentCount: 0,
      createdById: vocabulary.createdById,
      createdAt,
      updatedAt: createdAt,
      version: 1,
    };
  };
}

/**
 * Writes tickets number `from` to `from + count - 1` (and their display-id keys) in
 * BatchWriteItem batches, then adds them to the board's ColumnCount items as `saveTicket`
 * would have; sets the board counter. Called again with the next `from`, it grows the board.
 * Every 5th ticket is assigned to the vocabulary's assignee (`assignEvery: 1`: every ticket).
 */
export async function seedBoard(board: SeedBoard, vocabulary: SeedVocabulary, count: number, from = 1, options: { searchIndex?: boolean; assignEvery?: number } = {}): Promise<void> {
  const build = ticketFactory(board, vocabulary, new Date('2025-01-01T00:00:00.000Z'), options.assignEvery ?? 5);
  const CHUNK = 1_000;
  const last = from + count - 1;
  const perStatus = new Map<string, { total: number; queued: number }>();
  const perValue = new Map<string, { facet: string; statusId: string; total: number }>();
  const perTerm = new Map<string, Map<string, number>>();
  for (let first = from; first <= last; first += CHUNK) {
    const tickets = Array.from({ length: Math.min(CHUNK, last - first + 1) }, (_, index): TicketItem => build(first + index));
    for (const ticket of tickets) {
      const count = perStatus.get(ticket.statusId) ?? { total: 0, queued: 0 };
      count.total += 1;
      if (isQueued(ticket)) count.queued += 1;
      perStatus.set(ticket.statusId, count);
      for (const entry of facetsOf(ticket).filter((facetEntry) => isCountedFacet(facetEntry.facet))) {
        const key = `${entry.facet}\u0000${entry.statusId}`;
        const value = perValue.get(key) ?? { facet: entry.facet, statusId: entry.statusId, total: 0 };
        value.total += 1;
        perValue.set(key, value);
      }
    }
    const keys = tickets.map((ticket) => ({ orgId: ticket.orgId, displayId: ticket.displayId, ticketId: ticket.ticketId }));
    // The search index as the events function leaves it: each ticket's term entries and its record.
    const searchDocs = tickets.map((ticket) => ({
      ticketId: ticket.ticketId, orgId: ticket.orgId, version: ticket.version, boardId: ticket.boardId, terms: searchTermsOf(ticket),
      statusId: ticket.statusId, positionKey: positionKeyOf(ticket.position), isArchived: false, extra: [], dirty: false,
    }));
    const entries = options.searchIndex === false ? [] : tickets.flatMap((ticket) => termEntriesOf(ticket)).map((entry) => ({ ...entry, counted: true }));
    for (const entry of entries) {
      const name = termCountName(entry.shared!, entry.statusId, entry.isArchived === true);
      const counts = perTerm.get(entry.term) ?? new Map<string, number>();
      counts.set(name, (counts.get(name) ?? 0) + 1);
      perTerm.set(entry.term, counts);
    }
    const results = await Promise.all([
      db().entities.ticket.put(tickets).go({ concurrency: 4 }),
      db().entities.ticketKey.put(keys).go({ concurrency: 2 }),
      db().entities.ticketFacet.put(tickets.flatMap((ticket) => facetsOf(ticket))).go({ concurrency: 4 }),
      ...(options.searchIndex === false
        ? []
        : [db().entities.ticketTerm.put(entries).go({ concurrency: 4 }), db().entities.ticketSearchDoc.put(searchDocs).go({ concurrency: 2 })]),
    ]);
    const unprocessed = results.reduce((sum, result) => sum + result.unprocessed.length, 0);
    if (unprocessed) throw new Error(`unprocessed batch items: ${unprocessed}`);
  }
  for (const [statusId, { total, queued }] of perStatus) {
    await db().entities.columnCount.update({ orgId: board.orgId, boardId: board.boardId, statusId, shard: '0' }).add({ total, archived: 0, queued }).go();
  }
  for (const { facet, statusId, total } of perValue.values()) {
    await db().entities.facetCount.update({ orgId: board.orgId, boardId: board.boardId, facet, statusId, shard: '0' }).add({ total, archived: 0 }).go();
  }
  // The term counts as the search indexer's counted writes leave them (added to, so a board can grow).
  await forEachAtMost([...perTerm], 8, async ([term, counts]) => {
    await documentDb().send(new UpdateCommand(countUpdate({ orgId: board.orgId, boardId: board.boardId, term }, [...counts])));
  });
  await db().entities.board.patch({ orgId: board.orgId, boardId: board.boardId }).set({ ticketCounter: last }).go();
}
