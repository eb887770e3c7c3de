import { randomSecret } from '../../core/ids.js';
import type { Clock } from '../../core/clock.js';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { documentDb } from '../../db/client.js';
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
    // Done, or left to the lease's holder; otherwise a write after the version indexed is pending
    // (its own job may have found the lease held): index again.
    if (indexed === undefined || (await clearPending(orgId, ticketId, indexed))) return;
  }
}

/** Runs in a row for one ticket while writes keep coming (beyond that, the sweeper continues). */
const MAX_RUNS = 10;

/**
 * One run: the ticket read, then its lease taken with the entries this run may add recorded
 * (write-ahead, in the same write), the entries brought to the ticket as read. Answers the
 * version the index now reflects, or undefined when another run holds the lease.
 */
async function indexOnce(orgId: string, ticketId: string, clock: Clock): Promise<number | undefined> {
  const token = randomSecret(12);
  const ticket = (await db().entities.ticket.get({ ticketId }).go({ consistent: true })).data as TicketItem | null;
  const want = wantedEntries(ticket);
  const previous = await acquireLease(orgId, ticketId, token, [...want.keys()], clock);
  if (previous === BUSY) return undefined;
  try {
    if (previous?.dirty && previous.version > (ticket?.version ?? 0)) {
      // Read before a run that has since indexed a later version (and left its record dirty after): never index backwards.
      const current = (await db().entities.ticket.get({ ticketId }).go({ consistent: true })).data as TicketItem | null;
      const again = wantedEntries(current);
      await db().entities.ticketSearchDoc.patch({ ticketId }).append({ extra: [...again.keys()] }).where((attr, op) => op.eq(attr.leaseToken, token)).go({ response: 'none' });
      return await indexLeased(ticketId, token, current?.version ?? 0, again, previous);
    }
    return await indexLeased(ticketId, token, ticket?.version ?? 0, want, previous);
  } catch (error) {
    // Failed midway (the job is retried): the lease goes, `dirty` stays, so the retry rewrites every entry.
    await db().entities.ticketSearchDoc.patch({ ticketId }).remove(['leaseToken', 'leaseUntil']).where((attr, op) => op.eq(attr.leaseToken, token)).go({ response: 'none' }).catch(() => undefined);
    throw error;
  }
}

/** The run's work under its lease: the entries written by difference from what the record says, then what was indexed stored. */
async function indexLeased(ticketId: string, token: string, version: number, want: Map<string, TicketTermItem>, previous: TicketSearchDocItem | undefined): Promise<number> {
  const doc = db().entities.ticketSearchDoc;
  // The index already reflects this version or a later one (this run read the ticket before another run finished).
  if (previous && !previous.dirty && previous.version >= version) {
    await doc.patch({ ticketId }).remove(['leaseToken', 'leaseUntil']).set({ dirty: false, extra: [] }).where((attr, op) => op.eq(attr.leaseToken, token)).go({ response: 'none' });
    return previous.version;
  }
  {
    // `previous.extra` is the record's list before this run's lease: what earlier runs may have written.
    const confirmed = new Set(previous?.boardId ? (previous.terms ?? []).map((term) => entryKey(previous.boardId!, term)) : []);
    const have = new Set([...confirmed, ...(previous?.extra ?? [])]);
    const first = [...want.values()][0];
    const sameCarry = previous !== undefined && !previous.dirty && first !== undefined
      && previous.statusId === first.statusId && previous.positionKey === first.positionKey && previous.isArchived === first.isArchived;
    const puts = [...want].filter(([key]) => !(sameCarry && confirmed.has(key))).map(([, entry]) => entry);
    const deletes = [...have].filter((key) => !want.has(key)).map(parseKey);
    const orgId = first?.orgId ?? previous?.orgId ?? '';
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
  return version;
}

/** The lease lasts longer than any run (the events function's timeout is far shorter). */
const LEASE_SECONDS = 120;
/** How long a run waits for a lease another run holds before it leaves the ticket to that run. */
const LEASE_WAIT_MS = 2_000;

const BUSY = Symbol('busy');

/**
 * Takes the lease of the ticket's search record (created when missing), marks it dirty and
 * appends `keys` to the entries it may hold (`extra`), in one write; answers the record as it
 * was before, or BUSY when another run holds a lease that has not run out after LEASE_WAIT_MS.
 */
async function acquireLease(orgId: string, ticketId: string, token: string, keys: string[], clock: Clock): Promise<TicketSearchDocItem | undefined | typeof BUSY> {
  const { Key, TableName } = db().entities.ticketSearchDoc.get({ ticketId }).params() as { Key: Record<string, unknown>; TableName: string };
  const deadline = Date.now() + LEASE_WAIT_MS;
  for (let attempt = 0; ; attempt += 1) {
    const now = clock.now();
    try {
      // Raw, for `list_append` onto a list that may not exist yet; the identity attributes are ElectroDB's.
      const { Attributes } = await documentDb().send(
        new UpdateCommand({
          TableName,
          Key,
          UpdateExpression: 'SET #e = :e, #v = :v, #ticketId = :ticketId, #orgId = :orgId, #token = :token, #until = :until, #dirty = :true, #extra = list_append(if_not_exists(#extra, :empty), :keys)',
          ConditionExpression: 'attribute_not_exists(#until) OR #until < :now',
          ExpressionAttributeNames: { '#e': '__edb_e__', '#v': '__edb_v__', '#ticketId': 'ticketId', '#orgId': 'orgId', '#token': 'leaseToken', '#until': 'leaseUntil', '#dirty': 'dirty', '#extra': 'extra' },
          ExpressionAttributeValues: {
            ':e': 'ticketSearch', ':v': '1', ':ticketId': ticketId, ':orgId': orgId, ':token': token,
            ':until': new Date(now.getTime() + LEASE_SECONDS * 1000).toISOString(), ':now': now.toISOString(), ':true': true, ':empty': [], ':keys': keys,
          },
          ReturnValues: 'ALL_OLD',
        }),
      );
      return Attributes && Attributes.version !== undefined ? (Attributes as TicketSearchDocItem) : undefined;
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      if (Date.now() > deadline) return BUSY;
      await new Promise((resolve) => setTimeout(resolve, Math.min(50 * 2 ** attempt, 500)));
    }
  }
}

const entryKey = (boardId: string, term: string): string => `${boardId}\u0000${term}`;

/** A ticket's entries by their key (board, term). */
const wantedEntries = (ticket: TicketItem | null): Map<string, TicketTermItem> => new Map(termEntriesOf(ticket).map((entry) => [entryKey(entry.boardId, entry.term), entry]));

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

/** Deletes the pending marker unless a write after `version` is pending; answers false when one is. */
async function clearPending(orgId: string, ticketId: string, version: number): Promise<boolean> {
  try {
    await db()
      .entities.searchPending.delete({ orgId, ticketId })
      .where((attr, op) => `${op.notExists(attr.version)} OR ${op.lte(attr.version, version)}`)
      .go({ response: 'none' });
    return true;
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    return false;
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
