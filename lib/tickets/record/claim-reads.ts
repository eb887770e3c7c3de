import { db } from '../../db/service.js';
import { claimShards, type QuarantineEntryItem, type TicketItem } from '../../db/entities/index.js';

/*
 * Reads of the claim indexes and the quarantine list: what the lists, the ready queue, the
 * sweeper and claim-next read of claims, none of them a write.
 */

/** Every claimed ticket whose lease lapsed before `now`, across organizations (byClaimExpiry, its shards in parallel). */
export async function lapsedClaims(now: Date): Promise<TicketItem[]> {
  const shards = await Promise.all(
    claimShards().map((claimShard) =>
      db().entities.ticket.query.byClaimExpiry({ claimShard }).lt({ claimExpiresAtKey: now.toISOString() }).go({ pages: 'all' }),
    ),
  );
  return shards.flatMap((result) => result.data as TicketItem[]);
}

/** One organization's claimed tickets whose lease lapsed at or before `now` and which are not cleared yet (byOrgClaimExpiry). */
export async function lapsedClaimsOfOrganization(orgId: string, now: Date): Promise<TicketItem[]> {
  const result = await db().entities.ticket.query.byOrgClaimExpiry({ orgId }).lte({ claimExpiresAtKey: now.toISOString() }).go({ pages: 'all' });
  return result.data as TicketItem[];
}

/** One holder's live claims, soonest expiry first (byClaimHolder, expiry after `now`). */
export async function liveClaimsOf(orgId: string, holderId: string, now: Date): Promise<TicketItem[]> {
  const result = await db().entities.ticket.query
    .byClaimHolder({ orgId, claimHolderKey: holderId })
    .gt({ claimExpiresAtKey: now.toISOString() })
    .go({ pages: 'all' });
  return (result.data as TicketItem[]).filter((ticket) => !ticket.isDeleted && ticket.claimedById === holderId);
}

/** Every claim one holder has, live or lapsed and not yet cleared (byClaimHolder), as the index shows them. */
export async function claimsHeldBy(orgId: string, holderId: string): Promise<TicketItem[]> {
  const result = await db().entities.ticket.query.byClaimHolder({ orgId, claimHolderKey: holderId }).go({ pages: 'all' });
  return (result.data as TicketItem[]).filter((ticket) => !ticket.isDeleted && ticket.claimedById === holderId);
}

/** The organization's quarantined tickets' entries (its own partition: as many as are quarantined, never the boards). */
export async function quarantineEntries(orgId: string): Promise<QuarantineEntryItem[]> {
  return (await db().entities.quarantineEntry.query.byOrg({ orgId }).go({ pages: 'all' })).data;
}
