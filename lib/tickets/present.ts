import { directiveOf, presentDirective } from './directive-view.js';
import type { TicketItem } from '../db/entities/index.js';
import type { OrgConfig } from './config.js';
import type { DomainContext } from '../db/context.js';
import type { Claim, FullTicket, Ticket } from './shapes.js';
import { isReady } from './record/readiness.js';

/** The claim block (docs/claims.md) while the lease is live (claimExpiresAt > now), else null. */
export function presentClaim(ticket: TicketItem, now: Date): Claim | null {
  if (!ticket.claimedById || !ticket.claimExpiresAt || Date.parse(ticket.claimExpiresAt) <= now.getTime()) return null;
  return presentLease(ticket);
}

/** The quarantine block of a ticket (null when it is not quarantined): lib/tickets/claims/quarantine.ts. */
export const presentQuarantine = (ticket: TicketItem) => (ticket.quarantinedAt ? { since: ticket.quarantinedAt, lapses: ticket.quarantineLapses ?? 0 } : null);

/** The claim block of a ticket just claimed or renewed, whose lease is live by construction. */
export function presentLease(ticket: TicketItem): Claim {
  return {
    claimedBy: {
      id: ticket.claimedById!,
      name: ticket.claimedByName ?? '',
      isAgent: ticket.claimedByIsAgent ?? false,
      agentOwnerId: ticket.claimAgentOwnerId ?? null,
    },
    claimedAt: ticket.claimedAt ?? ticket.claimExpiresAt!,
    claimExpiresAt: ticket.claimExpiresAt!,
    claimHeartbeatAt: ticket.claimHeartbeatAt ?? null,
    claimCount: ticket.claimCount ?? 0,
    client: ticket.claimClient ?? null,
    directive: presentDirective(directiveOf(ticket)),
  };
}

/**
 * The ticket as the API shows it (the API reference): the list item fields, the settable fields and
 * the claim block (null until claims exist, and whenever a lease has lapsed).
 */
export function presentTicket(ticket: TicketItem, config: OrgConfig, now: Date): Ticket {
  const status = config.status(ticket.statusId);
  const type = config.shownType(ticket.typeId);
  return {
    id: ticket.ticketId,
    displayId: ticket.displayId,
    boardId: ticket.boardId,
    title: ticket.title,
    description: ticket.description,
    status: { id: ticket.statusId, name: status?.name ?? '', category: status?.category ?? 'ACTIVE', color: status?.color ?? '#9E9E9E' },
    priority: ticket.priority,
    assignee: ticket.assigneeId ? { id: ticket.assigneeId, name: ticket.assigneeName ?? '' } : null,
    type: { id: type?.typeId ?? ticket.typeId, name: type?.name ?? '' },
    labels: (ticket.labelIds ?? [])
      .map((labelId) => config.label(labelId))
      .filter((label) => label !== undefined)
      .map((label) => ({ id: label.labelId, name: label.name, color: label.color })),
    customerId: ticket.customerId ?? null,
    dueDate: ticket.dueDate ?? null,
    startDate: ticket.startDate ?? null,
    estimatedHours: ticket.estimatedHours ?? null,
    timeSpent: ticket.timeSpent ?? null,
    storyPoints: ticket.storyPoints ?? null,
    externalReference: ticket.externalReference ?? null,
    impactLevel: ticket.impactLevel ?? null,
    // A milestone being deleted is gone from reads at once, before its clearing job reaches the ticket.
    milestoneId: milestoneOf(ticket, config)?.id ?? null,
    resolution: ticket.resolution ?? null,
    resolutionType: ticket.resolutionType ?? null,
    isArchived: ticket.isArchived,
    position: ticket.position,
    parentTicketId: ticket.parentTicketId ?? null,
    needsReassignment: ticket.needsReassignment,
    statusChangeReason: ticket.statusChangeReason ?? null,
    claim: presentClaim(ticket, now),
    createdAt: ticket.createdAt,
    updatedAt: ticket.updatedAt,
    openBlockerCount: ticket.openBlockerCount ?? 0,
    isReady: isReady(ticket, config, now),
    quarantine: presentQuarantine(ticket),
  };
}

/** Secret comments are for the organization's people and agents, never for customer users. */
export const maySeeSecretComments = (ctx: Pick<DomainContext, 'actor'>): boolean => ctx.actor.role !== 'CUSTOMER';

/** The full ticket (GET one): adds counts, custom field values, blocker info and subticket ids. */
export function presentFullTicket(ticket: TicketItem, config: OrgConfig, ctx: Pick<DomainContext, 'clock' | 'actor'>): FullTicket {
  const values = (ticket.customFieldValues ?? {}) as Record<string, string>;
  return {
    ...presentTicket(ticket, config, ctx.clock.now()),
    // Customer users never learn that secret comments exist, not even from the count.
    commentCount: maySeeSecretComments(ctx) ? ticket.commentCount : ticket.commentCount - (ticket.secretCommentCount ?? 0),
    attachmentCount: 0,
    subticketIds: ticket.subticketIds ?? [],
    milestone: milestoneOf(ticket, config),
    blockerInfo: ticket.blockerInfo ?? null,
    customFieldValues: Object.entries(values)
      .map(([customFieldId, value]) => ({ customFieldId, name: config.customField(customFieldId)?.name ?? '', value }))
      .filter((entry) => config.customField(entry.customFieldId) !== undefined),
    spend: ctx.actor.role === 'CUSTOMER' ? null : presentSpend(ticket),
  };
}

/** The ticket's spend block (lib/tickets/claims/spend.ts adds to it). */
const presentSpend = (ticket: TicketItem) => ({
  costMicros: ticket.spendCostMicros ?? 0,
  inputTokens: ticket.spendInputTokens ?? 0,
  outputTokens: ticket.spendOutputTokens ?? 0,
  runs: ticket.spendRuns ?? 0,
});

/** The ticket's milestone as the full ticket names it (from the configuration already read). */
function milestoneOf(ticket: TicketItem, config: OrgConfig): { id: string; name: string } | null {
  const milestone = ticket.milestoneId ? config.milestone(ticket.milestoneId) : undefined;
  return milestone && milestone.boardId === ticket.boardId ? { id: milestone.milestoneId, name: milestone.name } : null;
}
