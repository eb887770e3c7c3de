import { notFound } from '../core/errors.js';
import { guarded, type TransactionEntities, type TransactionItem } from '../db/transact.js';
import { LostRace } from '../db/races.js';
import type { TicketItem } from '../db/entities/index.js';

/*
 * A ticket's release memberships (lib/db/entities/release.ts). A live ticket is a member of
 * the releases its `releaseIds` name; each membership is also a ReleaseTicket item and one in
 * the release's `ticketCount`. The three change only together, in the transaction that
 * changes the ticket: release attach and detach (lib/releases), and `saveTicket` when a
 * ticket is deleted or moved to another board.
 */

/** The releases a ticket counts in: those of its `releaseIds` while it is live. */
function membershipsOf(ticket: TicketItem | undefined): string[] {
  return ticket && !ticket.isDeleted ? [...(ticket.releaseIds ?? [])] : [];
}

/** The ticket joins a release: its ReleaseTicket, and +1 on the release, which must be a live release of the ticket's board (else 404). */
export function joinRelease(e: TransactionEntities, ticket: TicketItem, releaseId: string, attachedAt: string): TransactionItem[] {
  return [
    guarded(
      e.release
        .patch({ orgId: ticket.orgId, boardId: ticket.boardId, releaseId })
        .add({ ticketCount: 1 })
        .where((attr, op) => op.eq(attr.isDeleted, false))
        .commit(),
      () => notFound('Release'),
    ),
    e.releaseTicket.put({ orgId: ticket.orgId, releaseId, ticketId: ticket.ticketId, boardId: ticket.boardId, attachedAt }).commit(),
  ];
}

/**
 * The ticket leaves a release: its ReleaseTicket goes, and −1 on the release. The release
 * item outlives its last member (DELETE removes it only at `ticketCount` 0), so its absence
 * means a concurrent change: read again.
 */
export function leaveRelease(e: TransactionEntities, ticket: TicketItem, releaseId: string): TransactionItem[] {
  return [
    guarded(e.release.patch({ orgId: ticket.orgId, boardId: ticket.boardId, releaseId }).add({ ticketCount: -1 }).commit(), () => new LostRace('The release changed concurrently; retry')),
    e.releaseTicket.delete({ orgId: ticket.orgId, releaseId, ticketId: ticket.ticketId }).commit(),
  ];
}

/**
 * The membership changes of a ticket write (`saveTicket`): a deleted ticket leaves every
 * release it was in. A move to another board must clear `releaseIds` (releases belong to a
 * board; lib/tickets/workflow.ts does), and so leaves them too.
 */
export function releaseMembership(e: TransactionEntities, before: TicketItem | undefined, after: TicketItem, now: string): TransactionItem[] {
  const was = membershipsOf(before);
  const is = membershipsOf(after);
  return [
    ...was.filter((releaseId) => !is.includes(releaseId)).flatMap((releaseId) => leaveRelease(e, before!, releaseId)),
    ...is.filter((releaseId) => !was.includes(releaseId)).flatMap((releaseId) => joinRelease(e, after, releaseId, now)),
  ];
}
