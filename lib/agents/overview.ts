import type { DomainContext } from '../db/context.js';
import { db } from '../db/service.js';
import { isOrgSubject, type ActivityDayItem, type TicketItem, type UserItem } from '../db/entities/index.js';
import { requirePermission } from '../organizations/index.js';
import { requireSession } from '../identity/index.js';
import { canSeeBoard, listOrganizationBoards } from '../boards/index.js';
import { liveClaimsOf } from '../tickets/index.js';
import { activitySince, utcDay, utcDaysBefore, utcMonthStart } from '../activity/index.js';

const REPORT_OUTCOMES = { done: 'reportsDone', blocked: 'reportsBlocked', needsReview: 'reportsNeedsReview', partial: 'reportsPartial', unknown: 'reportsUnknown' } as const;

type Reported = { total: number; done: number; blocked: number; needsReview: number; partial: number; unknown: number };

/** A share of a whole, or null when there is no whole (docs/agents.md: never 0 for an empty denominator). */
const share = (part: number, whole: number): number | null => (whole > 0 ? Math.round((part / whole) * 10000) / 10000 : null);

const sum = (items: ActivityDayItem[], counter: keyof ActivityDayItem): number => items.reduce((total, item) => total + ((item[counter] as number | undefined) ?? 0), 0);

function reportedIn(items: ActivityDayItem[]): Reported {
  const reported: Reported = { total: 0, done: 0, blocked: 0, needsReview: 0, partial: 0, unknown: 0 };
  for (const [outcome, counter] of Object.entries(REPORT_OUTCOMES) as [keyof typeof REPORT_OUTCOMES, keyof ActivityDayItem][]) {
    reported[outcome] = sum(items, counter);
    reported.total += reported[outcome];
  }
  return reported;
}

/**
 * One open claim as the caller may see it. A claim on a board the caller cannot see keeps its
 * place in the list (the count and the expiry stay true) but not the ticket's identity: its
 * ids and title are null and `hidden` is true. Visible claims have exactly the spec's fields.
 */
function presentOpenClaim(ticket: TicketItem, maySeeBoard: (boardId: string) => boolean) {
  if (!maySeeBoard(ticket.boardId)) return { ticketId: null, displayId: null, title: null, boardId: null, claimExpiresAt: ticket.claimExpiresAt!, hidden: true as const };
  return {
    ticketId: ticket.ticketId,
    displayId: ticket.displayId,
    title: ticket.title,
    boardId: ticket.boardId,
    claimExpiresAt: ticket.claimExpiresAt!,
    heartbeatAt: ticket.claimHeartbeatAt ?? null,
    note: ticket.claimNote ?? null,
    client: ticket.claimClient ?? null,
  };
}

/** Which boards the caller may see: every board for administrators (no read), else one Query of the organization's boards. */
async function boardVisibility(ctx: DomainContext): Promise<(boardId: string) => boolean> {
  if (ctx.actor.isAdmin) return () => true;
  const visible = new Set((await listOrganizationBoards(ctx.org.orgId)).filter((board) => canSeeBoard(ctx.actor, board)).map((board) => board.boardId));
  return (boardId) => visible.has(boardId);
}

/**
 * GET .../agents/overview (docs/agents.md), for agents:manage over a session. Reads the users of
 * the organization and its activity items of the last 31 days (one Query each, in parallel),
 * then each live agent's open claims (one Query per agent, in parallel; at most 25 agents).
 * Windows are UTC calendar days: "this month" from the first of the month, "last 7 days" the
 * 7 days ending today, "last 30 days" the 30 days ending today.
 *
 * Time figures come from aggregates the time-entry transactions maintain (lib/time/aggregates.ts):
 * approved minutes per day of the work (the organization's agentMinutes and humanMinutes, each
 * agent's approvedMinutes) and each agent's PENDING count and minutes on its user item.
 */
export async function getAgentsOverview(ctx: DomainContext) {
  requireSession(ctx);
  requirePermission(ctx, 'agents:manage');
  const now = ctx.clock.now();
  const today = utcDay(now);
  const monthStart = utcMonthStart(now);
  const from30 = utcDaysBefore(now, 29);
  const from7 = utcDaysBefore(now, 6);
  const [users, activity, maySeeBoard] = await Promise.all([
    db().entities.user.query.byOrg({ orgId: ctx.org.orgId }).go({ pages: 'all' }).then((result) => result.data as UserItem[]),
    // biome-ignore lint/complexity/useMathMinMax: ISO dates (strings), the earlier of the two
    activitySince(ctx.org.orgId, monthStart < from30 ? monthStart : from30, now),
    boardVisibility(ctx),
  ]);
  const byId = new Map(users.map((user) => [user.userId, user]));
  const agents = users
    .filter((user) => user.isAgent && !user.isDeleted)
    .sort((a, b) => a.name.localeCompare(b.name) || a.userId.localeCompare(b.userId));
  const openClaims = await Promise.all(
    agents.map(async (agent) =>
      (await liveClaimsOf(ctx.org.orgId, agent.userId, now))
        .sort((a, b) => a.claimExpiresAt!.localeCompare(b.claimExpiresAt!) || a.ticketId.localeCompare(b.ticketId))
        .map((ticket) => presentOpenClaim(ticket, maySeeBoard)),
    ),
  );

  const thisMonth = activity.filter((item) => item.day >= monthStart && item.day <= today);
  const orgMonth = thisMonth.filter((item) => isOrgSubject(item.subjectId));

  const agentRows = agents.map((agent, index) => {
    const own = activity.filter((item) => item.subjectId === agent.userId);
    const last7 = own.filter((item) => item.day >= from7);
    const last30 = own.filter((item) => item.day >= from30);
    const owner = agent.ownerId ? byId.get(agent.ownerId) : undefined;
    return {
      id: agent.userId,
      name: agent.name,
      isActive: agent.isActive,
      ownerName: owner?.name ?? null,
      lastSeenAt: agent.lastSeenAt ?? null,
      gitIdentity: agent.gitIdentity ?? null,
      openClaims: openClaims[index]!,
      claimsTakenLast7Days: sum(last7, 'claimsTaken'),
      claimsExpiredLast7Days: sum(last7, 'claimsExpired'),
      spendLast7DaysMicros: sum(last7, 'costMicros'),
      spendLast30DaysMicros: sum(last30, 'costMicros'),
      dispatchPaused: agent.dispatchPaused === true,
      monthlyBudgetMicros: agent.monthlyBudgetMicros ?? null,
      reportedLast7Days: reportedIn(last7),
      reportedLast30Days: reportedIn(last30),
      pendingTime: { count: agent.pendingTimeCount ?? 0, minutes: agent.pendingTimeMinutes ?? 0 },
      approvedMinutesThisMonth: sum(own.filter((item) => item.day >= monthStart), 'approvedMinutes'),
      pullRequests: { total: agent.pullRequestCount ?? 0, requiresHumanReview: agent.humanReviewPullRequestCount ?? 0 },
    };
  });

  const ticketsClosedThisMonth = sum(orgMonth, 'ticketsClosed');
  const ticketsClosedByAgentsThisMonth = sum(orgMonth, 'ticketsClosedByAgents');
  const agentMinutesThisMonth = sum(orgMonth, 'agentMinutes');
  const humanMinutesThisMonth = sum(orgMonth, 'humanMinutes');
  const minutesBookedThisMonth = agentMinutesThisMonth + humanMinutesThisMonth;
  return {
    generatedAt: now.toISOString(),
    monthStart,
    totals: {
      agentCount: agents.length,
      activeAgentCount: agents.filter((agent) => agent.isActive).length,
      ticketsClosedThisMonth,
      ticketsClosedByAgentsThisMonth,
      agentClosedShare: share(ticketsClosedByAgentsThisMonth, ticketsClosedThisMonth),
      minutesBookedThisMonth,
      agentMinutesThisMonth,
      humanMinutesThisMonth,
      agentMinutesShare: share(agentMinutesThisMonth, minutesBookedThisMonth),
      pendingAgentMinutes: agentRows.reduce((total, row) => total + row.pendingTime.minutes, 0),
    },
    agents: agentRows,
  };
}
