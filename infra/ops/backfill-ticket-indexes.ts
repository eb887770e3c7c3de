/**
 * `npm run backfill-ticket-indexes`: the upgrade step of the facet and search indexes and the ticket time totals
 * (docs/operations.md, "Upgrades"). Tickets written before them have no entries, so an
 * organization's filtered lists and searches keep reading their tickets (the full read) until
 * its `ticketFacetsIndexed` and `ticketSearchIndexed` flags are set. This job reads every ticket
 * once and
 * - puts its facet entries as they are now, in one transaction with a check of the ticket's
 *   version (a ticket written meanwhile is read again);
 * - indexes its search entries as the events function does (`indexTicketSearch`, under the
 *   ticket's lease);
 * then flags every organization. Run it with the table's name (TABLE_NAME) and AWS
 * credentials, or DYNAMODB_ENDPOINT for DynamoDB Local. Safe to run again.
 *
 * Why exact: a ticket written by the new version before the job reaches it keeps its facet
 * entries by difference (what changed), so the job writes the whole set of the ticket as it is;
 * a write after that keeps a complete set by difference. Its search entries are always the
 * ticket as it is when indexed. Organizations are flagged only after every ticket was indexed.
 *
 * A maintenance job, not a request: it Scans the table, page by page. The functions themselves
 * are never granted Scan.
 */
import { pathToFileURL } from 'node:url';
import { db } from '../../lib/db/service.js';
import { guarded, transact } from '../../lib/db/transact.js';
import { LostRace, retryLostRaces } from '../../lib/db/races.js';
import type { TicketItem, TimeEntryItem } from '../../lib/db/entities/index.js';
import { ticketTimeItems } from '../../lib/time/ticket-time.js';
import { facetItems, facetsOf } from '../../lib/tickets/lists/facets.js';
import { scanEntity } from './scan.js';
import { indexTicketSearch } from '../../lib/tickets/search/index.js';
import { systemClock } from '../../lib/core/clock.js';

export interface TicketIndexBackfillResult {
  tickets: number;
  /** Facet entries written. */
  facetEntries: number;
  /** Time entries counted in their tickets' totals. */
  entries: number;
  organizations: number;
}

/** Puts one ticket's entries as it is now, guarded by its version (read again when it changed). */
async function indexTicketFacets(ticketId: string): Promise<number> {
  return retryLostRaces(async () => {
    const ticket = (await db().entities.ticket.get({ ticketId }).go({ consistent: true })).data as TicketItem | null;
    const entries = facetsOf(ticket ?? undefined);
    if (!ticket || entries.length === 0) return 0;
    await transact((e) => [
      guarded(
        e.ticket
          .check({ ticketId })
          .where((attr, op) => op.eq(attr.version, ticket.version))
          .commit(),
        () => new LostRace('changed since it was read'),
      ),
      ...facetItems(e, undefined, ticket),
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

/** The whole table, or one organization (`scope.orgId`: ORG_ID on the command line, and the tests). */
export async function backfillTicketIndexes(scope: { orgId?: string } = {}): Promise<TicketIndexBackfillResult> {
  const result: TicketIndexBackfillResult = { tickets: 0, facetEntries: 0, entries: 0, organizations: 0 };
  for await (const { ticketId, orgId } of scanEntity('ticket', 'ticketId, orgId', scope.orgId)) {
    result.tickets += 1;
    result.facetEntries += await indexTicketFacets(String(ticketId));
    await indexTicketSearch(String(orgId), String(ticketId), systemClock);
  }
  for await (const { orgId, entryId } of scanEntity('timeEntry', 'orgId, entryId', scope.orgId)) {
    if (await countInTicketTotals(String(orgId), String(entryId))) result.entries += 1;
  }
  for await (const org of scanEntity('organization', 'orgId, ticketFacetsIndexed, ticketSearchIndexed, ticketTimeAggregated', scope.orgId)) {
    if (org.ticketFacetsIndexed === true && org.ticketSearchIndexed === true && org.ticketTimeAggregated === true) continue;
    await db().entities.organization.patch({ orgId: String(org.orgId) }).set({ ticketFacetsIndexed: true, ticketSearchIndexed: true, ticketTimeAggregated: true }).go();
    result.organizations += 1;
  }
  return result;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  if (!process.env.TABLE_NAME) {
    console.error('Set TABLE_NAME (and DYNAMODB_ENDPOINT for DynamoDB Local, or AWS credentials).');
    process.exit(2);
  }
  // The service's configuration insists on a session key; this job signs nothing.
  process.env.JWT_SECRET ??= 'backfill-ticket-indexes-signs-nothing-0000000';
  console.log(JSON.stringify(await backfillTicketIndexes({ orgId: process.env.ORG_ID || undefined })));
}
