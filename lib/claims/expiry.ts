import type { Clock } from '../core/clock.js';
import { addSeconds, epochSeconds } from '../core/clock.js';
import { AppError } from '../core/errors.js';
import { newId } from '../core/ids.js';
import { db } from '../db/service.js';
import type { OrganizationItem, TicketItem } from '../db/entities/index.js';
import { baseTicketData } from '../tickets/events.js';
import { hasLiveClaim } from '../tickets/filters.js';
import { CLAIM_SHARD, saveTicket } from '../tickets/write.js';
import { releaseSlot } from './slots.js';
import type { TransactionEntities } from '../db/transact.js';
import { activityDelta } from '../agents/activity.js';
import { systemContext } from './system-context.js';

/** Notifications live 90 days (TTL housekeeping). */
const NOTIFICATION_RETENTION_SECONDS = 90 * 24 * 3600;

class Stale extends Error {}

/** Every claimed ticket whose lease lapsed before `now`, across organizations (byClaimExpiry). */
export async function lapsedClaims(now: Date): Promise<TicketItem[]> {
  const result = await db().entities.ticket.query
    .byClaimExpiry({ claimShard: CLAIM_SHARD })
    .lt({ claimExpiresAtKey: now.toISOString() })
    .go({ pages: 'all' });
  return result.data as TicketItem[];
}

/** One holder's claims whose lease lapsed before `now` (byClaimHolder). */
export async function lapsedClaimsOf(orgId: string, holderId: string, now: Date): Promise<TicketItem[]> {
  const result = await db().entities.ticket.query
    .byClaimHolder({ orgId, claimHolderKey: holderId })
    .lt({ claimExpiresAtKey: now.toISOString() })
    .go({ pages: 'all' });
  return result.data as TicketItem[];
}

/**
 * What ending a lapsed lease adds to the ticket write that clears or replaces it: the agent's
 * slot freed (unless the same agent takes the ticket again, keeping its slot), the agent's
 * claimsExpired counter of the day, TICKET_CLAIM_EXPIRED notifications to the assignee and
 * the agent's owner, a CLAIM_EXPIRED timeline note and ticket.claim_expired. Shared by the
 * sweeper and by a claim that takes over a lapsed, not yet swept lease, so every lease ends
 * with exactly one of ticket.claim_released or ticket.claim_expired.
 */
export function lapsedClaimEffects(ticket: TicketItem, now: Date, options: { keepSlot?: boolean } = {}) {
  const holder = ticket.claimedById!;
  const isAgent = ticket.claimedByIsAgent === true;
  const recipients = [...new Set([ticket.assigneeId, isAgent ? ticket.claimAgentOwnerId : undefined].filter((id): id is string => !!id))];
  const createdAt = now.toISOString();
  const ttl = epochSeconds(addSeconds(now, NOTIFICATION_RETENTION_SECONDS));
  return {
    related: (e: TransactionEntities) => [
      ...(isAgent && !options.keepSlot ? [releaseSlot(e, ticket.orgId, holder)] : []),
      ...recipients.map((userId) =>
        e.notification
          .create({
            orgId: ticket.orgId,
            userId,
            notificationId: newId('ntf'),
            type: 'TICKET_CLAIM_EXPIRED',
            data: { ticketId: ticket.ticketId, boardId: ticket.boardId, displayId: ticket.displayId, title: ticket.title },
            createdAt,
            ttl,
          })
          .commit(),
      ),
      ...(isAgent ? [activityDelta(e, ticket.orgId, holder, now, { claimsExpired: 1 })] : []),
    ],
    timeline: [{ kind: 'CLAIM_EXPIRED' as const, details: { previousClaimedById: holder, claimExpiresAt: ticket.claimExpiresAt } }],
    events: [{ type: 'ticket.claim_expired', data: { ...baseTicketData(ticket), previousClaimedById: holder, claimExpiresAt: ticket.claimExpiresAt } }],
  };
}

/**
 * Clears one lapsed claim as the system: the ticket put guarded by the version read (a lease
 * renewed meanwhile is left alone) with the lapsed lease's effects (lapsedClaimEffects), in
 * one transaction. Returns false when there was nothing (any more) to clear.
 */
export async function expireClaim(org: Pick<OrganizationItem, 'orgId'>, ticket: TicketItem, clock: Clock): Promise<boolean> {
  const now = clock.now();
  // The index is eventually consistent: re-check the item itself.
  if (!ticket.claimedById || hasLiveClaim(ticket, now)) return false;
  const ctx = systemContext(clock, org);
  const after = { ...ticket };
  for (const field of ['claimedById', 'claimedByName', 'claimedByIsAgent', 'claimAgentOwnerId', 'claimedAt', 'claimExpiresAt', 'claimHeartbeatAt'] as const) delete after[field];
  const effects = lapsedClaimEffects(ticket, now);
  try {
    await saveTicket(ctx, {
      before: ticket,
      after: { ...after, updatedAt: ticket.updatedAt },
      onStale: () => new Stale() as unknown as AppError,
      related: effects.related,
      timeline: effects.timeline,
      events: effects.events,
    });
    return true;
  } catch (error) {
    if (error instanceof Stale) return false;
    throw error;
  }
}

/** The sweeper task: clears every lapsed claim; returns how many it cleared. */
export async function sweepLapsedClaims(clock: Clock): Promise<number> {
  const lapsed = await lapsedClaims(clock.now());
  let cleared = 0;
  for (const ticket of lapsed) {
    // The GSI copy may be stale: read the ticket itself before deciding.
    const current = (await db().entities.ticket.get({ ticketId: ticket.ticketId }).go({ consistent: true })).data as TicketItem | null;
    if (!current) continue;
    try {
      if (await expireClaim({ orgId: current.orgId }, current, clock)) cleared++;
    } catch (error) {
      console.error(JSON.stringify({ msg: 'claim expiry failed', ticketId: ticket.ticketId, error: String(error) }));
    }
  }
  return cleared;
}
