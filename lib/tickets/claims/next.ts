import { Conflict, NotFound } from '../../core/errors.js';
import { AlreadyClaimed, ClaimLimitReached, ClaimRefused } from './refusals.js';
import type { DomainContext } from '../../db/context.js';
import type { TicketItem } from '../../db/entities/index.js';
import { LostRace, racePauseMs } from '../../db/races.js';
import { canSeeBoard, listOrganizationBoards } from '../../boards/index.js';
import { requirePermission } from '../../organizations/index.js';
import { publishMetrics } from '../../core/telemetry.js';
import { loadOrgConfig } from '../config.js';
import { readyAcceptor, readyTickets, type ReadyFilters } from '../lists/ready.js';
import { callerDispatchPause, type DispatchScope } from './dispatch.js';
import { spentBudgets } from './spend.js';
import { claimLimitOf, claimOnce, clampLease, NotReady, withClaimSlot, type ClaimTerms } from './claims.js';

export interface ClaimNextInput extends ReadyFilters {
  leaseSeconds?: number;
  assign?: boolean;
  boardIds?: string[];
}

/**
 * Refusals of one candidate that send claim-next on to the next one: someone else got there
 * first, it is no longer ready, or it kept changing under us (a plain CONFLICT is what the
 * transaction answers when it kept colliding with other writes of the same items).
 */
const movesOn = (error: unknown): boolean =>
  error instanceof NotReady ||
  error instanceof ClaimRefused ||
  error instanceof NotFound ||
  (error instanceof Conflict && !(error instanceof LostRace));

/** Candidates a contended claim-next draws its next one from, at random. */
const CONTENDED_WINDOW = 32;

/** Queue entries read per board per Query: uncontended, the head and a few behind it (a BLOCKED ticket or a stale entry is passed over)… */
const UNCONTENDED_READ = 5;
/** …contended, the whole window in one read. */
const CONTENDED_READ = CONTENDED_WINDOW + 1;

/** Fresh reads of one candidate after lost races before claim-next moves on to the next. */
const READS_PER_CANDIDATE = 3;

/**
 * POST /api/v1/claims/next: claims for the caller the first ready ticket (lists/ready.ts order)
 * on the boards it may see, narrowed by the filters; null when no ready ticket matches (204).
 * Candidates come from the byReady index, which holds whole tickets: each is claimed from the
 * index's copy with no read of its own, in one transaction guarded by the version the copy
 * carries and the agent's slot counter (a ticket that never had a handoff needs no handoff
 * read). A candidate someone else took, or that stopped being ready, is passed over; one that
 * changed since the index showed it is passed over too, and decided again from fresh reads
 * before claim-next answers that nothing is free. Once a candidate was lost to another agent
 * the next is drawn at random from the following CONTENDED_WINDOW, and this container's
 * claim-nexts of the organization start that way for a while (a fleet is at work). So under
 * contention claim-next moves on and never answers a conflict while a matching ticket is
 * free; its cost follows the contention, not the backlog (docs/fleet.md).
 */
export async function claimNext(ctx: DomainContext, input: ClaimNextInput): Promise<ClaimNextResult> {
  requirePermission(ctx, 'tickets:edit');
  // The organization's breaker or the agent's own: no new work at all, and nothing read.
  const stopped = ctx.actor.isAgent ? callerDispatchPause(ctx) : undefined;
  if (stopped) {
    publishMetrics({ ClaimNextPaused: 1 }, { reason: stopped });
    return { claimed: null, paused: stopped };
  }
  const [boards, config] = await Promise.all([listOrganizationBoards(ctx.org.orgId), loadOrgConfig(ctx.org.orgId)]);
  const wanted = input.boardIds?.length ? new Set(input.boardIds) : undefined;
  const visible = boards.filter((board) => canSeeBoard(ctx.actor, board) && (!wanted || wanted.has(board.boardId)));
  // A paused board's tickets, and those of a board whose month budget is spent, are passed over (for agents); they stay in its queue, untouched.
  const paused = ctx.actor.isAgent ? visible.filter((board) => board.dispatchPaused) : [];
  const spent = ctx.actor.isAgent ? await spentBudgets(ctx, visible.filter((board) => !board.dispatchPaused)) : { agent: false, boardIds: new Set<string>() };
  if (spent.agent) {
    publishMetrics({ ClaimNextPaused: 1 }, { reason: 'budget' });
    return { claimed: null, paused: 'budget' };
  }
  const overBudget = visible.filter((board) => spent.boardIds.has(board.boardId));
  const boardIds = visible.filter((board) => !paused.includes(board) && !overBudget.includes(board)).map((board) => board.boardId);
  const terms: ClaimTerms = { leaseSeconds: clampLease(input.leaseSeconds), assign: input.assign ?? false, limit: claimLimitOf(ctx), requireReady: config };
  const now = ctx.clock.now();
  let contended = contendedLately(ctx.org.orgId, now.getTime());
  const queue = readyTickets(ctx.org.orgId, boardIds, readyAcceptor(config, now, input), now, () => (contended ? CONTENDED_READ : UNCONTENDED_READ))[Symbol.asyncIterator]();
  const boardOf = new Map(visible.map((board) => [board.boardId, board]));
  const take = (candidate: TicketItem, seen: boolean) =>
    withClaimSlot(ctx, terms.limit, () => claimOnce(ctx, candidate.boardId, candidate.ticketId, seen ? { ...terms, seen: { ticket: candidate, board: boardOf.get(candidate.boardId)! } } : terms));
  // Uncontended, the first ready ticket is taken. Once a candidate was lost to another agent
  // (in this request, or in this container's last claim-next of the organization, a moment ago),
  // candidates are drawn at random from the next CONTENDED_WINDOW: a fleet asking at once then
  // spreads over the head of the queue instead of every agent trying the same tickets in turn.
  const window: TicketItem[] = [];
  // Candidates that changed since the queue showed them (most often: another agent took them), tried again from fresh reads at the end.
  const changed: TicketItem[] = [];
  let exhausted = false;
  for (;;) {
    // The window is filled when it is empty: the candidates left in it are drawn from first.
    while (!exhausted && window.length < (contended ? CONTENDED_WINDOW : 1)) {
      const next = await queue.next();
      if (next.done) exhausted = true;
      else window.push(next.value);
    }
    if (window.length === 0) break;
    const [candidate] = window.splice(contended ? Math.floor(Math.random() * window.length) : 0, 1) as [TicketItem];
    try {
      // Decided from the queue's own copy of the ticket: no read before the write.
      const claimed = await take(candidate, true);
      publishMetrics({ ClaimsTaken: 1 });
      return { claimed };
    } catch (error) {
      if (!(error instanceof LostRace) && !movesOn(error)) throw refusal(error);
      contended = true;
      if (error instanceof LostRace || error instanceof AlreadyClaimed) rememberContention(ctx.org.orgId, ctx.clock.now().getTime());
      if (error instanceof LostRace) changed.push(candidate);
    }
  }
  // The queue is spent: a candidate that only changed since it was read may still be free. Each is decided from fresh reads.
  for (const candidate of changed) {
    for (let read = 1; ; read += 1) {
      try {
        const claimed = await take(candidate, false);
        publishMetrics({ ClaimsTaken: 1 });
        return { claimed };
      } catch (error) {
        if (movesOn(error)) break;
        if (!(error instanceof LostRace)) throw refusal(error);
        // It changed again between read and write: a few fresh reads, then it is passed over.
        if (read >= READS_PER_CANDIDATE) break;
        await new Promise((resolve) => setTimeout(resolve, racePauseMs(read)));
      }
    }
  }
  publishMetrics({ ClaimNextEmpty: 1 });
  // Nothing ready where dispatch is open: say so when ready work waits on a paused board, or one over budget (the head of their queues read).
  const accept = readyAcceptor(config, now, input);
  if (paused.length > 0 && (await readyWorkWaits(ctx, paused.map((board) => board.boardId), accept, now))) return { claimed: null, paused: 'board' };
  if (overBudget.length > 0 && (await readyWorkWaits(ctx, overBudget.map((board) => board.boardId), accept, now))) return { claimed: null, paused: 'budget' };
  return { claimed: null };
}

/** How long a lost candidate makes this container's next claim-nexts of the organization start spread out (ms). */
const CONTENTION_MEMORY_MS = 10_000;

/** Organizations whose claim-next lost a candidate to another agent in this container, with when (most recent last); a hint, never a rule. */
const contention = new Map<string, number>();

/** Whether a claim-next of this organization lost a candidate here lately: a fleet is taking its work at once. */
function contendedLately(orgId: string, now: number): boolean {
  const at = contention.get(orgId);
  if (at === undefined) return false;
  if (now - at < CONTENTION_MEMORY_MS) return true;
  contention.delete(orgId);
  return false;
}

/** Organizations remembered at most: the oldest is forgotten first. */
const CONTENTION_MEMORY_SIZE = 1_000;

function rememberContention(orgId: string, now: number): void {
  contention.delete(orgId);
  contention.set(orgId, now);
  if (contention.size > CONTENTION_MEMORY_SIZE) contention.delete(contention.keys().next().value!);
}

/** A refusal about the caller, counted where operators watch the claim limit. */
function refusal(error: unknown): unknown {
  if (error instanceof ClaimLimitReached) publishMetrics({ ClaimsRefused: 1 }, { reason: error.code });
  return error;
}

/** What claim-next answers: the claim, or none (204) and, when dispatch is what held work back, which breaker. */
export interface ClaimNextResult {
  claimed: Awaited<ReturnType<typeof claimOnce>> | null;
  paused?: DispatchScope;
}

/** Whether any of these boards has ready work matching the filters (reads the head of each queue). */
async function readyWorkWaits(ctx: DomainContext, boardIds: string[], accept: (ticket: TicketItem) => boolean, now: Date): Promise<boolean> {
  for await (const _ticket of readyTickets(ctx.org.orgId, boardIds, accept, now, UNCONTENDED_READ)) return true;
  return false;
}
