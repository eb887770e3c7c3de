import { db } from '../../db/service.js';
import { queryProjected, type QueryParams } from '../../db/projected.js';
import { positionKeyOf, type TicketTermItem } from '../../db/entities/index.js';
import type { DomainContext } from '../../db/context.js';
import { loadTickets } from '../access.js';
import { COLUMN_LIST_FIELDS, servedByColumns } from '../lists/columns.js';
import { mapLimited } from '../../core/concurrency.js';
import type { Page } from '../../core/pages.js';
import type { OrgConfig } from '../config.js';
import type { presentTicket } from '../present.js';
import { entryShown, type TicketFilters } from '../lists/filters.js';
import { pageOfEntries } from '../lists/facets.js';
import { matchesSearch, parseSearch, type SearchQuery } from './text.js';

/** The list fields a search served by the index takes: `search` and those of the column path. */
const SEARCH_LIST_FIELDS = new Set([...COLUMN_LIST_FIELDS, 'search']);

/** Whether a list filters by a search and nothing but status and the category flags besides. */
export function servedBySearch(filters: TicketFilters): boolean {
  return !!filters.search && servedByColumns(filters, SEARCH_LIST_FIELDS);
}

/** More tickets pending than this (a bulk import in progress) and the search reads the boards instead. */
const MAX_PENDING = 200;

type Entry = Pick<TicketTermItem, 'ticketId' | 'term' | 'statusId' | 'positionKey' | 'isArchived'>;
const ENTRY_FIELDS = ['ticketId', 'term', 'statusId', 'positionKey', 'isArchived'] as const;

/** The entries of every term that begins with `prefix` on one board (a consistent Query). */
async function readTerm(orgId: string, boardId: string, prefix: string): Promise<Entry[]> {
  const params = db().entities.ticketTerm.query.byTerm({ orgId, boardId }).begins({ term: prefix }).params() as QueryParams;
  return (await queryProjected<Entry>(params, ENTRY_FIELDS)).items;
}

/** The tickets of one board's entries that match the search: every word begun, or the display id. */
async function boardMatches(orgId: string, boardId: string, query: SearchQuery, lookForId: boolean): Promise<Map<string, Entry>> {
  const [byWord, byId] = await Promise.all([
    Promise.all(query.words.map((word) => readTerm(orgId, boardId, word))),
    lookForId ? readTerm(orgId, boardId, query.displayIdTerm) : Promise.resolve([]),
  ]);
  const matches = new Map<string, Entry>();
  if (byWord.length > 0) {
    const [first, ...rest] = byWord.map((entries) => new Map(entries.map((entry) => [entry.ticketId, entry])));
    for (const [ticketId, entry] of first!) if (rest.every((other) => other.has(ticketId))) matches.set(ticketId, entry);
  }
  for (const entry of byId) if (entry.term === query.displayIdTerm) matches.set(entry.ticketId, entry);
  return matches;
}

/**
 * A search over one board or many (`/issues`), from the search index (lib/db/entities/ticket-search.ts):
 * 1. the organization's pending tickets (written since the events function last indexed them):
 *    one Query, usually empty;
 * 2. each board's entries of the terms each search word begins (one Query per word and board,
 *    in parallel), intersected across words, with the display id's entry;
 * 3. a pending ticket's entries are set aside and the ticket itself (read by BatchGetItem) is
 *    judged by the same rule (`matchesSearch`), so a search sees every write at once.
 * Then the page as every index list makes it (`pageOfEntries`): exact total, only the page's
 * tickets read. The cost follows the matching tickets' entries, never the boards' other
 * tickets. Answers undefined when too many tickets are pending (the caller reads the boards).
 */
export async function listBySearch(ctx: DomainContext, boardIds: string[], filters: TicketFilters & { page: number; limit: number }, config: OrgConfig): Promise<Page<ReturnType<typeof presentTicket>> | undefined> {
  const orgId = ctx.org.orgId;
  const search = filters.search!;
  const query = parseSearch(search);
  // The pending markers first: a ticket indexed after this read was written before it, so its entries are read after they were written.
  const pending = (await db().entities.searchPending.query.byOrganization({ orgId }).go({ pages: 'all', consistent: true, attributes: ['ticketId'] })).data;
  if (pending.length > MAX_PENDING) return undefined;
  const lookForId = query.displayIdTerm.includes('-');
  const [perBoard, pendingTickets] = await Promise.all([
    mapLimited(boardIds, 8, (boardId) => boardMatches(orgId, boardId, query, lookForId)),
    loadTickets(ctx, pending.map(({ ticketId }) => ticketId)),
  ]);
  const pendingIds = new Set(pending.map(({ ticketId }) => ticketId));
  const onBoards = new Set(boardIds);
  const matches: Omit<Entry, 'term'>[] = perBoard.flatMap((board) => [...board.values()]).filter((entry) => !pendingIds.has(entry.ticketId));
  for (const ticket of pendingTickets) {
    if (!onBoards.has(ticket.boardId) || !matchesSearch(ticket, search)) continue;
    matches.push({ ticketId: ticket.ticketId, statusId: ticket.statusId, positionKey: positionKeyOf(ticket.position), isArchived: ticket.isArchived === true });
  }
  return pageOfEntries(ctx, matches.filter((entry) => entryShown(entry, filters, config)), filters, config);
}
