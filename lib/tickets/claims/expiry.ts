import type { Clock } from '../../core/clock.js';
import { LostRace } from '../../db/races.js';
import { db } from '../../db/service.js';
import type { OrganizationItem, TicketItem } from '../../db/entities/index.js';
import { saveTicket } from '../write.js';
import { hasLiveClaim, lapsedClaimEffects, withoutClaim } from '../record/lease.js';
import { systemContext } from '../system-context.js';
import { lapsedClaims, lapsedClaimsOfOrganization } from '../record/claim-reads.js';
import { log, publishMetrics } from '../../core/telemetry.js';
import { agentPoliciesOf } from '../../organizations/index.js';

/** The organization's `quarantineAfterLapses` (its policies are on the organization item). */
const quarantineAfterOf = (org: Pick<OrganizationItem, 'agentPolicies'>): number => agentPoliciesOf(org as OrganizationItem).quarantineAfterLapses;

/**
 * Clears one lapsed claim as the system: the ticket put guarded by the version read (a lease
 * renewed meanwhile is left alone) with the lapsed lease's effects (lapsedClaimEffects), in
 * one transaction. Returns false when there was nothing (any more) to clear.
 */
export async function expireClaim(org: Pick<OrganizationItem, 'orgId' | 'agentPolicies'>, ticket: TicketItem, clock: Clock): Promise<boolean> {
  const now = clock.now();
  // The index is eventually consistent: re-check the item itself.
  if (!ticket.claimedById || hasLiveClaim(ticket, now)) return false;
  const ctx = systemContext(clock, org);
  const effects = lapsedClaimEffects(ticket, now, { quarantineAfter: quarantineAfterOf(org) });
  const after = { ...withoutClaim(ticket), ...effects.fields };
  try {
    await saveTicket(ctx, {
      before: ticket,
      after: { ...after, updatedAt: ticket.updatedAt },
      related: effects.related,
      timeline: effects.timeline,
      events: effects.events,
    });
    publishMetrics({ ClaimsExpired: 1 });
    return true;
  } catch (error) {
    // Renewed or changed meanwhile: left alone (the next run sees the new state).
    if (error instanceof LostRace) return false;
    throw error;
  }
}

/**
 * What a sweep covers: the whole deployment (the schedule), or one organization (tests that
 * drive the sweeper with a clock in the future, so they never touch other organizations' claims).
 */
export interface SweepScope {
  orgId?: string;
}

/** The sweeper task: clears every lapsed claim (of the scope); returns how many it cleared. */
export async function sweepLapsedClaims(clock: Clock, scope: SweepScope = {}): Promise<number> {
  // One organization's lapsed claims come from its own index (byOrgClaimExpiry), the deployment's from the sharded one.
  const lapsed = scope.orgId ? await lapsedClaimsOfOrganization(scope.orgId, clock.now()) : await lapsedClaims(clock.now());
  let cleared = 0;
  // Each organization's policies (quarantine) read once per sweep, for the organizations with a lapse.
  const organizations = new Map<string, Promise<OrganizationItem | null>>();
  const organizationOf = (orgId: string) => {
    if (!organizations.has(orgId)) organizations.set(orgId, db().entities.organization.get({ orgId }).go().then((result) => result.data as OrganizationItem | null));
    return organizations.get(orgId)!;
  };
  for (const ticket of lapsed) {
    // The GSI copy may be stale: read the ticket itself before deciding.
    const [current, org] = await Promise.all([
      db().entities.ticket.get({ ticketId: ticket.ticketId }).go({ consistent: true }).then((result) => result.data as TicketItem | null),
      organizationOf(ticket.orgId),
    ]);
    if (!current) continue;
    try {
      if (await expireClaim(org ?? { orgId: current.orgId }, current, clock)) cleared++;
    } catch (error) {
      log.error('claim expiry failed', { ticketId: ticket.ticketId, orgId: ticket.orgId }, error);
    }
  }
  return cleared;
}
