import { Entity, type EntityConfiguration, type EntityItem } from 'electrodb';
import { STATUS_CATEGORIES } from './status.js';

export const PRIORITIES = ['low', 'medium', 'high', 'critical'] as const;
export const IMPACT_LEVELS = PRIORITIES;
export const RESOLUTION_TYPES = ['fixed', 'wont_fix', 'duplicate', 'cannot_reproduce', 'by_design'] as const;

/**
 * A ticket. Keyed by its own id (spread across partitions; a move only changes attributes).
 * Writes replace the whole item guarded by `version` (optimistic locking), so every index key
 * is always consistent with the attributes.
 *
 * - byBoard (gsi1): a board's tickets by status category, then status, then column order
 *   (positionKey, ticketId): the default list reads only ACTIVE work (`begins_with ACTIVE`), a
 *   status filter one column; finished history (FINAL) and planning are read only when asked
 *   for. A column reads in list order, so a page is read from the column's start, not all of it.
 * - byAssignee (gsi2): a user's assigned tickets across boards, or on one board. Sparse:
 *   unassigned tickets (assigneeKey `-`) carry no gsi2 keys.
 * - byClaimHolder (gsi3) / byClaimExpiry (gsi4) / byOrgClaimExpiry (gsi5): claimed tickets by
 *   holder, by expiry across the deployment (sharded, for the sweeper) and by expiry within one
 *   organization.
 */

/** Partitions of byClaimExpiry: a ticket's claim lands in one by its id; the sweeper reads them all in parallel. */
export const CLAIM_EXPIRY_SHARDS = 8;

/** The byClaimExpiry partition of a ticket's claim (`claims#0` … `claims#7`), stable per ticket. */
export function claimShardOf(ticketId: string): string {
  let hash = 0;
  for (let index = 0; index < ticketId.length; index += 1) hash = (hash * 31 + ticketId.charCodeAt(index)) >>> 0;
  return `claims#${hash % CLAIM_EXPIRY_SHARDS}`;
}

/** Every byClaimExpiry partition. */
export const claimShards = (): string[] => Array.from({ length: CLAIM_EXPIRY_SHARDS }, (_, shard) => `claims#${shard}`);
/**
 * The value of a derived index attribute when its index does not apply (an unassigned ticket's
 * `assigneeKey`, an unclaimed ticket's claim keys): the sparse indexes write no entry for it.
 */
export const NO_KEY = '-';

/** Positions are finite numbers with 0 ≤ position < MAX_POSITION (PATCH …/reorder enforces it). */
export const MAX_POSITION = 1e15;

/**
 * The byBoard sort key of a position: fixed width (24 characters, 6 decimals), so string
 * order is number order for 0 ≤ position < 1e15. Positions closer than 1e-6 share a key and
 * fall back to ticket id order (which `sortTickets` follows too). Out-of-range values (none
 * can be written through the API) are clamped so the key stays well-formed.
 */
export function positionKeyOf(position: number): string {
  const clamped = Number.isFinite(position) ? Math.min(Math.max(position, 0), MAX_POSITION - 1) : 0;
  return clamped.toFixed(6).padStart(24, '0');
}

/** Rank of a priority in the ready queue's order: critical first. */
export const PRIORITY_RANK: Record<(typeof PRIORITIES)[number], number> = { critical: 0, high: 1, medium: 2, low: 3 };

/**
 * Whether the ticket is in the ready queue index (byReady): live, not archived, in an ACTIVE
 * status, no claim recorded (live or lapsed but not yet cleared), no open blocker, no open
 * subticket and not quarantined. What only a read can judge stays out of the index: the organization's BLOCKED
 * status (filtered by the reader) and a lapsed claim not yet swept (the reader adds those from
 * byOrgClaimExpiry). `isReady` in lib/tickets/record/readiness.ts is the whole rule.
 */
export function isQueued(item: {
  isDeleted?: boolean; isArchived?: boolean; statusCategory?: string; claimedById?: string;
  openBlockerCount?: number; openSubticketCount?: number; quarantinedAt?: string;
}): boolean {
  return !item.isDeleted && !item.isArchived && item.statusCategory === 'ACTIVE' && !item.claimedById
    && (item.openBlockerCount ?? 0) === 0 && (item.openSubticketCount ?? 0) === 0 && !item.quarantinedAt;
}

/**
 * The byReady sort key: priority rank, then due date (soonest first, none last), then the
 * column position, so a Query reads a board's ready work in queue order (ticket id follows).
 */
export function readyRankOf(item: { priority?: string; dueDate?: string; position?: number }): string {
  const rank = PRIORITY_RANK[(item.priority ?? 'medium') as (typeof PRIORITIES)[number]] ?? 2;
  const due = item.dueDate ? Date.parse(item.dueDate) : Number.NaN;
  const dueKey = Number.isFinite(due) ? new Date(due).toISOString() : '~';
  return `${rank}#${dueKey}#${positionKeyOf(item.position ?? 0)}`;
}

const READY_SOURCES = ['isDeleted', 'isArchived', 'statusCategory', 'claimedById', 'openBlockerCount', 'openSubticketCount', 'quarantinedAt', 'boardId', 'priority', 'dueDate', 'position'];

/** The claim is recorded (live or lapsed, not cleared): the claim indexes hold the ticket. */
const isClaimed = (item: { claimedById?: string; claimExpiresAt?: string }): boolean => !!item.claimedById && !!item.claimExpiresAt;

/*
 * Derived attributes (index keys) are derived here, by the entity, on every put and create
 * (ElectroDB `set`, re-run when a watched attribute changes): writers and tests never compute them.
 */
const CLAIM_SOURCES = ['claimedById', 'claimExpiresAt', 'ticketId'];

export const Ticket = (config?: EntityConfiguration) =>
  new Entity({
  model: { entity: 'ticket', version: '1', service: 'wm' },
  attributes: {
    ticketId: { type: 'string', required: true },
    orgId: { type: 'string', required: true },
    boardId: { type: 'string', required: true },
    number: { type: 'number', required: true },
    displayId: { type: 'string', required: true },
    title: { type: 'string', required: true },
    description: { type: 'string', required: true, default: '' },
    statusId: { type: 'string', required: true },
    /** The status's category, copied so byBoard can read one category (e.g. only ACTIVE work). */
    statusCategory: { type: STATUS_CATEGORIES, required: true },
    priority: { type: PRIORITIES, required: true, default: 'medium' },
    assigneeId: { type: 'string' },
    /** Index key of byAssignee: the assignee id, or NO_KEY when unassigned (derived). */
    // biome-ignore lint/suspicious/noExplicitAny: ElectroDB types a watched attribute's `item` as any
    assigneeKey: { type: 'string', watch: ['assigneeId'], set: (_value?: string, item?: any) => item?.assigneeId ?? NO_KEY },
    /** Denormalized display name of the assignee (rewritten when the user is renamed). */
    assigneeName: { type: 'string' },
    typeId: { type: 'string', required: true },
    labelIds: { type: 'list', items: { type: 'string' } },
    customerId: { type: 'string' },
    dueDate: { type: 'string' },
    startDate: { type: 'string' },
    estimatedHours: { type: 'number' },
    timeSpent: { type: 'number' },
    storyPoints: { type: 'number' },
    externalReference: { type: 'string' },
    impactLevel: { type: IMPACT_LEVELS },
    milestoneId: { type: 'string' },
    /** Index key of byMilestone (derived): NO_KEY when the ticket is in no milestone or deleted. */
    // biome-ignore lint/suspicious/noExplicitAny: ElectroDB types a watched attribute's `item` as any
    milestoneKey: { type: 'string', watch: ['milestoneId', 'isDeleted'], set: (_value?: string, item?: any) => (item?.milestoneId && !item?.isDeleted ? item.milestoneId : NO_KEY) },
    /**
     * The releases the ticket is attached to (a set; absent when none). Changed by release
     * attach and detach, and emptied when the ticket is deleted or moved (lib/tickets/release-membership.ts).
     */
    releaseIds: { type: 'set', items: 'string' },
    resolution: { type: 'string' },
    resolutionType: { type: RESOLUTION_TYPES },
    isArchived: { type: 'boolean', required: true, default: false },
    isDeleted: { type: 'boolean', required: true, default: false },
    deletedAt: { type: 'string' },
    /** Position within its status column: a finite number, 0 ≤ position < 1e15. */
    position: { type: 'number', required: true },
    /** Index key of the column order in byBoard: `position` as a fixed-width sortable string (derived, `positionKeyOf`). */
    // biome-ignore lint/suspicious/noExplicitAny: ElectroDB types a watched attribute's `item` as any
    positionKey: { type: 'string', watch: ['position'], set: (_value?: string, item?: any) => positionKeyOf(item?.position) },
    parentTicketId: { type: 'string' },
    subticketIds: { type: 'list', items: { type: 'string' } },
    needsReassignment: { type: 'boolean', required: true, default: false },
    /** {reason, reasonText?, blockedBy?, blockingTicketIds?} while the ticket is BLOCKED. */
    blockerInfo: { type: 'any' },
    /** customFieldId → value (string). */
    customFieldValues: { type: 'any' },
    commentCount: { type: 'number', required: true, default: 0 },
    /** Of commentCount, the secret comments (customer users are shown the count without them). */
    secretCommentCount: { type: 'number' },
    statusChangedAt: { type: 'string' },
    statusChangeReason: { type: 'string' },
    createdById: { type: 'string', required: true },
    createdAt: { type: 'string', required: true },
    updatedAt: { type: 'string', required: true },
    /** The claim (lease, docs/claims.md): absent when free; live iff claimExpiresAt > now (read time). */
    claimedById: { type: 'string' },
    claimedByName: { type: 'string' },
    /** The client that took the lease (MCP client name, or the token's clientLabel): display metadata. */
    claimClient: { type: 'string' },
    claimedByIsAgent: { type: 'boolean' },
    claimAgentOwnerId: { type: 'string' },
    claimedAt: { type: 'string' },
    claimExpiresAt: { type: 'string' },
    claimHeartbeatAt: { type: 'string' },
    /** The lease's latest progress note (heartbeat `note`), handed on when the lease lapses. */
    claimNote: { type: 'string' },
    /** The ticket's latest handoff (set in the transaction that writes it): a claim knows whether its read of the handoffs is current. */
    lastHandoffId: { type: 'string' },
    /** +1 with every new claim of the ticket: the fencing number. */
    claimCount: { type: 'number', default: 0 },
    /**
     * What a person asked of the lease's holder (lib/tickets/claims/directives.ts): {action: stop |
     * pause | resume, message, requestedById, requestedByName, requestedAt, stopDeadline?}. Ends with the lease.
     */
    claimDirective: { type: 'any' },
    /** Notes for the holder not yet delivered by a heartbeat: [{id, text, fromId, fromName, sentAt}]. Ends with the lease. */
    claimMessages: { type: 'any' },
    /** Leases in a row that lapsed (not released, not finished): reset by a release or a finish (lib/tickets/claims/quarantine.ts). */
    consecutiveLapses: { type: 'number' },
    /** Set while the ticket is quarantined (out of the ready queue after too many lapses in a row). */
    quarantinedAt: { type: 'string' },
    /** The lapses in a row that quarantined it. */
    quarantineLapses: { type: 'number' },
    /** What runs on the ticket cost, summed in each report's or heartbeat's own write (lib/tickets/claims/spend.ts). */
    spendCostMicros: { type: 'number' },
    spendInputTokens: { type: 'number' },
    spendOutputTokens: { type: 'number' },
    spendRuns: { type: 'number' },
    /** Index keys of byClaimHolder/byClaimExpiry/byOrgClaimExpiry (derived): NO_KEY when unclaimed. */
    // biome-ignore lint/suspicious/noExplicitAny: ElectroDB types a watched attribute's `item` as any
    claimHolderKey: { type: 'string', watch: CLAIM_SOURCES, set: (_value?: string, item?: any) => (isClaimed(item ?? {}) ? item.claimedById : NO_KEY) },
    // biome-ignore lint/suspicious/noExplicitAny: ElectroDB types a watched attribute's `item` as any
    claimShard: { type: 'string', watch: CLAIM_SOURCES, set: (_value?: string, item?: any) => (isClaimed(item ?? {}) ? claimShardOf(item.ticketId) : NO_KEY) },
    // biome-ignore lint/suspicious/noExplicitAny: ElectroDB types a watched attribute's `item` as any
    claimExpiresAtKey: { type: 'string', watch: CLAIM_SOURCES, set: (_value?: string, item?: any) => (isClaimed(item ?? {}) ? item.claimExpiresAt : NO_KEY) },
    /** Dependencies (lib/tickets/dependencies) whose blocker is live and not FINAL. */
    openBlockerCount: { type: 'number', default: 0 },
    /** Live subtickets not in a FINAL status (a parent with open subtickets is no unit of work). */
    openSubticketCount: { type: 'number', default: 0 },
    /** Index keys of byReady (derived): the board while `isQueued`, else NO_KEY; the queue order. */
    // biome-ignore lint/suspicious/noExplicitAny: ElectroDB types a watched attribute's `item` as any
    readyBoard: { type: 'string', watch: READY_SOURCES, set: (_value?: string, item?: any) => (isQueued(item ?? {}) ? item.boardId : NO_KEY) },
    // biome-ignore lint/suspicious/noExplicitAny: ElectroDB types a watched attribute's `item` as any
    readyRank: { type: 'string', watch: READY_SOURCES, set: (_value?: string, item?: any) => readyRankOf(item ?? {}) },
    /** Incremented by every write; the condition of the next write. */
    version: { type: 'number', required: true },
  },
  indexes: {
    byId: { pk: { field: 'pk', composite: ['ticketId'] }, sk: { field: 'sk', composite: [] } },
    byBoard: {
      index: 'gsi1',
      pk: { field: 'gsi1pk', composite: ['orgId', 'boardId'] },
      sk: { field: 'gsi1sk', composite: ['statusCategory', 'statusId', 'positionKey', 'ticketId'] },
    },
    /** gsi2: a user's assigned tickets. Sparse: unassigned tickets carry no gsi2 keys (they would share one partition). */
    byAssignee: {
      index: 'gsi2',
      condition: (attr) => attr.assigneeKey !== undefined && attr.assigneeKey !== NO_KEY,
      pk: { field: 'gsi2pk', composite: ['orgId', 'assigneeKey'] },
      sk: { field: 'gsi2sk', composite: ['boardId', 'ticketId'] },
    },
    /**
     * gsi3: claims (live or lapsed, not yet cleared) of one holder, by expiry. Sparse, like
     * gsi4: only claimed tickets carry its keys (unclaimed ones would all share one partition).
     */
    byClaimHolder: {
      index: 'gsi3',
      condition: (attr) => attr.claimHolderKey !== undefined && attr.claimHolderKey !== NO_KEY,
      pk: { field: 'gsi3pk', composite: ['orgId', 'claimHolderKey'] },
      sk: { field: 'gsi3sk', composite: ['claimExpiresAtKey', 'ticketId'] },
    },
    /**
     * gsi4: every claimed ticket of the deployment by expiry, for the sweeper, spread over
     * CLAIM_EXPIRY_SHARDS partitions (`claims#n`, by ticket id) so that no partition takes every
     * claim, heartbeat and release. Sparse: unclaimed tickets carry no gsi4 keys, so the index
     * holds live and lapsed-unswept claims only. Requests never read it (the sweeper does).
     */
    byClaimExpiry: {
      index: 'gsi4',
      condition: (attr) => attr.claimShard !== undefined && attr.claimShard !== NO_KEY,
      pk: { field: 'gsi4pk', composite: ['claimShard'] },
      sk: { field: 'gsi4sk', composite: ['claimExpiresAtKey', 'ticketId'] },
    },
    /**
     * gsi5: one organization's claimed tickets by expiry (its lapsed, unswept claims for
     * `/issues?claimable`), so a request reads only its own organization's claims. Sparse like gsi4.
     */
    /**
     * gsi6: a milestone's live tickets by status category (`GET …/milestones/{id}/tickets`,
     * clearing a deleted milestone). Sparse: tickets in no milestone carry no gsi6 keys.
     */
    byMilestone: {
      index: 'gsi6',
      condition: (attr) => attr.milestoneKey !== undefined && attr.milestoneKey !== NO_KEY,
      pk: { field: 'gsi6pk', composite: ['orgId', 'milestoneKey'] },
      sk: { field: 'gsi6sk', composite: ['statusCategory', 'ticketId'] },
    },
    /**
     * gsi7: the ready queue of one board (`GET /issues?ready=true`, `POST /claims/next`), in
     * queue order (priority, due date, position, id). Sparse: only tickets that `isQueued`.
     */
    byReady: {
      index: 'gsi7',
      condition: (attr) => attr.readyBoard !== undefined && attr.readyBoard !== NO_KEY,
      pk: { field: 'gsi7pk', composite: ['orgId', 'readyBoard'] },
      sk: { field: 'gsi7sk', composite: ['readyRank', 'ticketId'] },
    },
    byOrgClaimExpiry: {
      index: 'gsi5',
      condition: (attr) => attr.claimShard !== undefined && attr.claimShard !== NO_KEY,
      pk: { field: 'gsi5pk', composite: ['orgId'] },
      sk: { field: 'gsi5sk', composite: ['claimExpiresAtKey', 'ticketId'] },
    },
  },
}, config);
export type TicketItem = EntityItem<ReturnType<typeof Ticket>>;

/** `displayId` → ticket (unique per organization; kept after a move, so old keys still resolve). */
export const TicketKey = (config?: EntityConfiguration) =>
  new Entity({
  model: { entity: 'ticketKey', version: '1', service: 'wm' },
  attributes: {
    orgId: { type: 'string', required: true },
    displayId: { type: 'string', required: true },
    ticketId: { type: 'string', required: true },
  },
  indexes: {
    byDisplayId: { pk: { field: 'pk', composite: ['orgId', 'displayId'] }, sk: { field: 'sk', composite: [] } },
  },
}, config);
