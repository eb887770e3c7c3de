import { AppError } from '../../core/errors.js';
import { notificationPut } from '../../notifications/index.js';
import type { ActivityCounter, HandoffItem, TicketItem } from '../../db/entities/index.js';
import type { TransactionEntities, TransactionItem } from '../../db/transact.js';
import type { EventInput } from '../../events/index.js';
import { activityDelta } from '../../activity/index.js';
import { baseTicketData } from '../events.js';
import { releaseSlot } from './slots.js';
import { handoffPut, newHandoff, type HandoffInput } from './handoffs.js';

/**
 * What a lease is and how one ends. A claim lives on its ticket (the claim attributes below);
 * every lease ends in exactly one of two ways, each with its own effects written in the same
 * transaction as the ticket: released (by its holder, the holder's owner, an administrator, or
 * the ticket entering a FINAL status or being deleted) or expired (lapsed, then swept or taken
 * over). The ticket write path (tickets/write.ts) and the claim routes share these functions.
 */

/** The claim attributes of a ticket (removed together when a claim ends). */
export const CLAIM_ATTRIBUTES = [
  'claimedById', 'claimedByName', 'claimClient', 'claimedByIsAgent', 'claimAgentOwnerId', 'claimedAt', 'claimExpiresAt', 'claimHeartbeatAt', 'claimNote',
  'claimDirective', 'claimMessages',
] as const satisfies readonly (keyof TicketItem)[];

/** The ticket without its claim (claimCount, the fencing number, is kept). */
export function withoutClaim(ticket: TicketItem): TicketItem {
  const next = { ...ticket };
  for (const field of CLAIM_ATTRIBUTES) delete next[field];
  return next;
}

/**
 * Fencing: a write made under the claim numbered `fence` stands only while that is the
 * ticket's live claim of the writer, so an agent that lost its lease (lapsed, released, taken
 * over) cannot overwrite its successor's work. Undefined when the write may go on; otherwise
 * CLAIM_NOT_HELD when the writer's own lease merely lapsed with nobody after it, and
 * CLAIM_SUPERSEDED when the ticket was claimed again or is held by another.
 */
export function fenceRefusal(ticket: TicketItem, writerId: string, fence: number, now: Date): AppError | undefined {
  const live = hasLiveClaim(ticket, now);
  if (live && ticket.claimedById === writerId && (ticket.claimCount ?? 0) === fence) return undefined;
  if (!live && (ticket.claimCount ?? 0) === fence && (!ticket.claimedById || ticket.claimedById === writerId)) {
    return new AppError('CLAIM_NOT_HELD', 'Your claim on this ticket has ended; claim it again', { claimCount: fence });
  }
  return new AppError('CLAIM_SUPERSEDED', 'Your claim on this ticket was superseded; stop working on it', { claimCount: fence, currentClaimCount: ticket.claimCount ?? 0 });
}

/** A fenced write's check before it writes: throws the precise refusal when the writer's claim is not that live lease. */
export function assertFence(ctx: { claimFence?: number; actor: { userId: string }; clock: { now(): Date } }, ticket: TicketItem): void {
  if (ctx.claimFence === undefined) return;
  const refusal = fenceRefusal(ticket, ctx.actor.userId, ctx.claimFence, ctx.clock.now());
  if (refusal) throw refusal;
}

/**
 * The condition that keeps a fenced write's check true at commit, for a write (or a check) of
 * the ticket item in the same transaction: the ticket still carries the writer's lease numbered
 * `fence`, live now. Empty when the write is not fenced. A failure is a lost race: the writer
 * reads again, and `assertFence` then answers precisely.
 */
export function fenceCondition(ctx: { claimFence?: number; actor: { userId: string }; clock: { now(): Date } }) {
  const fence = ctx.claimFence;
  // biome-ignore lint/suspicious/noExplicitAny: ElectroDB's where-callback attributes of the ticket entity
  return (attr: any, op: any): string =>
    fence === undefined
      ? ''
      : `${op.eq(attr.claimCount, fence)} AND ${op.eq(attr.claimedById, ctx.actor.userId)} AND ${op.gt(attr.claimExpiresAt, ctx.clock.now().toISOString())}`;
}

/** Whether the ticket holds a live lease (docs/claims.md): claimExpiresAt > now, at read time. */
export function hasLiveClaim(ticket: TicketItem, now: Date): boolean {
  const expiresAt = ticket.claimExpiresAt;
  return !!ticket.claimedById && expiresAt !== undefined && Date.parse(expiresAt) > now.getTime();
}

/** The effects of one lease's end, added to the ticket write that ends it. */
export interface ClaimEndEffects {
  related: (e: TransactionEntities) => TransactionItem[];
  timeline: { kind: 'CLAIM_RELEASED' | 'CLAIM_EXPIRED' | 'HANDOFF' | 'QUARANTINED'; details: Record<string, unknown> }[];
  events: EventInput[];
  /** The handoff the lease left, if any. */
  handoff?: HandoffItem;
  /** What the ticket item itself records of the end: the id of the handoff it left, the run of lapses, a quarantine. */
  fields: Partial<TicketItem>;
  /** The lapse quarantined the ticket. */
  quarantines?: boolean;
}

/** The handoff's own effects: its item and a HANDOFF timeline entry. */
const handoffEffects = (handoff: HandoffItem | undefined) => ({
  related: (e: TransactionEntities) => (handoff ? [handoffPut(e, handoff)] : []),
  timeline: handoff ? [{ kind: 'HANDOFF' as const, details: { handoffId: handoff.handoffId, auto: handoff.auto, claimCount: handoff.claimCount } }] : [],
});

/**
 * A live lease handed back: the agent's slot freed, a CLAIM_RELEASED timeline note with the
 * reason, ticket.claim_released (docs/webhooks.md) naming the handoff the holder left (`handoffId`,
 * null without one), and that handoff.
 */
export function releasedClaimEffects(ticket: TicketItem, releasedById: string, reason: string | null, now: Date, handoffInput?: HandoffInput): ClaimEndEffects {
  const holder = ticket.claimedById!;
  const handoff = handoffInput ? newHandoff(ticket, now, handoffInput) : undefined;
  const left = handoffEffects(handoff);
  return {
    related: (e) => [...(ticket.claimedByIsAgent ? [releaseSlot(e, ticket.orgId, holder)] : []), ...left.related(e)],
    timeline: [{ kind: 'CLAIM_RELEASED', details: { previousClaimedById: holder, releasedById, reason } }, ...left.timeline],
    events: [{ type: 'ticket.claim_released', data: { ...baseTicketData(ticket), releasedById, previousClaimedById: holder, reason, handoffId: handoff?.handoffId ?? null } }],
    ...(handoff ? { handoff } : {}),
    // A lease handed back ends a run of lapses (quarantine counts lapses in a row).
    fields: { ...(handoff ? { lastHandoffId: handoff.handoffId } : {}), ...(ticket.consecutiveLapses ? { consecutiveLapses: 0 } : {}) },
  };
}

/**
 * What ending a lapsed lease adds to the ticket write that clears or replaces it: the agent's
 * slot freed (unless the same agent takes the ticket again, keeping its slot), the agent's
 * claimsExpired counter of the day (with `holderCounters`: an agent taking its own lapsed lease again counts the new one there), TICKET_CLAIM_EXPIRED notifications to the assignee and
 * the agent's owner, a CLAIM_EXPIRED timeline note and ticket.claim_expired. Shared by the
 * sweeper and by a claim that takes over a lapsed, not yet swept lease, so every lease ends
 * with exactly one of ticket.claim_released or ticket.claim_expired.
 */
export function lapsedClaimEffects(ticket: TicketItem, now: Date, options: LapseOptions = {}): ClaimEndEffects {
  const holder = ticket.claimedById!;
  const isAgent = ticket.claimedByIsAgent === true;
  const recipients = [...new Set([ticket.assigneeId, isAgent ? ticket.claimAgentOwnerId : undefined].filter((id): id is string => !!id))];
  // The lapsed lease hands on what it last said (its note and heartbeat): the next holder does not start from zero.
  const handoff = newHandoff(ticket, now);
  const left = handoffEffects(handoff);
  const run = lapseRun(ticket, options.quarantineAfter ?? 0);
  const since = now.toISOString();
  return {
    handoff,
    quarantines: run.quarantines,
    fields: { lastHandoffId: handoff.handoffId, consecutiveLapses: run.lapses, ...(run.quarantines ? { quarantinedAt: since, quarantineLapses: run.lapses } : {}) },
    related: (e: TransactionEntities) => [
      ...left.related(e),
      ...(run.quarantines ? [e.quarantineEntry.put({ orgId: ticket.orgId, ticketId: ticket.ticketId, boardId: ticket.boardId, since, lapses: run.lapses }).commit()] : []),
      ...(isAgent && !options.keepSlot ? [releaseSlot(e, ticket.orgId, holder)] : []),
      ...recipients.map((userId) =>
        notificationPut(
          e,
          {
            orgId: ticket.orgId,
            userId,
            type: 'TICKET_CLAIM_EXPIRED',
            data: { ticketId: ticket.ticketId, boardId: ticket.boardId, displayId: ticket.displayId, title: ticket.title },
          },
          now,
        ),
      ),
      // The holder's counters of the day in one update (a transaction may not touch an item twice): its lapse, and what the caller adds for it.
      ...(isAgent ? [activityDelta(e, ticket.orgId, holder, now, { claimsExpired: 1, ...options.holderCounters })] : []),
    ],
    timeline: [
      { kind: 'CLAIM_EXPIRED' as const, details: { previousClaimedById: holder, claimExpiresAt: ticket.claimExpiresAt } },
      ...left.timeline,
      ...(run.quarantines ? [{ kind: 'QUARANTINED' as const, details: { lapses: run.lapses } }] : []),
    ],
    events: [
      { type: 'ticket.claim_expired', data: { ...baseTicketData(ticket), previousClaimedById: holder, claimExpiresAt: ticket.claimExpiresAt, handoffId: handoff.handoffId } },
      ...(run.quarantines ? [{ type: 'ticket.quarantined', data: { ...baseTicketData(ticket), lapses: run.lapses } }] : []),
    ],
  };
}

export interface LapseOptions {
  keepSlot?: boolean;
  holderCounters?: Partial<Record<ActivityCounter, number>>;
  /** The organization's `quarantineAfterLapses` (0 or unset: never quarantine; a finished ticket passes 0). */
  quarantineAfter?: number;
}

/**
 * Quarantine (docs/fleet-control.md): the lapses in a row this lapse makes, and whether they
 * reach the organization's limit. A lease that ran out after a person asked it to stop is not the
 * ticket's failure: it neither counts nor quarantines.
 */
export function lapseRun(ticket: TicketItem, quarantineAfter: number): { lapses: number; quarantines: boolean } {
  const stopped = (ticket.claimDirective as { action?: string } | undefined)?.action === 'stop';
  const lapses = (ticket.consecutiveLapses ?? 0) + (stopped ? 0 : 1);
  return { lapses, quarantines: !stopped && quarantineAfter > 0 && lapses >= quarantineAfter && !ticket.quarantinedAt };
}

/**
 * A ticket that enters a FINAL status or is deleted ends the claim it carries in the same
 * write, so a finished ticket never holds an agent's slot (docs/claims.md). Returns the
 * reason recorded with the release, or undefined when the write ends no claim.
 */
export function claimEndReason(before: TicketItem | undefined, after: TicketItem): string | undefined {
  if (!before || !after.claimedById) return undefined;
  if (after.isDeleted && !before.isDeleted) return 'ticket deleted';
  if (after.statusCategory === 'FINAL' && before.statusCategory !== 'FINAL') return 'ticket completed';
  return undefined;
}

/** Ends whatever lease the ticket carries: a live one is released by `actorId`, a lapsed one expires. */
export function endedClaimEffects(ticket: TicketItem, now: Date, actorId: string, reason: string): ClaimEndEffects {
  if (hasLiveClaim(ticket, now)) return releasedClaimEffects(ticket, actorId, reason, now);
  // A finished (or deleted) ticket ends its run of lapses: it is never quarantined for them.
  const lapsed = lapsedClaimEffects(ticket, now);
  return { ...lapsed, fields: { ...lapsed.fields, consecutiveLapses: 0 } };
}
