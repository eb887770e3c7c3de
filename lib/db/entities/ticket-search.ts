import { Entity, type EntityConfiguration, type EntityItem } from 'electrodb';

/**
 * The ticket search index (lib/tickets/search). A new ticket whose entries fit is indexed in its
 * create's own transaction; every other write that changes the entries leaves a pending marker in
 * its transaction and the events function indexes it (a ticket's words can be thousands, more
 * than a transaction holds), so a search is exact at once.
 */

/**
 * One term of one live ticket: a word of its title or description, or its display id
 * (`#web-42`). Keyed by (board, organization), then term and ticket id: a word prefix is one
 * Query of a key range that reads only the entries of the words it begins. Carries what a list
 * needs to select and order the ticket without reading it. The partition is the index's own
 * (board first, so not the board's partition, where its column counts and releases are):
 * nothing else is read past its entries (version 2; version 1 kept them in the board's partition).
 */
export const TicketTerm = (config?: EntityConfiguration) =>
  new Entity({
  model: { entity: 'ticketTerm', version: '2', service: 'wm' },
  attributes: {
    orgId: { type: 'string', required: true },
    boardId: { type: 'string', required: true },
    term: { type: 'string', required: true },
    ticketId: { type: 'string', required: true },
    statusId: { type: 'string', required: true },
    positionKey: { type: 'string', required: true },
    isArchived: { type: 'boolean', required: true, default: false },
    /**
     * How many leading characters (UTF-16 code units) the term shares with the ticket's previous
     * term in sorted order (0 for the first). The terms a prefix begins form a run in that order,
     * and only the run's first shares fewer characters than the prefix has: so a COUNT of a
     * prefix's entries with `shared` below its length counts each ticket once.
     */
    shared: { type: 'number' },
    /**
     * The entry is counted in its term's TicketTermCount (under its `shared`, status and archived
     * flag): set by the write that added it there, in the same transaction, so every entry the
     * service writes carries it. An entry without it (or without `shared`) counts nowhere, and
     * a run that meets one rewrites it counted (lib/tickets/search/counts.ts).
     */
    counted: { type: 'boolean' },
  },
  indexes: {
    byTerm: { pk: { field: 'pk', composite: ['boardId', 'orgId'] }, sk: { field: 'sk', composite: ['term', 'ticketId'] } },
  },
}, config);
export type TicketTermItem = EntityItem<ReturnType<typeof TicketTerm>>;

/**
 * How many of a board's entries of one term are counted, by (`shared`, status, archived flag):
 * one number attribute each, named by `termCountName` and moved only by ADD, in the transaction
 * that writes or deletes the entry (lib/tickets/search/counts.ts). A prefix's matching tickets
 * in the statuses a list shows are then the sum, over the count items of the terms the prefix
 * begins, of the attributes whose `shared` is below the prefix's length: read from as many
 * items as the board has distinct words under the prefix, never one per ticket. In the
 * entries' partition (keys `$tickettermcount…`, apart from the entries' `$ticketterm_2…`).
 */
export const TicketTermCount = (config?: EntityConfiguration) =>
  new Entity({
  model: { entity: 'ticketTermCount', version: '1', service: 'wm' },
  attributes: {
    orgId: { type: 'string', required: true },
    boardId: { type: 'string', required: true },
    term: { type: 'string', required: true },
  },
  indexes: {
    byTerm: { pk: { field: 'pk', composite: ['boardId', 'orgId'] }, sk: { field: 'sk', composite: ['term'] } },
  },
}, config);

/** The attribute of a TicketTermCount that counts entries with this `shared`, status and archived flag. */
export const termCountName = (shared: number, statusId: string, isArchived: boolean): string => `n|${shared}|${statusId}|${isArchived ? 1 : 0}`;

/** The parts of a count attribute's name (undefined for any other attribute). */
export function parseTermCountName(name: string): { shared: number; statusId: string; isArchived: boolean } | undefined {
  const parts = name.split('|');
  if (parts.length !== 4 || parts[0] !== 'n') return undefined;
  return { shared: Number(parts[1]), statusId: parts[2]!, isArchived: parts[3] === '1' };
}

/**
 * What the index holds for one ticket (beside the ticket, same partition): the ticket version
 * it reflects, the board and terms of its entries and the status, position and archived flag
 * they carry. `extra` lists entries a run may have written beyond those ("board\0term"), and
 * `dirty` says a run began and did not finish, so the next one rewrites every entry. The lease
 * (`leaseToken`, `leaseUntil`) lets one run at a time write a ticket's entries.
 */
export const TicketSearchDoc = (config?: EntityConfiguration) =>
  new Entity({
  // Version 2 lists the entries of TicketTerm version 2 (a new item: a version 1 record lists entries of the old layout).
  model: { entity: 'ticketSearch', version: '2', service: 'wm' },
  attributes: {
    ticketId: { type: 'string', required: true },
    orgId: { type: 'string', required: true },
    version: { type: 'number', required: true, default: 0 },
    boardId: { type: 'string' },
    terms: { type: 'list', items: { type: 'string' } },
    statusId: { type: 'string' },
    positionKey: { type: 'string' },
    isArchived: { type: 'boolean' },
    extra: { type: 'list', items: { type: 'string' } },
    dirty: { type: 'boolean' },
    leaseToken: { type: 'string' },
    leaseUntil: { type: 'string' },
  },
  indexes: {
    byTicket: { pk: { field: 'pk', composite: ['ticketId'] }, sk: { field: 'sk', composite: [] } },
  },
}, config);
export type TicketSearchDocItem = EntityItem<ReturnType<typeof TicketSearchDoc>>;

/** Partitions of the pending markers' age index (byAge), read in parallel by the sweeper. */
export const SEARCH_PENDING_SHARDS = 8;

/** The byAge partition of a subject's marker (`search#0` … `search#7` for tickets, `wiki#0` … for wiki pages), stable per subject. */
export function searchShardOf(subjectId: string, prefix = 'search'): string {
  let hash = 0;
  for (let index = 0; index < subjectId.length; index += 1) hash = (hash * 31 + subjectId.charCodeAt(index)) >>> 0;
  return `${prefix}#${hash % SEARCH_PENDING_SHARDS}`;
}

/**
 * A ticket whose search entries may not reflect it yet: written (with the ticket's version and
 * the time) in the transaction of every ticket write that changes what the index holds,
 * deleted by the run that indexes that version. One partition per organization: a search
 * reads its few pending tickets and judges them itself. byAge (gsi4, beside the claims' expiry
 * partitions) lets the sweeper find markers no run cleared (a run that died holding the
 * ticket's lease) and index them again.
 */
export const SearchPending = (config?: EntityConfiguration) =>
  new Entity({
  model: { entity: 'searchPending', version: '1', service: 'wm' },
  attributes: {
    orgId: { type: 'string', required: true },
    ticketId: { type: 'string', required: true },
    version: { type: 'number', required: true },
    /** When the write that left the marker happened (ISO 8601). */
    at: { type: 'string', required: true },
    // biome-ignore lint/suspicious/noExplicitAny: ElectroDB types a watched attribute's `item` as any
    pendingShard: { type: 'string', watch: ['ticketId'], set: (_value?: string, item?: any) => searchShardOf(item?.ticketId ?? '') },
  },
  indexes: {
    byOrganization: { pk: { field: 'pk', composite: ['orgId'] }, sk: { field: 'sk', composite: ['ticketId'] } },
    byAge: { index: 'gsi4', pk: { field: 'gsi4pk', composite: ['pendingShard'] }, sk: { field: 'gsi4sk', composite: ['at', 'ticketId'] } },
  },
}, config);
export type SearchPendingItem = EntityItem<ReturnType<typeof SearchPending>>;
