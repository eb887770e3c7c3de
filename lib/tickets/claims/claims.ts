import { AppError, forbidden } from '../../core/errors.js';
import { AlreadyClaimed, ClaimLimitReached, ClaimRefused } from './refusals.js';
import type { DomainContext } from '../../db/context.js';
import { addSeconds } from '../../core/clock.js';
import type { BoardItem, TicketItem } from '../../db/entities/index.js';
import { DEFAULT_MAX_CONCURRENT_CLAIMS } from '../../db/entities/index.js';
import { guarded, type TransactionEntities } from '../../db/transact.js';
import { LostRace, retryLostRaces } from '../../db/races.js';
import { agentPoliciesOf, requirePermission } from '../../organizations/index.js';
import { loadTicketOnBoard, loadTicketWithConfig, type TicketOnBoard } from '../access.js';
import type { OrgConfig } from '../config.js';
import { baseTicketData } from '../events.js';
import { presentLease } from '../present.js';
import { updateTicket } from '../update.js';
import { saveTicket } from '../write.js';
import { expireClaim } from './expiry.js';
import { claimsHeldBy } from '../record/claim-reads.js';
import { hasLiveClaim, lapseRun, lapsedClaimEffects, releasedClaimEffects, withoutClaim, fenceRefusal } from '../record/lease.js';
import { publishMetrics } from '../../core/telemetry.js';
import { activityDelta } from '../../activity/index.js';
import { isReady } from '../record/readiness.js';
import { heartbeatDelivery } from './directives.js';
import { directiveOf } from '../directive-view.js';
import { assertDispatchOpen } from './dispatch.js';
import { assertBudgetLeft, usageEffects, warnOfBudgets, type UsageInput } from './spend.js';
import { latestHandoffOf, presentHandoff, type HandoffView } from './handoffs.js';
import type { HandoffInput } from '../record/handoffs.js';

/** Lease bounds of docs/claims.md (seconds): out-of-range values are clamped, not refused. */
export const MIN_LEASE_SECONDS = 60;
export const MAX_LEASE_SECONDS = 14_400;
export const DEFAULT_LEASE_SECONDS = 1800;

export const clampLease = (seconds: number | undefined): number =>
  Math.min(MAX_LEASE_SECONDS, Math.max(MIN_LEASE_SECONDS, Math.round(seconds ?? DEFAULT_LEASE_SECONDS)));

/** An agent's concurrent-claim maximum; null for people (never limited). */
export function claimLimitOf(ctx: DomainContext): number | null {
  if (!ctx.actor.agent) return null;
  return ctx.actor.agent.maxConcurrentClaims ?? ctx.org.defaultMaxConcurrentClaims ?? DEFAULT_MAX_CONCURRENT_CLAIMS;
}

export const alreadyClaimed = (ticket: TicketItem): AppError => new AlreadyClaimed({ id: ticket.claimedById, name: ticket.claimedByName ?? '' }, ticket.claimExpiresAt);

/** A heartbeat or release under a named claim answers precisely whether that claim lapsed or was superseded. */
function throwIfFencedOut(ctx: DomainContext, ticket: TicketItem, now: Date): void {
  if (ctx.claimFence === undefined) return;
  const refusal = fenceRefusal(ticket, ctx.actor.userId, ctx.claimFence, now);
  if (refusal) throw refusal;
}

/** The ticket left the ready queue after too many lapses in a row: a person lifts the quarantine first. */
export const quarantined = (ticket: TicketItem): AppError =>
  new ClaimRefused('TICKET_QUARANTINED', 'This ticket is quarantined after its leases lapsed too often in a row; a person must lift the quarantine', {
    since: ticket.quarantinedAt,
    lapses: ticket.quarantineLapses,
  });

const claimNotHeld = (): AppError => new AppError('CLAIM_NOT_HELD', 'You hold no live claim on this ticket; claim it again');
/** The failure of the slot counter's guard: the agent holds its maximum (the held tickets named by `withClaimSlot`). */
const slotsFull = (max: number, heldTicketIds?: string[]): AppError => new ClaimLimitReached(max, heldTicketIds);
const isClaimLimit = (error: unknown): boolean => error instanceof ClaimLimitReached;

export interface ClaimInput {
  leaseSeconds?: number;
  assign?: boolean;
}

/**
 * POST .../claim (docs/claims.md; the API reference): takes a lease on a ticket, or extends the caller's own
 * live lease (alreadyHeld). The claim is part of the ticket, so the ticket's version guard
 * makes it exclusive; an agent's slot counter changes in the same transaction, so the
 * per-agent maximum holds exactly under concurrency. A lapsed claim (swept or not) is free.
 */
export async function claimTicket(ctx: DomainContext, boardId: string, ticketId: string, input: ClaimInput) {
  try {
    const result = await takeClaim(ctx, boardId, ticketId, input);
    if (!result.alreadyHeld) publishMetrics({ ClaimsTaken: 1 });
    return result;
  } catch (error) {
    // Refused because someone else holds it, or the agent holds its maximum: the contention operators watch.
    if (error instanceof AlreadyClaimed || error instanceof ClaimLimitReached) publishMetrics({ ClaimsRefused: 1 }, { reason: error.code });
    throw error;
  }
}

async function takeClaim(ctx: DomainContext, boardId: string, ticketId: string, input: ClaimInput) {
  requirePermission(ctx, 'tickets:edit');
  const terms: ClaimTerms = { leaseSeconds: clampLease(input.leaseSeconds), assign: input.assign ?? false, limit: claimLimitOf(ctx) };
  return withClaimSlot(ctx, terms.limit, () => retryLostRaces(() => claimOnce(ctx, boardId, ticketId, terms)));
}

/** What one claim asks for: the lease, whether to assign, the agent's maximum (null: not limited). */
export interface ClaimTerms {
  leaseSeconds: number;
  assign: boolean;
  limit: number | null;
  /** Claim only if the ticket is ready work (claim-next): NotReady otherwise. */
  requireReady?: OrgConfig;
  /**
   * The ticket as claim-next read it from the ready queue (the index projects the whole item)
   * and its board: the claim is decided from it with no read of its own, and the version it
   * carries guards the write (LostRace if the ticket changed since the index showed it).
   */
  seen?: { ticket: TicketItem; board: BoardItem };
}

/**
 * Runs a claim; when the agent's slots are full, reads the claims it holds (one byClaimHolder
 * Query): it is refused, naming them, only when its live claims fill the maximum. Otherwise a
 * lapsed but unswept claim still holds a slot, so its own lapsed claims are cleared (as the
 * sweeper would) and the claim is tried again. Another lease of the same agent may lapse
 * meanwhile (its other workers run concurrently), so this repeats, a few times at most.
 */
export async function withClaimSlot<T>(ctx: DomainContext, limit: number | null, attempt: () => Promise<T>): Promise<T> {
  for (let round = 0; ; round += 1) {
    try {
      return await attempt();
    } catch (error) {
      if (!isClaimLimit(error) || limit === null) throw error;
    }
    const now = ctx.clock.now();
    const held = await claimsHeldBy(ctx.org.orgId, ctx.actor.userId);
    const live = held.filter((ticket) => hasLiveClaim(ticket, now));
    if (live.length >= limit || round === SLOT_ROUNDS - 1) throw slotsFull(limit, live.map((ticket) => ticket.ticketId));
    // Fewer live claims than the maximum: clear the lapsed ones, or (none left) one was released
    // or taken over meanwhile, freeing its slot; either way, once more.
    for (const ticket of held) if (!hasLiveClaim(ticket, now)) await expireClaim(ctx.org, ticket, ctx.clock);
  }
}

/** How many times a claim refused for a full slot counter is tried again while live claims leave room. */
const SLOT_ROUNDS = 4;

/** Claim-next's candidate stopped being ready work between the queue read and the claim. */
export class NotReady extends Error {}

/** One claim decided from one consistent read of the ticket (its version guards the write). */
export async function claimOnce(ctx: DomainContext, boardId: string, ticketId: string, terms: ClaimTerms) {
  const { leaseSeconds, assign, limit } = terms;
  // The organization's configuration is needed only to assign (reference checks in updateTicket) or judge readiness.
  // The ticket's latest handoff is read beside it: every claim answer carries it.
  // A ticket seen in the ready queue names its latest handoff, if it has any (lastHandoffId): read only then.
  const { seen } = terms;
  const [loaded, latestHandoff]: [TicketOnBoard & { config?: OrgConfig }, HandoffView | null] = await Promise.all([
    seen
      ? { ...seen, config: terms.requireReady }
      : terms.requireReady
        ? loadTicketOnBoard(ctx, boardId, ticketId).then((found) => ({ ...found, config: terms.requireReady }))
        : assign
          ? loadTicketWithConfig(ctx, boardId, ticketId)
          : loadTicketOnBoard(ctx, boardId, ticketId),
    seen && !seen.ticket.lastHandoffId ? null : latestHandoffOf(ctx, ticketId),
  ]);
  const { ticket, config } = loaded;
  // The handoff was read beside the ticket: when the ticket names a later one (a lease ended
  // between the two reads), it is read again, so the answer never misses the latest handoff.
  const handoffBefore = ticket.lastHandoffId && ticket.lastHandoffId !== latestHandoff?.id ? await latestHandoffOf(ctx, ticketId) : latestHandoff;
  if (terms.requireReady && !isReady(ticket, terms.requireReady, ctx.clock.now())) throw new NotReady();
  if (ticket.statusCategory === 'FINAL' || (config && config.status(ticket.statusId)?.category === 'FINAL')) {
    // Its own code, so an agent knows to move on rather than retry.
    throw new ClaimRefused('TICKET_NOT_CLAIMABLE', 'A ticket in a final status cannot be claimed', { statusId: ticket.statusId, category: 'FINAL' });
  }
  const nowDate = ctx.clock.now();
  const now = nowDate.toISOString();
  const me = ctx.actor.userId;
  const live = hasLiveClaim(ticket, nowDate);
  if (ticket.quarantinedAt) throw quarantined(ticket);
  // A lapsed lease whose end quarantines the ticket is ended as the sweeper would end it, and the ticket is not claimed.
  const quarantineAfter = agentPoliciesOf(ctx.org).quarantineAfterLapses;
  if (ticket.claimedById && !live && lapseRun(ticket, quarantineAfter).quarantines) {
    if (!(await expireClaim(ctx.org, ticket, ctx.clock))) throw new LostRace('The ticket changed concurrently; retry');
    throw quarantined({ ...ticket, quarantinedAt: now, quarantineLapses: lapseRun(ticket, quarantineAfter).lapses });
  }
  if (live && ticket.claimedById !== me) throw alreadyClaimed(ticket);
  const alreadyHeld = live && ticket.claimedById === me;
  // The breaker gives agents no new lease (a lease held is renewed); people are never held by it.
  if (!alreadyHeld && ctx.actor.isAgent) {
    assertDispatchOpen(ctx, loaded.board);
    // A spent month budget (the agent's or the board's) gives no new lease; one is read only where a budget is set
    // (claim-next judged the budgets of every board it reads before it read them).
    if (!terms.requireReady) await assertBudgetLeft(ctx, loaded.board);
  }
  const previousHolder = ticket.claimedById;
  const claimCount = (ticket.claimCount ?? 0) + (alreadyHeld ? 0 : 1);
  const claim: Partial<TicketItem> = {
    claimedById: me,
    // The holder is named as itself (the agent's or person's name); the client beside it (display metadata).
    claimedByName: ctx.actor.name,
    claimedByIsAgent: ctx.actor.isAgent,
    claimedAt: alreadyHeld ? ticket.claimedAt ?? now : now,
    claimExpiresAt: addSeconds(nowDate, leaseSeconds).toISOString(),
    claimCount,
  };
  if (ctx.actor.agent?.ownerId) claim.claimAgentOwnerId = ctx.actor.agent.ownerId;
  const client = ctx.actor.credential.clientLabel;
  if (client) claim.claimClient = client;
  const remove: (keyof TicketItem)[] = [];
  if (!client) remove.push('claimClient');
  if (!ctx.actor.agent?.ownerId) remove.push('claimAgentOwnerId');
  // What people asked of a lease ends with it: a new lease starts with no directive and no note waiting.
  if (!alreadyHeld) remove.push('claimHeartbeatAt', 'claimNote', 'claimDirective', 'claimMessages');
  else if (ticket.claimHeartbeatAt) claim.claimHeartbeatAt = ticket.claimHeartbeatAt;
  // Renewing a lease asked to stop does not carry it past the stop's deadline.
  const stopDeadline = alreadyHeld ? directiveOf(ticket)?.stopDeadline : undefined;
  if (stopDeadline && stopDeadline < claim.claimExpiresAt!) claim.claimExpiresAt = stopDeadline;

  // A new claim by an agent takes a slot, unless it replaces its own lapsed claim (which holds one).
  const takesSlot = !alreadyHeld && limit !== null && previousHolder !== me;
  // A lapsed lease this claim replaces (the sweeper has not cleared it yet) ends here as expired.
  // A new lease by an agent counts in its claimsTaken of the day (the fleet's "claims, 7 days"); taking
  // back its own lapsed lease counts in the same update as that lapse.
  const countsTaken = !alreadyHeld && ctx.actor.isAgent;
  const retakesOwnLapse = previousHolder === me && !live && ticket.claimedByIsAgent === true;
  const lapsed =
    previousHolder && !live
      ? lapsedClaimEffects(ticket, nowDate, { keepSlot: previousHolder === me, quarantineAfter, ...(countsTaken && retakesOwnLapse ? { holderCounters: { claimsTaken: 1 } } : {}) })
      : undefined;
  if (lapsed) Object.assign(claim, lapsed.fields);
  const related = (e: TransactionEntities) => [
    ...(countsTaken && !retakesOwnLapse ? [activityDelta(e, ctx.org.orgId, me, nowDate, { claimsTaken: 1 })] : []),
    ...(takesSlot
      ? [
          guarded(
            e.claimSlots
              .update({ orgId: ctx.org.orgId, agentId: me })
              .add({ held: 1 })
              .where((attr, op) => `${op.notExists(attr.held)} OR ${op.lt(attr.held, limit!)}`)
              .commit(),
            () => slotsFull(limit!),
          ),
        ]
      : []),
    ...(lapsed?.related(e) ?? []),
  ];
  const events = alreadyHeld
    ? []
    : [...(lapsed?.events ?? []), { type: 'ticket.claimed', data: { ...baseTicketData(ticket), claimedById: me, claimExpiresAt: claim.claimExpiresAt, claimCount } }];
  const timeline = alreadyHeld
    ? []
    : [
        ...(lapsed?.timeline ?? []),
        { kind: 'CLAIMED' as const, details: { claimedById: me, claimedByName: claim.claimedByName, client: claim.claimClient ?? null, claimExpiresAt: claim.claimExpiresAt, claimCount } },
      ];
  const assigned = assign && !ticket.assigneeId;
  let saved: TicketItem;
  if (assigned && config) {
    saved = await updateTicket(ctx, { board: loaded.board, ticket, config }, { assigneeId: me }, { extra: claim, remove, related, events, timeline });
  } else {
    const after = { ...ticket, ...claim } as TicketItem;
    for (const field of remove) delete after[field];
    saved = await saveTicket(ctx, { before: ticket, after, related, events, timeline });
  }
  if (lapsed) publishMetrics({ ClaimsExpired: 1 });
  return {
    ticket: { id: saved.ticketId, displayId: saved.displayId, title: saved.title, boardId: saved.boardId, statusId: saved.statusId, assigneeId: saved.assigneeId ?? null },
    claim: presentLease(saved),
    alreadyHeld,
    assigned,
    // A lapsed lease this claim ended left a handoff just now: that is the latest.
    handoff: lapsed?.handoff ? presentHandoff(lapsed.handoff) : handoffBefore,
  };
}

/** POST .../claim/heartbeat: pushes the caller's live lease to now + extendSeconds, keeping its latest progress note. */
export async function heartbeatClaim(ctx: DomainContext, boardId: string, ticketId: string, input: { extendSeconds?: number; note?: string; usage?: UsageInput }) {
  requirePermission(ctx, 'tickets:edit');
  const extendSeconds = clampLease(input.extendSeconds);
  let onBoard!: BoardItem;
  const beat = await retryLostRaces(async () => {
    const { ticket, board } = await loadTicketOnBoard(ctx, boardId, ticketId);
    onBoard = board;
    const nowDate = ctx.clock.now();
    throwIfFencedOut(ctx, ticket, nowDate);
    if (!hasLiveClaim(ticket, nowDate)) throw claimNotHeld();
    if (ticket.claimedById !== ctx.actor.userId) throw alreadyClaimed(ticket);
    // What people asked of the holder rides on this write: delivered once, a stop's deadline kept.
    const delivery = heartbeatDelivery(ticket, addSeconds(nowDate, extendSeconds).toISOString());
    const after: TicketItem = {
      ...ticket,
      claimExpiresAt: delivery.claimExpiresAt,
      claimHeartbeatAt: nowDate.toISOString(),
      // The lease's latest progress note: handed on if the lease lapses.
      ...(input.note !== undefined ? { claimNote: input.note } : {}),
    };
    for (const field of delivery.remove) delete after[field];
    // Usage reported with the heartbeat is added to the lease's ticket in this same write.
    const spent = input.usage ? usageEffects(ctx, ticket, board, input.usage, false, nowDate) : undefined;
    const usage = input.usage;
    const saved = await saveTicket(ctx, {
      before: ticket,
      after: { ...after, ...spent?.fields },
      ...(spent && usage ? { related: (e: TransactionEntities) => [...spent.related(e), activityDelta(e, ctx.org.orgId, ctx.actor.userId, nowDate, { costMicros: usage.costMicros })] } : {}),
    });
    return { ...presentLease(saved), ...delivery.answer };
  });
  if (input.usage) await warnOfBudgets(ctx, onBoard);
  return beat;
}

/**
 * DELETE .../claim: hands a live lease back, with the handoff the next holder starts from.
 * Allowed for the holder, the holding agent's owner and administrators; a denyDelete token may
 * release only its own claim (docs/agents.md).
 */
export async function releaseClaim(ctx: DomainContext, boardId: string, ticketId: string, input: { reason?: string; handoff?: HandoffInput }) {
  requirePermission(ctx, 'tickets:edit');
  return retryLostRaces(async () => {
    const { ticket } = await loadTicketOnBoard(ctx, boardId, ticketId);
    const nowDate = ctx.clock.now();
    throwIfFencedOut(ctx, ticket, nowDate);
    if (!hasLiveClaim(ticket, nowDate)) throw claimNotHeld();
    const holder = ticket.claimedById!;
    const me = ctx.actor.userId;
    if (holder !== me) {
      if (ctx.actor.credential.denyDelete) throw forbidden("This token may release only its own claim", 'PAT_DENY_DELETE');
      const isOwner = !!ticket.claimedByIsAgent && ticket.claimAgentOwnerId === me;
      if (!ctx.actor.isAdmin && !isOwner) throw forbidden('Only the holder, the holding agent\'s owner or an administrator may release this claim');
    }
    const released = releasedClaimEffects(ticket, me, input.reason ?? null, nowDate, input.handoff);
    await saveTicket(ctx, {
      before: ticket,
      after: { ...withoutClaim(ticket), ...released.fields },
      related: released.related,
      timeline: released.timeline,
      events: released.events,
    });
    return { released: true as const };
  });
}
