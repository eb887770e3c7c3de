/**
 * `npm run backfill-indexes`: the upgrade step of the facet and search indexes (tickets and wiki
 * pages) and the ticket time totals (docs/operations.md, "Upgrades"). Items written before them
 * have no entries, so an organization's filtered lists and searches keep reading its tickets and
 * pages (the full read) until its flags are set. This job reads every ticket once and
 * - puts its facet entries as they are now, in one transaction with a check of the ticket's
 *   version (a ticket written meanwhile is read again), and counts it in FacetCount if it is
 *   not yet (`facetsCounted`, set in the same transaction);
 * - indexes its search entries as the events function does (`indexTicketSearch`, under the
 *   ticket's lease);
 * counts every time entry of a ticket in the ticket's totals, indexes every wiki page
 * (`indexWikiPage`), puts every time entry of a ticket again (the keys of its by-date indexes),
 * then, organization by organization, puts its PENDING time entries again (booking items'
 * too) and flags it. Run it with the table's name (TABLE_NAME)
 * and AWS credentials, or DYNAMODB_ENDPOINT for DynamoDB Local. Safe to run again.
 *
 * Why exact: a ticket written by the new version before the job reaches it keeps its facet
 * entries by difference (what changed), so the job writes the whole set of the ticket as it is;
 * a write after that keeps a complete set by difference. Its search entries (and a page's) are
 * always the item as it is when indexed. Organizations are flagged only after every item was
 * indexed.
 *
 * A maintenance job, not a request: for the whole table it Scans, page by page (the functions
 * themselves are never granted Scan); for one organization (ORG_ID) it Queries its boards'
 * tickets and its spaces' pages.
 */
import { pathToFileURL } from 'node:url';
import { Entity } from 'electrodb';
import { config } from '../../lib/core/config.js';
import { documentDb } from '../../lib/db/client.js';
import { db } from '../../lib/db/service.js';
import { guarded, isConditionFailure, transact } from '../../lib/db/transact.js';
import { LostRace, retryLostRaces } from '../../lib/db/races.js';
import type { TicketItem, TimeEntryItem } from '../../lib/db/entities/index.js';
import { ticketTimeItems } from '../../lib/time/ticket-time.js';
import { facetCountItems, facetItems, facetsOf } from '../../lib/tickets/lists/facets.js';
import { scanEntity, ticketsOf } from './scan.js';
import { indexTicketSearch } from '../../lib/tickets/search/index.js';
import { indexWikiPage } from '../../lib/wiki/index.js';
import { systemClock } from '../../lib/core/clock.js';

export interface IndexBackfillResult {
  tickets: number;
  /** Facet entries written. */
  facetEntries: number;
  /** Time entries counted in their tickets' totals. */
  entries: number;
  /** Wiki pages indexed. */
  pages: number;
  /** Time entries of tickets given their by-date index keys. */
  keyedEntries: number;
  /** PENDING time entries given their `pendingByDate` keys. */
  pendingEntries: number;
  /** Items of the ticket search index's first layout deleted. */
  firstLayoutItems: number;
  organizations: number;
}

/**
 * Puts one ticket's entries as it is now, guarded by its version (read again when it changed).
 * A ticket not yet counted in FacetCount is counted in the same transaction and marked
 * `facetsCounted`, its version raised: a writer that read it before fails its guard and reads
 * again, so it subtracts the state the job counted.
 */
async function indexTicketFacets(ticketId: string): Promise<number> {
  return retryLostRaces(async () => {
    const ticket = (await db().entities.ticket.get({ ticketId }).go({ consistent: true })).data as TicketItem | null;
    const entries = facetsOf(ticket ?? undefined);
    if (!ticket || entries.length === 0) return 0;
    const stale = () => new LostRace('changed since it was read');
    await transact((e) => [
      ticket.facetsCounted
        ? guarded(e.ticket.check({ ticketId }).where((attr, op) => op.eq(attr.version, ticket.version)).commit(), stale)
        : guarded(
            e.ticket
              .patch({ ticketId })
              .set({ facetsCounted: true })
              .add({ version: 1 })
              .where((attr, op) => op.eq(attr.version, ticket.version))
              .commit(),
            stale,
          ),
      ...facetItems(e, undefined, ticket),
      ...(ticket.facetsCounted ? [] : facetCountItems(e, undefined, ticket)),
    ]);
    return entries.length;
  });
}

/**
 * Counts one time entry stored before the ticket totals in its ticket's totals: the entry
 * marked counted, its version raised (a writer that read it before fails its guard and reads
 * again), and its contribution added, in one transaction. False when there was nothing to do.
 */
async function countInTicketTotals(orgId: string, entryId: string): Promise<boolean> {
  return retryLostRaces(async () => {
    const entry = (await db().entities.timeEntry.get({ orgId, entryId }).go({ consistent: true })).data as TimeEntryItem | null;
    if (!entry || entry.inTicketTotals === true || !entry.ticketId) return false;
    const counted = { ...entry, inTicketTotals: true, version: entry.version + 1 };
    await transact((e) => [
      guarded(
        e.timeEntry
          .patch({ orgId, entryId })
          .set({ inTicketTotals: true })
          .add({ version: 1 })
          .where((attr, op) => op.eq(attr.version, entry.version))
          .commit(),
        () => new LostRace('changed since it was read'),
      ),
      ...ticketTimeItems(e, undefined, counted),
    ]);
    return true;
  });
}

/** Every time entry with a ticket (Scan), or one organization's, ticket by ticket (Query). */
async function* ticketEntriesOf(orgId: string | undefined, ticketIds: string[]): AsyncGenerator<{ orgId: string; entryId: string }> {
  if (orgId === undefined) {
    for await (const item of scanEntity('timeEntry', 'orgId, entryId')) yield { orgId: String(item.orgId), entryId: String(item.entryId) };
    return;
  }
  for (const ticketId of ticketIds) {
    const entries = await db().entities.timeEntry.query.byTicket({ orgId, ticketKey: ticketId }).go({ pages: 'all', attributes: ['entryId'] });
    for (const { entryId } of entries.data) yield { orgId, entryId };
  }
}

/**
 * Puts a time entry again as it is, guarded by its version: ElectroDB derives the keys of its
 * by-date indexes (`pendingByDate`, `byTicketDate`); an entry written meanwhile got them from
 * its writer. False when there was nothing to put.
 */
async function keyByDate(entry: TimeEntryItem | null): Promise<boolean> {
  if (!entry) return false;
  try {
    await db().entities.timeEntry.put(entry).where((attr, op) => op.eq(attr.version, entry.version)).go({ response: 'none' });
    return true;
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    return false;
  }
}

/** Keys each PENDING time entry of the organization (those of booking items are in no ticket's list); answers how many. */
async function keyPendingByDate(orgId: string): Promise<number> {
  const { data } = await db().entities.timeEntry.query.pending({ orgId }).go({ pages: 'all' });
  let keyed = 0;
  for (const entry of data) if (await keyByDate(entry)) keyed += 1;
  return keyed;
}

/** Every wiki page of the table (Scan), or one organization's, space by space (Query). */
async function* pagesOf(orgId: string | undefined): AsyncGenerator<{ orgId: string; spaceId: string; pageId: string }> {
  if (orgId === undefined) {
    for await (const item of scanEntity('wikiPage', 'orgId, spaceId, pageId')) yield { orgId: String(item.orgId), spaceId: String(item.spaceId), pageId: String(item.pageId) };
    return;
  }
  const spaces = await db().entities.wikiSpace.query.byOrg({ orgId }).go({ pages: 'all', attributes: ['spaceId'] });
  for (const { spaceId } of spaces.data) {
    const pages = await db().entities.wikiPage.query.bySpace({ orgId, spaceId }).go({ pages: 'all', attributes: ['pageId'] });
    for (const { pageId } of pages.data) yield { orgId, spaceId, pageId };
  }
}

/**
 * The first layout of the ticket search index (TicketTerm and TicketSearchDoc version 1: the
 * entries in their board's partition), as far as deleting its items needs it.
 */
export function firstLayout() {
  const options = { table: config().tableName, client: documentDb() };
  const term = new Entity({
    model: { entity: 'ticketTerm', version: '1', service: 'wm' },
    attributes: { orgId: { type: 'string', required: true }, boardId: { type: 'string', required: true }, term: { type: 'string', required: true }, ticketId: { type: 'string', required: true } },
    indexes: { byTerm: { pk: { field: 'pk', composite: ['orgId', 'boardId'] }, sk: { field: 'sk', composite: ['term', 'ticketId'] } } },
  }, options);
  const record = new Entity({
    model: { entity: 'ticketSearch', version: '1', service: 'wm' },
    attributes: { ticketId: { type: 'string', required: true } },
    indexes: { byTicket: { pk: { field: 'pk', composite: ['ticketId'] }, sk: { field: 'sk', composite: [] } } },
  }, options);
  return { term, record };
}

/** Deletes the first layout's items: of the whole table (Scans), or of one organization's boards and tickets. Answers how many. */
async function removeFirstLayout(orgId: string | undefined, boardIds: string[], ticketIds: string[]): Promise<number> {
  const { term, record } = firstLayout();
  let removed = 0;
  const remove = async (entity: typeof term | typeof record, keys: Record<string, string>[]) => {
    if (keys.length === 0) return;
    // biome-ignore lint/suspicious/noExplicitAny: the two entities' delete keys differ; each gets its own
    const { unprocessed } = await (entity as any).delete(keys).go({ concurrency: 4 });
    if (unprocessed.length > 0) throw new Error('Items of the first layout left unprocessed; run the backfill again');
    removed += keys.length;
  };
  if (orgId !== undefined) {
    for (const boardId of boardIds) await remove(term, (await term.query.byTerm({ orgId, boardId }).go({ pages: 'all' })).data);
    // Deleting a missing record is nothing.
    await remove(record, ticketIds.map((ticketId) => ({ ticketId })));
    return removed;
  }
  for (const entity of [term, record] as const) {
    let cursor: string | null = null;
    do {
      // biome-ignore lint/suspicious/noExplicitAny: a Scan of either entity, page by page
      const page: { data: Record<string, string>[]; cursor: string | null } = await (entity as any).scan.go({ cursor, limit: 1000 });
      await remove(entity, page.data);
      cursor = page.cursor;
    } while (cursor);
  }
  return removed;
}

const FLAGS = ['ticketFacetsIndexed', 'facetCountsKept', 'ticketTermsIndexed', 'searchPrefixesCounted', 'searchTermsCounted', 'ticketTimeAggregated', 'timeEntriesByDate', 'wikiSearchIndexed'] as const;

/**
 * The whole table (Scans), or one organization (`scope.orgId`: ORG_ID on the command line, and
 * the tests), read by Queries of its boards and spaces.
 */
export async function backfillIndexes(scope: { orgId?: string } = {}): Promise<IndexBackfillResult> {
  const result: IndexBackfillResult = { tickets: 0, facetEntries: 0, entries: 0, pages: 0, keyedEntries: 0, pendingEntries: 0, firstLayoutItems: 0, organizations: 0 };
  const ticketIds: string[] = [];
  for await (const { ticketId, orgId } of ticketsOf(scope.orgId)) {
    result.tickets += 1;
    if (scope.orgId !== undefined) ticketIds.push(ticketId);
    result.facetEntries += await indexTicketFacets(ticketId);
    await indexTicketSearch(orgId, ticketId, systemClock);
  }
  for await (const { orgId, entryId } of ticketEntriesOf(scope.orgId, ticketIds)) {
    if (await countInTicketTotals(orgId, entryId)) result.entries += 1;
    if (await keyByDate((await db().entities.timeEntry.get({ orgId, entryId }).go({ consistent: true })).data as TimeEntryItem | null)) result.keyedEntries += 1;
  }
  for await (const { orgId, spaceId, pageId } of pagesOf(scope.orgId)) {
    result.pages += 1;
    await indexWikiPage(orgId, spaceId, pageId, systemClock);
  }
  const boardIds = scope.orgId === undefined ? [] : (await db().entities.board.query.byOrg({ orgId: scope.orgId }).go({ pages: 'all', attributes: ['boardId'] })).data.map(({ boardId }) => boardId);
  result.firstLayoutItems = await removeFirstLayout(scope.orgId, boardIds, ticketIds);
  const organizations = scope.orgId === undefined ? scanEntity('organization', `orgId, ${FLAGS.join(', ')}`) : organizationOf(scope.orgId);
  for await (const org of organizations) {
    if (FLAGS.every((flag) => org[flag] === true)) continue;
    if (org.timeEntriesByDate !== true) result.pendingEntries += await keyPendingByDate(String(org.orgId));
    await db().entities.organization.patch({ orgId: String(org.orgId) }).set(Object.fromEntries(FLAGS.map((flag) => [flag, true]))).go();
    result.organizations += 1;
  }
  return result;
}

async function* organizationOf(orgId: string): AsyncGenerator<Record<string, unknown>> {
  const org = (await db().entities.organization.get({ orgId }).go({ consistent: true })).data;
  if (org) yield org as unknown as Record<string, unknown>;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  if (!process.env.TABLE_NAME) {
    console.error('Set TABLE_NAME (and DYNAMODB_ENDPOINT for DynamoDB Local, or AWS credentials).');
    process.exit(2);
  }
  // The service's configuration insists on a session key; this job signs nothing.
  process.env.JWT_SECRET ??= 'backfill-indexes-signs-nothing-0000000';
  console.log(JSON.stringify(await backfillIndexes({ orgId: process.env.ORG_ID || undefined })));
}
