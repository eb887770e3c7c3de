import { randomSecret } from '../../core/ids.js';
import type { Clock } from '../../core/clock.js';
import { db } from '../../db/service.js';
import { isConditionFailure } from '../../db/transact.js';
import { positionKeyOf, type TicketItem, type TicketSearchDocItem, type TicketTermItem } from '../../db/entities/index.js';
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
 * no longer has. A run finding the lease held waits for it.
 */
export async function indexTicketSearch(orgId: string, ticketId: string, clock: Clock): Promise<void> {
  const token = randomSecret(12);
  const previous = await acquireLease(orgId, ticketId, token, clock);
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
  await clearPending(orgId, ticketId, Math.max(version, previous?.version ?? 0));
}

/** The lease lasts longer than any run (the events function's timeout is far shorter). */
const LEASE_SECONDS = 120;
/** How long a run waits for a lease another run holds before it gives up (its job is then retried). */
const LEASE_WAIT_MS = 15_000;

/**
 * Takes the lease of the ticket's search record (created when missing) and marks it dirty;
 * answers the record as it was before. Waits while another run holds a lease that has not run out.
 */
async function acquireLease(orgId: string, ticketId: string, token: string, clock: Clock): Promise<TicketSearchDocItem | undefined> {
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
      if (!isConditionFailure(error) || Date.now() > deadline) throw error;
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
