/**
 * `npm run backfill-readiness`: the upgrade step of the fleet release (docs/fleet.md). Tickets
 * written before it carry no open-subticket count and no ready-queue keys; this job reads every
 * ticket once, sets `openSubticketCount` from its subtickets, and writes it back (guarded by its
 * version, which it raises, so a concurrent writer reads again), so the entity derives the ready
 * index keys, adding it to its column's ready count (`queued`) when it is ready. Run it with the
 * table's name (TABLE_NAME) and AWS credentials, or DYNAMODB_ENDPOINT for DynamoDB Local. Safe to run again: a ticket already counted is left alone.
 *
 * A maintenance job, not a request: it Scans the table, page by page, for ticket items (the
 * functions themselves are never granted Scan); `ORG_ID` limits it to one organization, read by
 * Queries of its boards.
 */
import { pathToFileURL } from 'node:url';
import { db } from '../../lib/db/service.js';
import { transact } from '../../lib/db/transact.js';
import { LostRace } from '../../lib/db/races.js';
import type { TicketItem } from '../../lib/db/entities/index.js';
import { openSubticketsOf } from '../../lib/tickets/dependencies/edges.js';
import { replaceTicketItems } from '../../lib/tickets/write.js';
import { ticketsOf } from './scan.js';

export interface BackfillResult {
  tickets: number;
  updated: number;
  /** Changed by someone else between read and write (their write derived the keys; run again to count them). */
  skipped: number;
}

/** The whole table (a Scan), or one organization (`scope.orgId`: ORG_ID on the command line, and the tests), by Queries of its boards. */
export async function backfillReadiness(scope: { orgId?: string } = {}): Promise<BackfillResult> {
  const result: BackfillResult = { tickets: 0, updated: 0, skipped: 0 };
  for await (const { ticketId } of ticketsOf(scope.orgId)) {
    result.tickets += 1;
    const ticket = (await db().entities.ticket.get({ ticketId: String(ticketId) }).go({ consistent: true })).data as TicketItem | null;
    if (!ticket || (ticket.openSubticketCount !== undefined && ticket.readyBoard !== undefined)) continue;
    const openSubticketCount = await openSubticketsOf(ticket);
    const after: TicketItem = { ...ticket, openSubticketCount, openBlockerCount: ticket.openBlockerCount ?? 0, version: ticket.version + 1 };
    try {
      // With the ready queue's count of its column when it enters the queue.
      await transact((e) => replaceTicketItems(e, ticket, after, () => new LostRace('changed since it was read')));
      result.updated += 1;
    } catch (error) {
      if (!(error instanceof LostRace)) throw error;
      result.skipped += 1;
    }
  }
  return result;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  if (!process.env.TABLE_NAME) {
    console.error('Set TABLE_NAME (and DYNAMODB_ENDPOINT for DynamoDB Local, or AWS credentials).');
    process.exit(2);
  }
  // The service's configuration insists on a session key; this job signs nothing.
  process.env.JWT_SECRET ??= 'backfill-readiness-signs-nothing-0000000000';
  console.log(JSON.stringify(await backfillReadiness({ orgId: process.env.ORG_ID || undefined })));
}
