import { db } from '../../db/service.js';
import { queryCount, queryProjected, type QueryCursor, type QueryParams } from '../../db/projected.js';
import { positionKeyOf, type ColumnCountItem, type StatusItem, type TicketItem, type TicketTermItem } from '../../db/entities/index.js';
import type { DomainContext } from '../../db/context.js';
import { loadTickets } from '../access.js';
import { COLUMN_LIST_FIELDS, columnsShown, densePageFromColumns, MAX_COLUMN_SCAN, pageOfTickets, pageSpans, readStatusColumn, servedByColumns, shownCount } from './columns.js';
import { loadColumnCounts } from './column-counts.js';
import { mapLimited } from '../../core/concurrency.js';
import type { Page } from '../../core/pages.js';
import type { OrgConfig } from '../config.js';
import type { presentTicket } from '../present.js';
import { entryShown, sortTickets, type TicketFilters } from './filters.js';
import { pageOfEntries } from './facets.js';
import { matchesSearch, parseSearch, type SearchQuery } from '../search/text.js';
import { prefixCounts } from '../search/counts.js';
import { pendingTicketIds } from '../search/pending.js';

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

const termQuery = (orgId: string, boardId: string, prefix: string): QueryParams =>
  db().entities.ticketTerm.query.byTerm({ orgId, boardId }).begins({ term: prefix }).params() as QueryParams;

/** The entries of every term that begins with `prefix` on one board (a consistent Query), from `start`, up to `limit` when given. */
async function readTerm(orgId: string, boardId: string, prefix: string, limit?: number, start?: QueryCursor): Promise<{ entries: Entry[]; next: QueryCursor }> {
  const { items, next } = await queryProjected<Entry>(termQuery(orgId, boardId, prefix), ENTRY_FIELDS, limit, start);
  return { entries: items, next };
}

/** The tickets of one board's entries that match the search: every word begun, or the display id. */
async function boardMatches(orgId: string, boardId: string, query: SearchQuery, lookForId: boolean): Promise<Map<string, Entry>> {
  const [byWord, byId] = await Promise.all([
    Promise.all(query.words.map(async (word) => (await readTerm(orgId, boardId, word)).entries)),
    lookForId ? readTerm(orgId, boardId, query.displayIdTerm).then((read) => read.entries) : Promise.resolve([]),
  ]);
  return combineMatches(byWord, byId, query);
}

/** The tickets whose entries match: every word's (intersected), or the display id's. */
function combineMatches(byWord: Entry[][], byId: Entry[], query: SearchQuery): Map<string, Entry> {
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
 * 2. one word, in an organization whose entries are counted: each board's term counts of the
 *    word and its column counts (`readWordCounts`, two small Queries a board, in parallel). When
 *    the word is common enough that the page costs less from the columns, the page comes from
 *    there (`countedSearchPage`), whatever the number of matches;
 * 3. otherwise each board's entries of the terms each search word begins (one Query per word
 *    and board, in parallel), intersected across words, with the display id's entry; one word
 *    on one board reads at most FIRST_READ entries first: with more, and no term counts, their
 *    COUNT gives the total (`denseSearchPage`);
 * 4. a pending ticket's entries are set aside and the ticket itself (read by BatchGetItem) is
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
  // At most one more than MAX_PENDING: past it the answer is the same however many are pending (a backlog of thousands is not read).
  const pending = await pendingTicketIds(orgId, MAX_PENDING + 1);
  if (pending.length > MAX_PENDING) return undefined;
  const lookForId = query.displayIdTerm.includes('-');
  const pendingIds = new Set(pending);
  const word = query.words.length === 1 && !lookForId ? query.words[0]! : undefined;
  const loadingPending = loadTickets(ctx, [...pendingIds]);
  loadingPending.catch(() => undefined);
  // Counted: the term counts answered whether the columns serve the word best; when not, its entries do.
  let counted = false;
  if (word !== undefined) {
    const counts = await readWordCounts(orgId, boardIds, word, pendingIds, loadingPending);
    const page = counts && (await countedSearchPage(ctx, filters, config, counts));
    if (page) return page;
    counted = counts !== undefined;
  }
  const pendingTickets = await loadingPending;
  if (word !== undefined && boardIds.length === 1) {
    // One word on one board: its first entries tell whether most of the board matches.
    const read = await readTerm(orgId, boardIds[0]!, word, FIRST_READ);
    if (read.next && !counted && pendingIds.size <= MAX_PENDING_EXCLUDED) {
      const page = await denseSearchPage(ctx, boardIds[0]!, filters, config, pendingTickets, await wordCounts(orgId, boardIds[0]!, word, filters, config, pendingIds));
      if (page) return page;
    }
    const rest = read.next ? (await readTerm(orgId, boardIds[0]!, word, undefined, read.next)).entries : [];
    return pageOfMatches(ctx, [combineMatches([[...read.entries, ...rest]], [], query)], boardIds, pendingIds, pendingTickets, filters, config);
  }
  const boards = await mapLimited(boardIds, 8, (boardId) => boardMatches(orgId, boardId, query, lookForId));
  return pageOfMatches(ctx, boards, boardIds, pendingIds, pendingTickets, filters, config);
}

/** The page of the boards' matching entries, the pending tickets judged as they are now in place of theirs. */
function pageOfMatches(
  ctx: DomainContext, matchesPerBoard: Map<string, Entry>[], boardIds: string[], pendingIds: Set<string>, pendingTickets: TicketItem[],
  filters: TicketFilters & { page: number; limit: number }, config: OrgConfig,
): Promise<Page<ReturnType<typeof presentTicket>>> {
  const search = filters.search!;
  const onBoards = new Set(boardIds);
  const matches: Omit<Entry, 'term'>[] = matchesPerBoard.flatMap((board) => [...board.values()]).filter((entry) => !pendingIds.has(entry.ticketId));
  for (const ticket of pendingTickets) {
    if (!onBoards.has(ticket.boardId) || !matchesSearch(ticket, search)) continue;
    matches.push({ ticketId: ticket.ticketId, statusId: ticket.statusId, positionKey: positionKeyOf(ticket.position), isArchived: ticket.isArchived === true });
  }
  return pageOfEntries(ctx, matches.filter((entry) => entryShown(entry, filters, config)), filters, config);
}

/** One board's term counts of a word (by status) and its column counts. */
interface BoardWordCounts {
  boardId: string;
  matches: Map<string, { live: number; archived: number }>;
  columns: Map<string, ColumnCountItem>;
}

/**
 * Each board's term counts of `word` and column counts (in parallel), when they can answer:
 * undefined when the word begins more terms on a board than the counts are read for, or when a
 * pending ticket's entries are on one of the boards (the counts hold them as they were
 * indexed; the entries path sets them aside by id). A pending ticket's entries are where its
 * record says (its board, and what a run in progress may add), or where the ticket is now.
 */
async function readWordCounts(orgId: string, boardIds: string[], word: string, pendingIds: Set<string>, pendingTickets: Promise<TicketItem[]>): Promise<BoardWordCounts[] | undefined> {
  const [counts, records, tickets] = await Promise.all([
    mapLimited(boardIds, 8, async (boardId): Promise<BoardWordCounts | undefined> => {
      const [matches, columns] = await Promise.all([prefixCounts(orgId, boardId, word), loadColumnCounts(orgId, boardId)]);
      return matches ? { boardId, matches, columns } : undefined;
    }),
    pendingIds.size > 0 ? db().entities.ticketSearchDoc.get([...pendingIds].map((ticketId) => ({ ticketId }))).go({ consistent: true, attributes: ['boardId', 'extra'] }) : undefined,
    pendingTickets,
  ]);
  if (records && records.unprocessed.length > 0) return undefined;
  const touched = new Set<string>(tickets.map((ticket) => ticket.boardId));
  for (const record of records?.data ?? []) {
    if (record.boardId) touched.add(record.boardId);
    for (const key of record.extra ?? []) touched.add(key.slice(0, key.indexOf('\u0000')));
  }
  if (counts.some((board) => !board || touched.has(board.boardId))) return undefined;
  return counts as BoardWordCounts[];
}

/**
 * The page of a one-word search from the boards' columns, its total from the term counts: each
 * (column, board) holds exactly the counted matches of its status, so the page's columns and
 * what it takes of each are known before a ticket is read (`pageSpans`). Each board's part of a
 * column is read from the column's start, sized by the share of the column the word matches,
 * each ticket judged by the rule itself (`matchesSearch`), and the boards' parts are merged in
 * list order. Undefined (read the entries) when a board holds live tickets of a status the
 * organization no longer has, or when the column reads would cost more than MAX_COLUMN_SCAN
 * tickets or than the matches' entries (a word too rare for the columns: its entries are few).
 */
async function countedSearchPage(ctx: DomainContext, filters: TicketFilters & { page: number; limit: number }, config: OrgConfig, boards: BoardWordCounts[]): Promise<Page<ReturnType<typeof presentTicket>> | undefined> {
  const orgId = ctx.org.orgId;
  const now = ctx.clock.now();
  const includeArchived = filters.includeArchived === true;
  if (boards.some((board) => [...board.columns.values()].some((count) => !config.status(count.statusId) && count.total > 0))) return undefined;
  const search = filters.search!;
  const columns = columnsShown(config, filters).map((status) => {
    const parts = boards
      .map((board) => {
        const counted = board.matches.get(status.statusId);
        const matched = counted ? counted.live + (includeArchived ? counted.archived : 0) : 0;
        return { board, matched, listed: shownCount(board.columns.get(status.statusId), includeArchived) };
      })
      .filter((part) => part.matched > 0);
    return { status, parts, shown: parts.reduce((sum, part) => sum + part.matched, 0) };
  });
  const { total, spans } = pageSpans(columns, filters);
  // Each board's part of each column the page reaches: its first `count` matches, about count ÷ share tickets read.
  const plans = spans.map(({ column, skip, take }) => ({
    skip,
    take,
    reads: column.parts.map((part) => {
      const count = Math.min(skip + take, part.matched);
      const share = part.listed > 0 ? Math.min(1, part.matched / part.listed) : 1;
      return { status: column.status, boardId: part.board.boardId, count, share };
    }),
  }));
  // The columns serve the page when their tickets cost less than the matches' entries would (an entry is a few dozen bytes, a ticket about a kilobyte).
  const cost = plans.flatMap((plan) => plan.reads).reduce((sum, read) => sum + read.count / read.share, 0);
  if (cost > MAX_COLUMN_SCAN || cost * TICKET_TO_ENTRY_BYTES > total) return undefined;
  const parts = await Promise.all(
    plans.map(async ({ skip, take, reads }) => {
      const read = await Promise.all(reads.map((part) => readMatchingColumn(orgId, part.boardId, part.status, includeArchived, part.count, part.share, (ticket) => matchesSearch(ticket, search))));
      return sortTickets(read.flat(), config).slice(skip, skip + take);
    }),
  );
  return pageOfTickets(parts.flat(), total, filters, config, now);
}

/** About how many times an entry's bytes a ticket's are (the columns read tickets, the other path entries). */
const TICKET_TO_ENTRY_BYTES = 8;

/** Entries a one-word board search reads before it knows whether most of the board matches. */
const FIRST_READ = 400;

/** Pending tickets a COUNT can leave out by id (one IN list); with more, the entries are read. */
const MAX_PENDING_EXCLUDED = 100;

/**
 * A one-word search that most of one board matches (more than FIRST_READ entries): reading every
 * matching entry would cost what the board holds. Instead
 * - the exact total is the COUNT of `wordCounts` (read beside the first entries, so known when
 *   they are: DynamoDB sends back a number), plus the pending tickets that match as they are now;
 * - the page is read from the board's columns in list order, each ticket judged by the rule
 *   itself (`matchesSearch`: the ticket as it is, so pending ones too), until the page is full:
 *   about (page end) ÷ (the word's share of the listed board) tickets.
 * Undefined (read the entries) when the board holds live tickets of a status the organization no
 * longer has, or when the page lies so deep that the column reads would cost more.
 */
async function denseSearchPage(
  ctx: DomainContext, boardId: string, filters: TicketFilters & { page: number; limit: number }, config: OrgConfig,
  pendingTickets: TicketItem[], { counts, indexed }: WordCounts,
): Promise<Page<ReturnType<typeof presentTicket>> | undefined> {
  const orgId = ctx.org.orgId;
  const now = ctx.clock.now();
  const includeArchived = filters.includeArchived === true;
  const columns = columnsShown(config, filters);
  const shownIds = new Set(columns.map((status) => status.statusId));
  if (columns.length === 0) return pageOfTickets([], 0, filters, config, now);
  const listed = (ticket: TicketItem) => ticket.boardId === boardId && !ticket.isDeleted && shownIds.has(ticket.statusId) && (includeArchived || !ticket.isArchived);
  const search = filters.search!;
  const total = indexed + pendingTickets.filter((ticket) => listed(ticket) && matchesSearch(ticket, search)).length;
  return densePageFromColumns(columns, counts, total, filters, config, now, (status, count, share) =>
    readMatchingColumn(orgId, boardId, status, includeArchived, count, share, (ticket) => matchesSearch(ticket, search)),
  );
}

/** A board's column counts, and how many tickets the index holds for a word in the listed statuses (pending ones left out). */
interface WordCounts {
  counts: Map<string, ColumnCountItem>;
  indexed: number;
}

/**
 * The COUNT of a dense word's total: its entries that begin a ticket's run of terms with that
 * prefix (`shared` below the word's length: each ticket once), in the listed statuses and
 * archived flag, the pending tickets left out by id; beside the board's column counts.
 */
async function wordCounts(orgId: string, boardId: string, word: string, filters: TicketFilters, config: OrgConfig, pendingIds: Set<string>): Promise<WordCounts> {
  const includeArchived = filters.includeArchived === true;
  const columns = columnsShown(config, filters);
  if (columns.length === 0) return { counts: new Map(), indexed: 0 };
  // Names and values of their own (the Query's own come from ElectroDB).
  const names: Record<string, string> = { '#dsShared': 'shared', '#dsStatus': 'statusId' };
  const values: Record<string, unknown> = { ':dsLength': word.length };
  const parts = ['#dsShared < :dsLength', `#dsStatus IN (${columns.map((status, index) => { values[`:dsStatus${index}`] = status.statusId; return `:dsStatus${index}`; }).join(', ')})`];
  if (!includeArchived) {
    names['#dsArchived'] = 'isArchived';
    values[':dsFalse'] = false;
    parts.push('#dsArchived = :dsFalse');
  }
  if (pendingIds.size > 0) {
    names['#dsTicket'] = 'ticketId';
    parts.push(`NOT (#dsTicket IN (${[...pendingIds].map((ticketId, index) => { values[`:dsPending${index}`] = ticketId; return `:dsPending${index}`; }).join(', ')}))`);
  }
  const [counts, indexed] = await Promise.all([loadColumnCounts(orgId, boardId), queryCount(termQuery(orgId, boardId, word), { expression: parts.join(' AND '), names, values })]);
  return { counts, indexed };
}

/**
 * The first `count` live tickets of one column that `matches` accepts, in index order: read in
 * pages sized by the share expected to match (DynamoDB leaving out deleted and, unless asked
 * for, archived tickets), until enough matched or the column ends.
 */
async function readMatchingColumn(orgId: string, boardId: string, status: StatusItem, includeArchived: boolean, count: number, expectedShare: number, matches: (ticket: TicketItem) => boolean): Promise<TicketItem[]> {
  return readStatusColumn(status, count, async (statusCategory) => {
    const found: TicketItem[] = [];
    let cursor: string | null = null;
    do {
      const page: { data: TicketItem[]; cursor: string | null } = await db()
        .entities.ticket.query.byBoard({ orgId, boardId, statusCategory, statusId: status.statusId })
        .where((attr, op) => (includeArchived ? op.eq(attr.isDeleted, false) : `${op.eq(attr.isDeleted, false)} AND ${op.eq(attr.isArchived, false)}`))
        .go({ limit: Math.min(1_000, Math.ceil((count - found.length) / Math.max(expectedShare, 0.01)) + 10), ...(cursor ? { cursor } : {}) });
      found.push(...page.data.filter(matches));
      cursor = page.cursor;
    } while (cursor && found.length < count);
    return found.slice(0, count);
  });
}
