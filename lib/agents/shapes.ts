import * as z from 'zod';
import { anId, timestamp } from '../core/shapes.js';

/** An agent: a seat-free machine user with an owner, limits and tokens. */
export const agentResult = z.lazy(() =>
  z
    .strictObject({
      id: anId,
      name: z.string(),
      description: z.string().nullable(),
      email: z.string(),
      isActive: z.boolean(),
      owner: z.strictObject({ id: anId, name: z.string(), email: z.string() }).nullable().meta({ description: 'The person accountable for the agent' }),
      timeFactor: z.number().nullable(),
      weeklyHoursCap: z.number().nullable(),
      maxConcurrentClaims: z.number().int().nullable().meta({ description: "At most this many live claims at once; null: the organization's default" }),
      gitIdentity: z.string().nullable(),
      dispatchPaused: z.boolean().meta({ description: 'Claim-next gives the agent no new work while true' }),
      monthlyBudgetMicros: z.number().int().nullable().meta({ description: 'Spend allowed per calendar month, US dollars × 10⁶; null: none' }),
      tokenCount: z.number().int().min(0),
      lastSeenAt: timestamp.nullable(),
      permissionGroups: z.array(z.strictObject({ id: anId, name: z.string(), color: z.string() })),
      createdAt: timestamp,
    })
    .meta({ id: 'Agent' }),
);

/** The organization's rules for agents. */
export const agentPoliciesResult = z.lazy(() =>
  z
    .strictObject({
      statusTransitionsRequireApproval: z.array(z.string()).meta({ description: "Status keys an agent may not move a ticket into without a person's approval" }),
      prsRequireHumanReview: z.boolean(),
      quarantineAfterLapses: z.number().int().min(0).meta({ description: 'Leases in a row that lapse before a ticket leaves the ready queue (quarantine); 0: never' }),
      gateableStatusKeys: z.array(z.string()).meta({ description: 'The status keys that can be gated' }),
    })
    .meta({ id: 'AgentPolicies' }),
);

const openClaim = z.union([
  z.strictObject({
    ticketId: anId,
    displayId: z.string(),
    title: z.string(),
    boardId: anId,
    claimExpiresAt: timestamp,
    heartbeatAt: timestamp.nullable().meta({ description: "The lease's last heartbeat; null before the first" }),
    note: z.string().nullable().meta({ description: 'The note of the last heartbeat that carried one: what the agent says it is doing' }),
    client: z.string().nullable().meta({ description: "The client that took the lease (the MCP client's name, or the token's clientLabel); display metadata" }),
  }),
  z
    .strictObject({ ticketId: z.null(), displayId: z.null(), title: z.null(), boardId: z.null(), claimExpiresAt: timestamp, hidden: z.literal(true) })
    .meta({ description: 'A claim on a board the caller cannot see' }),
]);

/** Runs reported by outcome (`ticket.reported`), and their total. */
const reported = z.strictObject({
  total: z.number().int(),
  done: z.number().int(),
  blocked: z.number().int(),
  needsReview: z.number().int(),
  partial: z.number().int(),
  unknown: z.number().int(),
});

const share = z.number().min(0).max(1).nullable().meta({ description: 'Fraction (0–1); null when there is nothing to divide' });

/** What the organization's agents did: totals of this month and a row per agent. */
export const agentsOverviewResult = z.lazy(() =>
  z
    .strictObject({
      generatedAt: timestamp,
      monthStart: z.string().meta({ description: 'First day of the current UTC month (YYYY-MM-DD)' }),
      totals: z.strictObject({
        agentCount: z.number().int(),
        activeAgentCount: z.number().int(),
        ticketsClosedThisMonth: z.number().int(),
        ticketsClosedByAgentsThisMonth: z.number().int(),
        agentClosedShare: share,
        minutesBookedThisMonth: z.number(),
        agentMinutesThisMonth: z.number(),
        humanMinutesThisMonth: z.number(),
        agentMinutesShare: share,
        pendingAgentMinutes: z.number(),
      }),
      agents: z.array(
        z.strictObject({
          id: anId,
          name: z.string(),
          isActive: z.boolean(),
          ownerName: z.string().nullable(),
          lastSeenAt: timestamp.nullable(),
          gitIdentity: z.string().nullable(),
          openClaims: z.array(openClaim),
          claimsTakenLast7Days: z.number().int().meta({ description: "Leases the agent took (claims and claim-next) in the last 7 days" }),
          claimsExpiredLast7Days: z.number().int(),
          spendLast7DaysMicros: z.number().int().meta({ description: 'What its reported runs cost in the last 7 days (US dollars × 10⁶)' }),
          spendLast30DaysMicros: z.number().int(),
          dispatchPaused: z.boolean(),
          monthlyBudgetMicros: z.number().int().nullable(),
          reportedLast7Days: reported,
          reportedLast30Days: reported,
          pendingTime: z.strictObject({ count: z.number().int(), minutes: z.number() }),
          approvedMinutesThisMonth: z.number(),
          pullRequests: z.strictObject({ total: z.number().int(), requiresHumanReview: z.number().int() }),
        }),
      ),
    })
    .meta({ id: 'AgentsOverview' }),
);
