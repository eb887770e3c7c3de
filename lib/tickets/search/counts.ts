import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { documentDb } from '../../db/client.js';
import { db } from '../../db/service.js';
import { queryProjected, type QueryParams } from '../../db/projected.js';
import { identityOf, itemTarget } from '../../search/index.js';
import { MAX_TRANSACTION_ITEMS } from '../../db/transact.js';
import { parseTermCountName, termCountName, type TicketTermItem } from '../../db/entities/index.js';
import { forEachAtMost } from '../../core/concurrency.js';

/**
 * The term counts of ticket search (TicketTermCount, lib/db/entities/ticket-search.ts): how many
 * of a board's entries of each term are counted under each (`shared`, status, archived flag).
 * Every entry write that changes what an entry is counted under moves its count in the same
 * transaction, conditioned on the entry as it was: so the counts are, at every moment, exactly
 * the sum of the counted entries, however runs die or repeat. Writes that leave the counted
 * triple alone (a position change) stay plain batch writes.
 */

/** An entry's key. */
export type EntryKey = Pick<TicketTermItem, 'orgId' | 'boardId' | 'term' | 'ticketId'>;

/** An entry as stored, as far as its count goes (undefined: there is none). */
export type StoredEntry = Pick<TicketTermItem, 'shared' | 'statusId' | 'isArchived' | 'counted'> | undefined;

const keyOf = (entry: EntryKey): string => `${entry.boardId}\u0000${entry.term}\u0000${entry.ticketId}`;

/** The count attribute an entry as stored adds 1 to (undefined: it counts nowhere). */
function countedAs(stored: StoredEntry): string | undefined {
  if (!stored?.counted || stored.shared === undefined) return undefined;
  return termCountName(stored.shared, stored.statusId, stored.isArchived === true);
}

/** One change of a counted entry: the entry's write and its count's move, in one transaction. */
interface CountedChange {
  key: EntryKey;
  /** The entry to put (undefined: delete it). */
  put?: TicketTermItem;
  stored: StoredEntry;
  add?: string;
  remove?: string;
}

/** The change that brings an entry standing as `stored` to `put` (undefined: deleted); none to delete an entry that is not there. */
function changeOf(key: EntryKey, put: TicketTermItem | undefined, stored: StoredEntry): CountedChange | undefined {
  if (!put && !stored) return undefined;
  return { key, put, stored, add: put && countedAs(put), remove: countedAs(stored) };
}

/** Entries per transaction: each takes two items (the entry, its term's count). */
const CHANGES_PER_TRANSACTION = MAX_TRANSACTION_ITEMS / 2;
/** Attempts of one transaction whose condition found the entries changed (then read again) or that met another on a count. */
const ATTEMPTS = 6;

/**
 * Puts `puts` (each counted) and deletes `deletes`, moving the counts with them. `stored` says
 * how an entry stands when the caller knows (from a record a finished run left); the others are
 * read (consistently). An entry that turns out to differ from what was assumed fails its
 * transaction's condition, and that transaction's entries are read and written again.
 */
export async function writeCountedEntries(
  puts: TicketTermItem[],
  deletes: EntryKey[],
  stored: (key: EntryKey) => StoredEntry | 'unknown',
  plain: (puts: TicketTermItem[], deletes: EntryKey[]) => Promise<void>,
): Promise<void> {
  const assumed = await storedEntries([...puts, ...deletes], stored);
  const changes: CountedChange[] = [];
  const plainPuts: TicketTermItem[] = [];
  const plainDeletes: EntryKey[] = [];
  for (const entry of puts) {
    const counted = { ...entry, counted: true };
    const change = changeOf(entry, counted, assumed.get(keyOf(entry)))!;
    // An entry already there under the same count is rewritten by a batch write.
    if (change.stored && change.add === change.remove) plainPuts.push(counted);
    else changes.push(change);
  }
  for (const key of deletes) {
    const change = changeOf(key, undefined, assumed.get(keyOf(key)));
    if (change && change.remove === undefined) plainDeletes.push(key);
    else if (change) changes.push(change);
  }
  const chunks: CountedChange[][] = [];
  for (let offset = 0; offset < changes.length; offset += CHANGES_PER_TRANSACTION) chunks.push(changes.slice(offset, offset + CHANGES_PER_TRANSACTION));
  await Promise.all([plain(plainPuts, plainDeletes), forEachAtMost(chunks, 4, (chunk) => commitChanges(chunk))]);
}

/** How each entry stands: as the caller knows it, or read by BatchGetItem (consistent) when it does not. */
async function storedEntries(keys: EntryKey[], stored: (key: EntryKey) => StoredEntry | 'unknown'): Promise<Map<string, StoredEntry>> {
  const known = new Map<string, StoredEntry>();
  const unknown: EntryKey[] = [];
  for (const key of keys) {
    const standing = stored(key);
    if (standing === 'unknown') unknown.push(key);
    else known.set(keyOf(key), standing);
  }
  for (const [key, entry] of await readEntries(unknown)) known.set(key, entry);
  return known;
}

async function readEntries(keys: EntryKey[]): Promise<Map<string, StoredEntry>> {
  const found = new Map<string, StoredEntry>(keys.map((key) => [keyOf(key), undefined]));
  if (keys.length === 0) return found;
  const { data, unprocessed } = await db()
    .entities.ticketTerm.get(keys.map(({ orgId, boardId, term, ticketId }) => ({ orgId, boardId, term, ticketId })))
    .go({ consistent: true, concurrency: 4 });
  if (unprocessed.length > 0) throw new Error('Search entries left unread; the job is retried');
  for (const entry of data) found.set(keyOf(entry), entry);
  return found;
}

/** One transaction of changes; a failed condition reads the entries again and recomputes, a conflict waits and retries. */
async function commitChanges(chunk: CountedChange[]): Promise<void> {
  let changes = chunk;
  for (let attempt = 1; ; attempt += 1) {
    if (changes.length === 0) return;
    try {
      await documentDb().send(new TransactWriteCommand({ TransactItems: changes.flatMap(transactionItems) }));
      return;
    } catch (error) {
      if (!(error instanceof TransactionCanceledException) || attempt >= ATTEMPTS) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 25 * 2 ** attempt));
      const standing = await readEntries(changes.map((change) => change.key));
      changes = changes.flatMap((change) => changeOf(change.key, change.put, standing.get(keyOf(change.key))) ?? []);
    }
  }
}

/** The entry's put or delete, on condition it stands as assumed, and its term count's move (when it moves). */
function transactionItems(change: CountedChange): Record<string, unknown>[] {
  const { orgId, boardId, term, ticketId } = change.key;
  const condition = standsAs(change.stored);
  const entryItem = change.put
    ? { Put: { ...(db().entities.ticketTerm.put(change.put).params() as Record<string, unknown>), ...condition } }
    : { Delete: { ...itemTarget(db().entities.ticketTerm.get({ orgId, boardId, term, ticketId }).params()), ...condition } };
  const deltas = new Map<string, number>();
  if (change.remove) deltas.set(change.remove, -1);
  if (change.add) deltas.set(change.add, (deltas.get(change.add) ?? 0) + 1);
  const moves = [...deltas].filter(([, delta]) => delta !== 0);
  if (moves.length === 0) return [entryItem];
  return [entryItem, { Update: countUpdate(change.key, moves) }];
}

/** The condition that an entry stands as `stored` says: absent, counted under its triple, or present and not counted. */
function standsAs(stored: StoredEntry): { ConditionExpression: string; ExpressionAttributeNames: Record<string, string>; ExpressionAttributeValues?: Record<string, unknown> } {
  if (!stored) return { ConditionExpression: 'attribute_not_exists(#pk)', ExpressionAttributeNames: { '#pk': 'pk' } };
  if (!countedAs(stored)) return { ConditionExpression: 'attribute_exists(#pk) AND (attribute_not_exists(#counted) OR attribute_not_exists(#shared))', ExpressionAttributeNames: { '#pk': 'pk', '#counted': 'counted', '#shared': 'shared' } };
  return {
    ConditionExpression: '#counted = :true AND #shared = :shared AND #status = :status AND #archived = :archived',
    ExpressionAttributeNames: { '#counted': 'counted', '#shared': 'shared', '#status': 'statusId', '#archived': 'isArchived' },
    ExpressionAttributeValues: { ':true': true, ':shared': stored.shared, ':status': stored.statusId, ':archived': stored.isArchived === true },
  };
}

/** An UpdateItem's input: ADD of each delta (by count attribute) to the term's count item, created with its identity by the first. */
export function countUpdate(
  key: Pick<EntryKey, 'orgId' | 'boardId' | 'term'>,
  deltas: [string, number][],
): { TableName: string; Key: Record<string, unknown>; UpdateExpression: string; ExpressionAttributeNames: Record<string, string>; ExpressionAttributeValues: Record<string, unknown> } {
  const identity = { ...identityOf(db().entities.ticketTermCount), orgId: key.orgId, boardId: key.boardId, term: key.term };
  const { TableName, Key } = itemTarget(db().entities.ticketTermCount.get({ orgId: key.orgId, boardId: key.boardId, term: key.term }).params());
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const sets = Object.entries(identity).map(([name, value], index) => {
    names[`#i${index}`] = name;
    values[`:i${index}`] = value;
    return `#i${index} = :i${index}`;
  });
  const adds = deltas.map(([name, delta], index) => {
    names[`#n${index}`] = name;
    values[`:n${index}`] = delta;
    return `#n${index} :n${index}`;
  });
  return { TableName, Key, UpdateExpression: `SET ${sets.join(', ')} ADD ${adds.join(', ')}`, ExpressionAttributeNames: names, ExpressionAttributeValues: values };
}

/** Count items a search reads for one prefix before it leaves the total to its entries (a prefix most of the vocabulary begins). */
const MAX_COUNTED_TERMS = 200;

/**
 * How many of one board's tickets a prefix matches, by status and archived flag, from the count
 * items of the terms it begins (each ticket through one entry: the first of its run of terms
 * under the prefix, whose `shared` is below the prefix's length). Undefined when the prefix
 * begins more than MAX_COUNTED_TERMS terms on the board.
 */
export async function prefixCounts(orgId: string, boardId: string, prefix: string): Promise<Map<string, { live: number; archived: number }> | undefined> {
  const query = db().entities.ticketTermCount.query.byTerm({ orgId, boardId }).begins({ term: prefix }).params() as QueryParams;
  // Every attribute: the count names are not known in advance.
  const { items, next } = await queryProjected<Record<string, unknown>>(query, [], MAX_COUNTED_TERMS + 1);
  if (next || items.length > MAX_COUNTED_TERMS) return undefined;
  const byStatus = new Map<string, { live: number; archived: number }>();
  for (const item of items) {
    for (const [name, value] of Object.entries(item)) {
      const counted = parseTermCountName(name);
      if (!counted || counted.shared >= prefix.length || typeof value !== 'number' || value === 0) continue;
      const sums = byStatus.get(counted.statusId) ?? { live: 0, archived: 0 };
      if (counted.isArchived) sums.archived += value;
      else sums.live += value;
      byStatus.set(counted.statusId, sums);
    }
  }
  return byStatus;
}
