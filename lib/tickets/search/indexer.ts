import type { Clock } from '../../core/clock.js';
import { db } from '../../db/service.js';
import { identityOf, indexPendingSubject, indexSubject, itemTarget, sweepStaleMarkers, type IndexSubject } from '../../search/index.js';
import { positionKeyOf, SEARCH_PENDING_SHARDS, type TicketItem, type TicketSearchDocItem, type TicketTermItem } from '../../db/entities/index.js';
import type { JobRun } from '../../events/index.js';
import { searchTermsOf } from './text.js';
import { writeCountedEntries, type EntryKey, type StoredEntry } from './counts.js';

/**
 * The indexer of ticket search (the SEARCH_INDEX_JOB handler in the events function): one
 * ticket's term entries (lib/db/entities/ticket-search.ts) brought to the ticket as it is now
 * by the engine of lib/search (one run at a time under the lease of the ticket's search record,
 * write-ahead of what a run may add, never backwards), then its pending marker cleared.
 */
export async function indexTicketSearch(orgId: string, ticketId: string, clock: Clock): Promise<void> {
  await indexSubject(ticketSubject(orgId, ticketId), clock);
}

function ticketSubject(orgId: string, ticketId: string): IndexSubject<TicketTermItem, TicketSearchDocItem> {
  return {
    record: { ...itemTarget(db().entities.ticketSearchDoc.get({ ticketId }).params()), create: { ...identityOf(db().entities.ticketSearchDoc), ticketId, orgId } },
    read: async () => {
      const ticket = (await db().entities.ticket.get({ ticketId }).go({ consistent: true })).data as TicketItem | null;
      return { version: ticket?.version ?? 0, want: wantedEntries(ticket) };
    },
    listed: (record) => (record.boardId ? (record.terms ?? []).map((term) => entryKey(record.boardId!, term)) : []),
    // Every entry carries the same status, position and archived flag (the record's), and its
    // `shared` follows from the record's terms.
    holds: (record) => {
      const shared = sharedByTerm(record.terms ?? []);
      return (_key, entry) =>
        record.statusId === entry.statusId && record.positionKey === entry.positionKey && record.isArchived === entry.isArchived && shared.get(entry.term) === entry.shared;
    },
    kept: (want) => {
      const entries = [...want.values()];
      if (entries.length === 0) return { set: { terms: [] }, remove: ['boardId', 'statusId', 'positionKey', 'isArchived'] };
      return { set: recordOfEntries(entries), remove: [] };
    },
    // Counted writes (lib/tickets/search/counts.ts): how each entry stands is known from a record
    // whose run finished and whose entries are counted, else read.
    write: (puts, deletes, before) =>
      writeCountedEntries(puts, deletes.map(parseKey).map(({ boardId, term }) => ({ orgId, boardId, term, ticketId })), standingFrom(before), writeEntries),
    marker: itemTarget(db().entities.searchPending.get({ orgId, ticketId }).params()),
  };
}

const entryKey = (boardId: string, term: string): string => `${boardId}\u0000${term}`;

/**
 * How an entry stands, when the last run finished: with no record (no run ever began), there is
 * none; from the record it left, those it lists carry its status and archived flag, `shared`
 * from its terms, and are counted, and any other is absent. Otherwise (a run died midway, or it
 * left no entries) every entry is read.
 */
function standingFrom({ settled: finished, record }: { settled: boolean; record?: TicketSearchDocItem }): (key: EntryKey) => StoredEntry | 'unknown' {
  if (finished && !record) return () => undefined;
  const settled = finished ? record : undefined;
  if (!settled?.boardId) return () => 'unknown';
  const shared = sharedByTerm(settled.terms ?? []);
  const { boardId, statusId, isArchived } = settled;
  return (key) => {
    const count = key.boardId === boardId ? shared.get(key.term) : undefined;
    return count === undefined ? undefined : { shared: count, statusId: statusId!, isArchived: isArchived === true, counted: true };
  };
}

/** A ticket's entries by their key (board, term). */
const wantedEntries = (ticket: TicketItem | null): Map<string, TicketTermItem> => new Map(termEntriesOf(ticket).map((entry) => [entryKey(entry.boardId, entry.term), entry]));

function parseKey(key: string): { boardId: string; term: string } {
  const split = key.indexOf('\u0000');
  return { boardId: key.slice(0, split), term: key.slice(split + 1) };
}

/** A live ticket's term entries, in sorted order with what each shares with the one before; none for a deleted (or missing) one. */
export function termEntriesOf(ticket: TicketItem | null | undefined): TicketTermItem[] {
  if (!ticket || ticket.isDeleted) return [];
  const carry = { orgId: ticket.orgId, boardId: ticket.boardId, ticketId: ticket.ticketId, statusId: ticket.statusId, positionKey: positionKeyOf(ticket.position), isArchived: ticket.isArchived === true };
  const shared = sharedByTerm(searchTermsOf(ticket));
  return [...shared].map(([term, count]) => ({ ...carry, term, shared: count }));
}

/** The characters each of a ticket's terms shares with the one before it in sorted order (0 for the first), in that order. */
function sharedByTerm(terms: readonly string[]): Map<string, number> {
  const sorted = [...new Set(terms)].sort();
  const shared = new Map<string, number>();
  sorted.forEach((term, index) => {
    const before = index > 0 ? sorted[index - 1]! : '';
    let length = 0;
    while (length < term.length && length < before.length && term[length] === before[length]) length += 1;
    shared.set(term, length);
  });
  return shared;
}

/** BatchWriteItem puts and deletes (25 per request, four requests at a time) of entries whose counts do not move; anything left unprocessed fails the run. */
async function writeEntries(puts: TicketTermItem[], deletes: EntryKey[]): Promise<void> {
  const terms = db().entities.ticketTerm;
  const [put, deleted] = await Promise.all([
    puts.length > 0 ? terms.put(puts).go({ concurrency: 4 }) : { unprocessed: [] },
    deletes.length > 0 ? terms.delete(deletes).go({ concurrency: 4 }) : { unprocessed: [] },
  ]);
  if (put.unprocessed.length + deleted.unprocessed.length > 0) throw new Error('Search entries left unprocessed; the job is retried');
}

/**
 * What a ticket's search record says of its entries (at least one) once they are written: their
 * terms and the board, status, position and archived flag they all carry, `shared` and the counts
 * kept. A run of the indexer leaves it, and so does a create that indexes its ticket itself
 * (./pending.ts).
 */
export function recordOfEntries(entries: readonly TicketTermItem[]) {
  const [first] = entries as [TicketTermItem, ...TicketTermItem[]];
  return {
    terms: entries.map((entry) => entry.term),
    boardId: first.boardId,
    statusId: first.statusId,
    positionKey: first.positionKey,
    isArchived: first.isArchived,
  };
}

/** The handler of SEARCH_INDEX_JOB (lib/tickets/jobs.ts). */
export async function runSearchIndexJob(event: JobRun<{ ticketId: string }>, clock: Clock): Promise<number> {
  // Only while its marker stands: a job replayed after a restart, or covered by a later write's run, writes nothing.
  await indexPendingSubject(ticketSubject(event.orgId, event.data.ticketId), clock);
  return 0;
}

/** Markers handled per sweep and shard. */
const SWEEP_BATCH = 100;

/**
 * The sweeper's task: markers no run cleared (`sweepStaleMarkers`), from the byAge partitions.
 * A scope limits it to one organization (the tests').
 */
export async function sweepStaleSearchIndex(clock: Clock, scope: { orgId?: string } = {}): Promise<number> {
  const shards = Array.from({ length: SEARCH_PENDING_SHARDS }, (_, shard) => `search#${shard}`);
  const orgId = scope.orgId;
  const older = async (before: string) => {
    const stale = await Promise.all(
      shards.map(async (pendingShard) => {
        const query = db().entities.searchPending.query.byAge({ pendingShard }).lt({ at: before });
        return (orgId === undefined ? await query.go({ limit: SWEEP_BATCH }) : await query.where((attr, op) => op.eq(attr.orgId, orgId)).go({ pages: 'all' })).data;
      }),
    );
    return stale.flat();
  };
  return sweepStaleMarkers(clock, older, (marker) => indexTicketSearch(marker.orgId, marker.ticketId, clock));
}
