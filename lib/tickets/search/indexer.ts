import { randomSecret } from '../../core/ids.js';
import type { Clock } from '../../core/clock.js';
import { db } from '../../db/service.js';
import { isConditionFailure } from '../../db/transact.js';
import { positionKeyOf, SEARCH_PENDING_SHARDS, type TicketItem, type TicketSearchDocItem, type TicketTermItem } from '../../db/entities/index.js';
import type { DispatchedEvent } from '../../events/index.js';
import { searchTermsOf } from './text.js';

/**
 * The indexer of ticket search (the SEARCH_INDEX_JOB handler in the events function): brings
 * one ticket's term entries (lib/db/entities/ticket-search.ts) to the ticket as it is now,
 * then deletes its pending marker if no later write is pending. Any run indexes the current
 * ticket, so runs replayed, repeated or out of order all end in the same entries.
 *
 * One run at a time per ticket: a run holds the lease on the ticket's search record
 * (LEASE_SECONDS, longer than the function's timeout) and sets `dirty` while it writes. Before
 * writing it records every entry it may add (`extra`), so a run that dies midway leaves a record
 * that says which entries may exist: the next run rewrites them all and deletes what the ticket
 * no longer has. A run finding the lease held leaves the ticket to its holder and returns (it
 * never holds up the stream behind it): the holder, once done, indexes again while a later
 * write is pending; a holder that died leaves its marker, which the sweeper finds once the
 * lease has run out (`sweepStaleSearchIndex`).
 */
export async function indexTicketSearch(orgId: string, ticketId: string, clock: Clock): Promise<void> {
  for (let run = 0; run < MAX_RUNS; run += 1) {
    const indexed = await indexOnce(orgId, ticketId, clock);
    if (indexed === undefined) return;
    // A write after the version this run indexed is pending: its own job may have found the lease held.
    const marker = (await db().entities.searchPending.get({ orgId, ticketId }).go({ consistent: true })).data;
    if (!marker || marker.version <= indexed) return;
  }
}

/** Runs in a row for one ticket while writes keep coming (the next write's job continues). */
const MAX_RUNS = 3;

/** One run: the ticket's entries brought to the ticket as read; answers the version indexed, or undefined when another run holds the lease. */
async function indexOnce(orgId: string, ticketId: string, clock: Clock): Promise<number | undefined> {
  const token = randomSecret(12);
  const previous = await acquireLease(orgId, ticketId, token, clock);
  if (previous === BUSY) return undefined;
  try {
    return await indexLeased(orgId, ticketId, token, previous);
  } catch (error) {
    // Failed midway (the job is retried): the lease goes, `dirty` stays, so the retry rewrites every entry.
    await db().entities.ticketSearchDoc.patch({ ticketId }).remove(['leaseToken', 'leaseUntil']).where((attr, op) => op.eq(attr.leaseToken, token)).go({ response: 'none' }).catch(() => undefined);
    throw error;
  }
}

/** The run's work under its lease: read the ticket, write the entries by difference, store what was indexed. */
async function indexLeased(orgId: string, ticketId: string, token: string, previous: TicketSearchDocItem | undefined): Promise<number> {
  const ticket = (await db().entities.ticket.get({ ticketId }).go({ consistent: true })).data as TicketItem | null;
  const version = ticket?.version ?? 0;
  const doc = db().entities.ticketSearchDoc;
  if (previous && !previous.dirty && previous.version >= version) {
    await doc.patch({ ticketId }).remove(['leaseToken', 'leaseUntil']).set({ dirty: false }).where((attr, op) => op.eq(attr.leaseToken, token)).go({ response: 'none' });
  } else {
    const want = new Map(termEntriesOf(ticket).map((entry) => [entryKey(entry.boardId, entry.term), entry]));
    const confirmed = new Set(previous?.boardId ? (previous.terms ?? []).map((term) => entryKey(previous.boardId!, term)) : []);
    const have = new Set([...confirmed, ...(previous?.extra ?? [])]);
    const first = [...want.values()][0];
    const sameCarry = previous !== undefined && !previous.dirty && first !== undefined
      && previous.statusId === first.statusId && previous.positionKey === first.positionKey && previous.isArchived === first.isArchived;
    const puts = [...want].filter(([key]) => !(sameCarry && confirmed.has(key))).map(([, entry]) => entry);
    const deletes = [...have].filter((key) => !want.has(key)).map(parseKey);
    const added = puts.map((entry) => entryKey(entry.boardId, entry.term)).filter((key) => !have.has(key));
    // Write-ahead: the entries this run may add, before it adds them.
    if (added.length > 0) {
      await doc.patch({ ticketId }).set({ extra: [...(previous?.extra ?? []), ...added] }).where((attr, op) => op.eq(attr.leaseToken, token)).go({ response: 'none' });
    }
    await writeEntries(puts, deletes.map(({ boardId, term }) => ({ orgId, boardId, term, ticketId })));
    await doc
      .patch({ ticketId })
      .set({
        version,
        terms: first ? [...want.values()].map((entry) => entry.term) : [],
        ...(first ? { boardId: first.boardId, statusId: first.statusId, positionKey: first.positionKey, isArchived: first.isArchived } : {}),
        extra: [],
        dirty: false,
      })
      .remove(['leaseToken', 'leaseUntil', ...(first ? [] : (['boardId', 'statusId', 'positionKey', 'isArchived'] as const))])
      .where((attr, op) => op.eq(attr.leaseToken, token))
      .go({ response: 'none' });
  }
  const indexed = Math.max(version, previous?.version ?? 0);
  await clearPending(orgId, ticketId, indexed);
  return indexed;
}

/** The lease lasts longer than any run (the events function's timeout is far shorter). */
const LEASE_SECONDS = 120;
/** How long a run waits for a lease another run holds before it leaves the ticket to that run. */
const LEASE_WAIT_MS = 2_000;

const BUSY = Symbol('busy');

/**
 * Takes the lease of the ticket's search record (created when missing) and marks it dirty;
 * answers the record as it was before, or BUSY when another run holds a lease that has not run
 * out after LEASE_WAIT_MS.
 */
async function acquireLease(orgId: string, ticketId: string, token: string, clock: Clock): Promise<TicketSearchDocItem | undefined | typeof BUSY> {
  const deadline = Date.now() + LEASE_WAIT_MS;
  for (let attempt = 0; ; attempt += 1) {
    const now = clock.now();
    try {
      const { data } = await db()
        .entities.ticketSearchDoc.update({ ticketId })
        .set({ orgId, leaseToken: token, leaseUntil: new Date(now.getTime() + LEASE_SECONDS * 1000).toISOString(), dirty: true })
        .where((attr, op) => `${op.notExists(attr.leaseUntil)} OR ${op.lt(attr.leaseUntil, now.toISOString())}`)
        .go({ response: 'all_old' });
      const before = data as Partial<TicketSearchDocItem> | null;
      return before && before.version !== undefined ? (before as TicketSearchDocItem) : undefined;
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      if (Date.now() > deadline) return BUSY;
      await new Promise((resolve) => setTimeout(resolve, Math.min(50 * 2 ** attempt, 500)));
    }
  }
}

const entryKey = (boardId: string, term: string): string => `${boardId}\u0000${term}`;

function parseKey(key: string): { boardId: string; term: string } {
  const split = key.indexOf('\u0000');
  return { boardId: key.slice(0, split), term: key.slice(split + 1) };
}

/** A live ticket's term entries; none for a deleted (or missing) one. */
export function termEntriesOf(ticket: TicketItem | null | undefined): TicketTermItem[] {
  if (!ticket || ticket.isDeleted) return [];
  const carry = { orgId: ticket.orgId, boardId: ticket.boardId, ticketId: ticket.ticketId, statusId: ticket.statusId, positionKey: positionKeyOf(ticket.position), isArchived: ticket.isArchived === true };
  return searchTermsOf(ticket).map((term) => ({ ...carry, term }));
}

/** BatchWriteItem puts and deletes (25 per request, four requests at a time); anything left unprocessed fails the run. */
async function writeEntries(puts: TicketTermItem[], deletes: Pick<TicketTermItem, 'orgId' | 'boardId' | 'term' | 'ticketId'>[]): Promise<void> {
  const terms = db().entities.ticketTerm;
  const [put, deleted] = await Promise.all([
    puts.length > 0 ? terms.put(puts).go({ concurrency: 4 }) : { unprocessed: [] },
    deletes.length > 0 ? terms.delete(deletes).go({ concurrency: 4 }) : { unprocessed: [] },
  ]);
  if (put.unprocessed.length + deleted.unprocessed.length > 0) throw new Error('Search entries left unprocessed; the job is retried');
}

/** Deletes the pending marker unless a write after `version` is pending (its own run clears it). */
async function clearPending(orgId: string, ticketId: string, version: number): Promise<void> {
  try {
    await db()
      .entities.searchPending.delete({ orgId, ticketId })
      .where((attr, op) => op.lte(attr.version, version))
      .go({ response: 'none' });
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
}

/** The events function's handler of SEARCH_INDEX_JOB. */
export async function runSearchIndexJob(event: DispatchedEvent, clock: Clock): Promise<number> {
  await indexTicketSearch(event.orgId, String(event.data.ticketId), clock);
  return 0;
}

/** Markers handled per sweep and shard. */
const SWEEP_BATCH = 100;

/**
 * The sweeper's task: markers older than the lease (no run cleared them: the run died holding
 * the lease, or its job was left to it) are indexed again, oldest first, from the byAge
 * partitions (in parallel). A scope limits it to one organization (the tests').
 */
export async function sweepStaleSearchIndex(clock: Clock, scope: { orgId?: string } = {}): Promise<number> {
  const before = new Date(clock.now().getTime() - LEASE_SECONDS * 1000).toISOString();
  const shards = Array.from({ length: SEARCH_PENDING_SHARDS }, (_, shard) => `search#${shard}`);
  const orgId = scope.orgId;
  const stale = await Promise.all(
    shards.map(async (pendingShard) => {
      const older = db().entities.searchPending.query.byAge({ pendingShard }).lt({ at: before });
      return (orgId === undefined ? await older.go({ limit: SWEEP_BATCH }) : await older.where((attr, op) => op.eq(attr.orgId, orgId)).go({ pages: 'all' })).data;
    }),
  );
  const markers = stale.flat();
  for (const marker of markers) await indexTicketSearch(marker.orgId, marker.ticketId, clock);
  return markers.length;
}
