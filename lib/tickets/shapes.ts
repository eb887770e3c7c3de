import * as z from 'zod';
import { IMPACT_LEVELS, PRIORITIES, RESOLUTION_TYPES, STATUS_CATEGORIES, SUGGESTION_STATES, TIMELINE_KINDS } from '../db/entities/index.js';
import { anId, timestamp } from '../core/shapes.js';

const named = z.strictObject({ id: anId, name: z.string() });

/** What a person asked of a lease's holder (null: nothing). */
const directiveShape = z
  .strictObject({
    action: z.enum(['stop', 'pause', 'resume']),
    message: z.string().nullable(),
    requestedBy: named,
    requestedAt: timestamp,
    stopDeadline: timestamp.nullable().meta({ description: 'For a stop: the lease ends here at the latest' }),
  })
  .meta({ id: 'Directive' });

/** The live claim on a ticket (an exclusive, expiring lease), or null when there is none. */
export const claimResult = z.lazy(() =>
  z
    .strictObject({
      claimedBy: z.strictObject({ id: anId, name: z.string(), isAgent: z.boolean(), agentOwnerId: anId.nullable() }),
      claimedAt: timestamp,
      claimExpiresAt: timestamp.meta({ description: 'The lease ends here unless renewed by a heartbeat' }),
      claimHeartbeatAt: timestamp.nullable(),
      claimCount: z.number().int().min(0).meta({ description: 'How many times the ticket has been claimed' }),
      client: z
        .string()
        .nullable()
        .meta({ description: "The client that took the lease: the MCP client's name (its handshake), or the token's clientLabel over REST; display metadata, never a permission. `claimedBy.name` is the holder's own name." }),
      directive: directiveShape
        .nullable()
        .meta({ description: 'What a person asked of the holder: stop (release now; the lease ends at stopDeadline), pause (keep renewing, do no work) or resume (said once); null: nothing' }),
    })
    .meta({ id: 'Claim' }),
);

/** A note for a lease's holder. */
const leaseMessage = z.strictObject({ id: z.string(), text: z.string(), from: named, sentAt: timestamp }).meta({ id: 'LeaseMessage' });

export const directiveResult = z.lazy(() => z.strictObject({ directive: directiveShape.nullable() }));
export const leaseMessageResult = z.lazy(() => z.strictObject({ message: leaseMessage }));

/** A heartbeat's answer: the renewed lease, what people asked of its holder, and the notes sent since the last heartbeat. */
export const heartbeatResult = z.lazy(() =>
  claimResult
    .unwrap()
    .extend({
      messages: z.array(leaseMessage).meta({ description: 'Notes sent since your last heartbeat, each delivered once' }),
    })
    .meta({ id: 'Heartbeat' }),
);

/** A ticket as lists show it. */
export const ticketResult = z.lazy(() =>
  z
    .strictObject({
      id: anId,
      displayId: z.string().meta({ description: 'Board prefix and number, e.g. `PLAT-12`; accepted wherever a ticket id is' }),
      boardId: anId,
      title: z.string(),
      description: z.string(),
      status: z.strictObject({ id: anId, name: z.string(), category: z.enum(STATUS_CATEGORIES), color: z.string() }),
      priority: z.enum(PRIORITIES),
      assignee: named.nullable(),
      type: named,
      labels: z.array(z.strictObject({ id: anId, name: z.string(), color: z.string() })),
      customerId: anId.nullable(),
      dueDate: timestamp.nullable(),
      startDate: timestamp.nullable(),
      estimatedHours: z.number().nullable(),
      timeSpent: z.number().nullable(),
      storyPoints: z.number().nullable(),
      externalReference: z.string().nullable(),
      impactLevel: z.enum(IMPACT_LEVELS).nullable(),
      milestoneId: anId.nullable(),
      resolution: z.string().nullable(),
      resolutionType: z.enum(RESOLUTION_TYPES).nullable(),
      isArchived: z.boolean(),
      position: z.number().meta({ description: 'Order within its status column (ascending)' }),
      parentTicketId: anId.nullable(),
      needsReassignment: z.boolean().meta({ description: 'The assignee lost access to the board' }),
      statusChangeReason: z.string().nullable(),
      claim: claimResult.nullable(),
      createdAt: timestamp,
      updatedAt: timestamp,
      openBlockerCount: z.number().int().min(0).meta({ description: 'Tickets this one depends on that are not yet in a FINAL status' }),
      isReady: z.boolean().meta({ description: 'Ready work: live, ACTIVE and not BLOCKED, no live claim, every dependency FINAL, no open subticket, not quarantined' }),
      quarantine: z
        .strictObject({ since: timestamp, lapses: z.number().int().min(1) })
        .nullable()
        .meta({ description: "Out of the ready queue since `since`, after `lapses` leases in a row lapsed; a person lifts it with DELETE …/quarantine" }),
    })
    .meta({ id: 'Ticket' }),
);

/** One ticket in full: the list fields plus counts, custom field values, blocker info and subtickets. */
export const fullTicketResult = z.lazy(() =>
  ticketResult
    .unwrap()
    .extend({
      commentCount: z.number().int().min(0),
      attachmentCount: z.number().int().min(0),
      subticketIds: z.array(anId),
      milestone: z.strictObject({ id: anId, name: z.string() }).nullable().meta({ description: 'The milestone the ticket belongs to (`milestoneId`), by name' }),
      blockerInfo: z.record(z.string(), z.unknown()).nullable(),
      customFieldValues: z.array(z.strictObject({ customFieldId: anId, name: z.string(), value: z.string() })),
      spend: z
        .strictObject({ costMicros: z.number().int().min(0), inputTokens: z.number().int().min(0), outputTokens: z.number().int().min(0), runs: z.number().int().min(0) })
        .nullable()
        .meta({ description: 'What runs on the ticket cost (US dollars × 10⁶) and used, summed from every report and heartbeat `usage`; null for customer users' }),
    })
    .meta({ id: 'FullTicket' }),
);

/** A ticket as a dependency names it. */
export const dependencyRefResult = z.lazy(() =>
  z
    .strictObject({
      id: anId,
      displayId: z.string(),
      title: z.string(),
      boardId: anId,
      status: z.strictObject({ id: anId, name: z.string(), category: z.enum(STATUS_CATEGORIES) }),
      done: z.boolean().meta({ description: 'The ticket is in a FINAL status' }),
    })
    .meta({ id: 'DependencyRef' }),
);

/** A ticket's dependencies, each list in the order the dependencies were added (tickets the caller cannot see left out). */
export const dependenciesResult = z.lazy(() =>
  z
    .strictObject({
      blockedBy: z.array(dependencyRefResult).meta({ description: 'What the ticket waits for' }),
      blocks: z.array(dependencyRefResult).meta({ description: 'What waits for the ticket' }),
    })
    .meta({ id: 'Dependencies' }),
);

/** Where a moved ticket now lives. */
export const movedTicketResult = z.lazy(() =>
  z.strictObject({ id: anId, displayId: z.string(), title: z.string(), boardId: anId }).meta({ id: 'MovedTicket' }),
);

/** What one lease left for the next holder of its ticket. */
export const handoffResult = z.lazy(() =>
  z
    .strictObject({
      id: anId,
      ticketId: anId,
      from: z.strictObject({ id: anId, name: z.string(), isAgent: z.boolean() }).meta({ description: 'The holder of the lease that ended' }),
      claimCount: z.number().int().min(0).meta({ description: 'The lease it ends (the fence it worked under)' }),
      summary: z.string().nullable().meta({ description: 'What was done (null on an automatic handoff)' }),
      nextSteps: z.string().nullable(),
      branch: z.string().nullable(),
      links: z.array(z.string()),
      lastNote: z.string().nullable().meta({ description: 'The lease\'s latest heartbeat note' }),
      lastHeartbeatAt: timestamp.nullable(),
      auto: z.boolean().meta({ description: 'Left by the service when the lease lapsed, not by its holder' }),
      createdAt: timestamp,
    })
    .meta({ id: 'Handoff' }),
);

/** The outcome of a claim: the ticket in brief, the lease, and whether it was already held or the caller was assigned. */
export const claimOutcomeResult = z.lazy(() =>
  z
    .strictObject({
      ticket: z.strictObject({ id: anId, displayId: z.string(), title: z.string(), boardId: anId, statusId: anId, assigneeId: anId.nullable() }),
      claim: claimResult,
      alreadyHeld: z.boolean().meta({ description: 'The caller held the claim already: the lease was renewed' }),
      assigned: z.boolean(),
      handoff: handoffResult.nullable().meta({ description: 'The ticket\'s latest handoff: where the last holder stopped' }),
    })
    .meta({ id: 'ClaimOutcome' }),
);

export const subticketsResult = z.lazy(() =>
  z
    .strictObject({
      data: z.array(
        z.strictObject({
          id: anId,
          displayId: z.string(),
          title: z.string(),
          status: z.strictObject({ id: anId, name: z.string(), category: z.enum(STATUS_CATEGORIES) }),
          assignee: named.nullable(),
        }),
      ),
      aggregation: z.strictObject({ total: z.number().int(), completed: z.number().int(), inProgress: z.number().int(), planning: z.number().int() }),
    })
    .meta({ id: 'Subtickets' }),
);

export const completionCheckResult = z.lazy(() =>
  z
    .strictObject({
      canComplete: z.boolean(),
      hasOpenSubtickets: z.boolean(),
      openSubtickets: z.array(z.strictObject({ id: anId, title: z.string(), displayId: z.string() })),
      aggregation: z.strictObject({ total: z.number().int(), completed: z.number().int(), summary: z.string() }),
      blockers: z.array(z.strictObject({ reason: z.string().nullable(), reasonText: z.string().nullable(), blockedBy: z.string().nullable(), blockingTicketIds: z.array(anId) })),
      requirements: z.strictObject({ hasDescription: z.boolean(), hasAssignee: z.boolean(), hasCustomer: z.boolean(), hasNoActiveSubtickets: z.boolean() }),
    })
    .meta({ id: 'CompletionCheck' }),
);

export const blockerResult = z.lazy(() =>
  z
    .strictObject({
      isBlocked: z.boolean(),
      reason: z.string().nullable(),
      reasonText: z.string().nullable(),
      blockingTickets: z.array(
        z.strictObject({ id: anId, ticketNumber: z.string(), title: z.string(), status: z.strictObject({ id: anId, name: z.string(), color: z.string() }), createdAt: timestamp }),
      ),
      blockerCount: z.number().int().min(0),
    })
    .meta({ id: 'Blocker' }),
);

/** One entry of a ticket's timeline (what happened, who did it, when). */
export const timelineEntryResult = z.lazy(() =>
  z
    .strictObject({
      id: anId,
      kind: z.enum(TIMELINE_KINDS),
      actor: z
        .strictObject({ id: anId, name: z.string(), isAgent: z.literal(true).optional(), ownerId: anId.nullable().optional(), client: z.string().nullable().optional() })
        .nullable()
        .meta({ description: "Who wrote it; an agent's entry also has `isAgent`, its `ownerId` and the `client` it came through (the token's clientLabel or the MCP client's name)" }),
      claimCount: z.number().int().optional().meta({ description: 'On an agent’s fenced write: the lease it wrote under' }),
      details: z.record(z.string(), z.unknown()).meta({ description: 'Kind-specific; status ids come with their current names' }),
      createdAt: timestamp,
    })
    .meta({ id: 'TimelineEntry' }),
);

const statusRef = z.strictObject({ id: anId, name: z.string().nullable(), key: z.string().nullable() });

/** A move an agent proposed and a person decides. */
export const suggestionResult = z.lazy(() =>
  z
    .strictObject({
      id: anId,
      ticketId: anId,
      boardId: anId,
      fromStatus: statusRef,
      toStatus: statusRef,
      reason: z.string().nullable(),
      suggestedBy: named,
      state: z.enum(SUGGESTION_STATES),
      decidedBy: named.nullable(),
      decidedAt: timestamp.nullable(),
      decisionReason: z.string().nullable(),
      createdAt: timestamp,
      updatedAt: timestamp,
    })
    .meta({ id: 'Suggestion' }),
);

/** A suggestion waiting for a person, with the ticket it moves (the console's inbox). */
export const pendingSuggestionResult = z.lazy(() =>
  suggestionResult
    .unwrap()
    .extend({ ticket: z.strictObject({ id: anId, displayId: z.string(), title: z.string(), boardId: anId }) })
    .meta({ id: 'PendingSuggestion' }),
);

/** The shapes' types: presenters are typed against them, so a presenter cannot drift from its shape. */
export type Claim = z.output<typeof claimResult>;
export type Ticket = z.output<typeof ticketResult>;
export type FullTicket = z.output<typeof fullTicketResult>;

/** A run report's answer (REST `POST …/reports` and MCP `tickets_report` alike). */
export const reportResult = z.lazy(() =>
  z
    .strictObject({
      ticketId: anId,
      displayId: z.string(),
      outcome: z.enum(['done', 'blocked', 'needs_review', 'partial']),
      statusId: anId,
      statusChanged: z.boolean(),
      claimReleased: z.boolean(),
      approvalRequired: z.boolean().optional().meta({ description: "True when the board's approval gate kept the status: a person must accept the move" }),
    })
    .meta({ id: 'RunReport' }),
);

/** One group of `GET /api/v1/spend`. */
const spendGroup = z
  .strictObject({
    id: z.string().meta({ description: 'The agent, board or milestone id (`none`: no milestone), or the day (YYYY-MM-DD)' }),
    name: z.string().nullable(),
    costMicros: z.number().int().min(0),
    inputTokens: z.number().int().min(0),
    outputTokens: z.number().int().min(0),
    cacheReadTokens: z.number().int().min(0),
    runs: z.number().int().min(0),
  })
  .meta({ id: 'SpendGroup' });

export const spendResult = z.lazy(() =>
  z
    .strictObject({
      data: z.array(spendGroup),
      total: z.number().int().min(0),
      page: z.number().int().min(1),
      pageSize: z.number().int().min(1),
      totalPages: z.number().int().min(0),
      totals: z.strictObject({ costMicros: z.number().int().min(0), inputTokens: z.number().int().min(0), outputTokens: z.number().int().min(0), runs: z.number().int().min(0) }).meta({ description: 'Exact totals over every group in range' }),
    })
    .meta({ id: 'Spend' }),
);
