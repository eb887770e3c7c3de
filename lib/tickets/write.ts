import { attributionOf, type DomainContext } from '../db/context.js';
import { newId } from '../core/ids.js';
import { guarded, MAX_TRANSACTION_ITEMS, transact, unmarkedWork, type TransactionEntities, type TransactionItem } from '../db/transact.js';
import { LostRace } from '../db/races.js';
import { db } from '../db/service.js';
import { invalidField } from '../core/errors.js';
import { COLUMN_COUNT_SHARDS, isQueued, type TicketItem, type TimelineEntryItem } from '../db/entities/index.js';
import { eventPuts, newEventRecord, type EventInput } from '../events/index.js';
import { ticketEventsFor } from './events.js';
import { closingDelta } from '../activity/index.js';
import { claimEndReason, endedClaimEffects, withoutClaim, fenceRefusal } from './record/lease.js';
import { releaseMembership } from './release-membership.js';
import { readinessChangeOf, readinessEventFor, type ReadinessChange } from './record/readiness.js';
import { dependencyItemsOf } from './record/edges.js';
import { recountBlockers, recountSubtickets } from './record/recount.js';
import { systemContext } from './system-context.js';
import { log } from '../core/telemetry.js';
import { facetCountItems, facetItems } from './record/facets.js';
import { changesSearchEntries, pendingTicketIds, searchIndexJobFor, searchItems } from './search/pending.js';
import { indexTicketSearch } from './search/indexer.js';
import { itemTarget } from '../search/index.js';

/** Tickets pending in an organization's search index past which a create indexes itself (`indexCreated`). */
const SEARCH_BACKLOG = 50;

/** Builds the extra items of a ticket transaction (each guarded item names its own failure). */
export type TransactionItemsBuilder = (e: TransactionEntities) => TransactionItem[];

/** What a ticket adds to its milestone's progress: live and in a milestone → 1, completed when FINAL. */
function milestoneShare(ticket: TicketItem | undefined) {
  if (!ticket || ticket.isDeleted || !ticket.milestoneId) return undefined;
  return { key: { orgId: ticket.orgId, boardId: ticket.boardId, milestoneId: ticket.milestoneId }, completed: ticket.statusCategory === 'FINAL' ? 1 : 0 };
}

/**
 * The milestone progress changes of a ticket write (lib/db/entities/milestone.ts), so a
 * milestone's `ticketCount` and `completedCount` are exact at all times. Entering a milestone
 * is guarded: the milestone must be a live one of the ticket's board (else 400 naming
 * `milestoneId`), which is also the check that the reference is valid at commit.
 */
export function milestoneProgress(e: TransactionEntities, before: TicketItem | undefined, after: TicketItem): TransactionItem[] {
  const was = milestoneShare(before);
  const is = milestoneShare(after);
  const same = was && is && was.key.boardId === is.key.boardId && was.key.milestoneId === is.key.milestoneId;
  if (same) return was.completed === is.completed ? [] : [e.milestone.update(is.key).add({ completedCount: is.completed - was.completed }).commit()];
  return [
    ...(was ? [e.milestone.update(was.key).add({ ticketCount: -1, completedCount: -was.completed }).commit()] : []),
    ...(is
      ? [
          guarded(
            e.milestone
              .patch(is.key)
              .add({ ticketCount: 1, completedCount: is.completed })
              .where((attr, op) => op.eq(attr.isDeleted, false))
              .commit(),
            () => invalidField('milestoneId', 'Unknown milestone of this board'),
          ),
        ]
      : []),
  ];
}

/** One column count change: `total`, `archived`, `claimed` and `claimedArchived` deltas of a (board, status). */
export interface ColumnCountDelta {
  boardId: string;
  statusId: string;
  total: number;
  archived: number;
  claimed: number;
  claimedArchived: number;
  queued: number;
}

/**
 * The ColumnCount changes of a ticket write: a live (not deleted) ticket counts 1 in `total`
 * of its (board, status), and 1 in `archived` too when archived; a claimed one (a claim names
 * it, live or lapsed but not yet cleared) also 1 in `claimed` (and `claimedArchived`); one in
 * the ready queue (`isQueued`) 1 in `queued` (counted from its first write that derives its
 * ready keys: `readyBoard` is then set, NO_KEY when not queued). Only nonzero deltas.
 */
export function columnCountDeltas(before: TicketItem | undefined, after: TicketItem): ColumnCountDelta[] {
  const deltas = new Map<string, ColumnCountDelta>();
  const apply = (ticket: TicketItem | undefined, sign: 1 | -1) => {
    if (!ticket || ticket.isDeleted) return;
    const key = `${ticket.boardId}\u0000${ticket.statusId}`;
    const delta = deltas.get(key) ?? { boardId: ticket.boardId, statusId: ticket.statusId, total: 0, archived: 0, claimed: 0, claimedArchived: 0, queued: 0 };
    delta.total += sign;
    if (ticket.isArchived) delta.archived += sign;
    // A ticket stored before the ready queue existed (no `readyBoard` yet) was never counted in it.
    if (isQueued(ticket) && (sign === 1 || ticket.readyBoard !== undefined)) delta.queued += sign;
    if (ticket.claimedById) {
      delta.claimed += sign;
      if (ticket.isArchived) delta.claimedArchived += sign;
    }
    deltas.set(key, delta);
  };
  apply(before, -1);
  apply(after, 1);
  return [...deltas.values()].filter((delta) => delta.total !== 0 || delta.archived !== 0 || delta.claimed !== 0 || delta.claimedArchived !== 0 || delta.queued !== 0);
}

/**
 * The transaction items of a ticket write's ColumnCount deltas: unconditional upserts (they
 * cannot fail a condition), each into one shard picked at random. Every write of a ticket adds
 * them, the ones beside `saveTicket` too (recategorization, a parent
 * written with its subticket). A second ticket of one transaction names its own `shard` (one
 * item may appear only once in a transaction; the readers sum every shard).
 */
export function columnCountItems(e: TransactionEntities, before: TicketItem | undefined, after: TicketItem, shard?: string): TransactionItem[] {
  return columnCountDeltas(before, after).map((delta) =>
    e.columnCount
      .update({ orgId: after.orgId, boardId: delta.boardId, statusId: delta.statusId, shard: shard ?? String(Math.floor(Math.random() * COLUMN_COUNT_SHARDS)) })
      .add({ total: delta.total, archived: delta.archived, claimed: delta.claimed, claimedArchived: delta.claimedArchived, queued: delta.queued })
      .commit(),
  );
}

/**
 * A ticket written outside `saveTicket` (its bookkeeping only: no timeline, no event): the whole
 * item replaced, guarded by the version it was read at (`onStale` when it changed since), with
 * its ColumnCount deltas and facet entries. The parent written beside its subticket, a recategorized status's
 * tickets use it; `shard` as for `columnCountItems`.
 */
export function replaceTicketItems(e: TransactionEntities, before: TicketItem, after: TicketItem, onStale: () => Error, shard?: string): TransactionItem[] {
  // Bookkeeping only: what search indexes (words, board, status, position, archived, deleted) changes through saveTicket.
  if (changesSearchEntries(before, after)) throw new Error('A ticket write that changes its search entries goes through saveTicket');
  return [
    guarded(
      e.ticket
        .put(after)
        .where((attr, op) => op.eq(attr.version, before.version))
        .commit(),
      onStale,
    ),
    ...columnCountItems(e, before, after, shard),
    ...facetItems(e, before, after),
    ...facetCountItems(e, before, after, shard),
  ];
}

export interface TimelineInput {
  kind: TimelineEntryItem['kind'];
  details?: Record<string, unknown>;
}

export interface TicketWrite {
  /** The ticket as read (undefined for a create). Its `version` guards the write. */
  before?: TicketItem;
  /** The ticket as it shall be. */
  after: TicketItem;
  /** Extra timeline entries beyond the ones derived from the change (status, assignee). */
  timeline?: TimelineInput[];
  /** Extra events beyond the derived ones. */
  events?: EventInput[];
  /** Other items that must change in the same transaction (counters, parents, checks), each guarded with its failure. */
  related?: TransactionItemsBuilder;
  /** The error when the ticket itself changed since it was read (default: LostRace). */
  onStale?: () => Error;
  /**
   * A dependency change that leaves the ticket's readiness as it was (it had an open blocker and
   * keeps one, or the blocker added or removed is closed): the open-blocker count moves by this
   * much in an atomic update of the ticket (`blockerCountUpdate`) instead of the whole item
   * replaced under the version it was read at, so dependency changes of one ticket commit side by
   * side. The version still moves: a concurrent replacement finds the ticket changed. `after`
   * differs from `before` in that count alone.
   */
  blockerCountMove?: number;
  /** Explainable Status: the reason stored with a status change. */
  statusReason?: string;
  /**
   * False for a write of the service's own bookkeeping (a recount of open blockers or
   * subtickets): no `ticket.updated`, only the events given.
   */
  derivedEvents?: boolean;
  /**
   * The ticket leaves a deleted milestone, whose clearing job sets its counts to 0 when the last
   * ticket has left: no progress change per ticket (thousands of them would all contend for the
   * one milestone item).
   */
  leavesDeletedMilestone?: boolean;
}

/**
 * The one way a ticket is written: the ticket (created, or replaced guarded by its version),
 * its timeline entries and its events, any related items, the ColumnCount deltas of its
 * (board, status) columns, its facet entries (record/facets.ts) and, when its search entries
 * change, a new ticket's entries themselves when they fit, else their pending marker and
 * indexing job (`searchItems`, search/pending.ts), in ONE transaction. Either all of it happens or none of it does.
 * `version` and `updatedAt` are set here; index keys are derived by the entity.
 */
export async function saveTicket(ctx: DomainContext, write: TicketWrite): Promise<TicketItem> {
  // A fenced write checks the state it replaces; the version guard below makes the check hold at commit.
  if (ctx.claimFence !== undefined && write.before) {
    const refusal = fenceRefusal(write.before, ctx.actor.userId, ctx.claimFence, ctx.clock.now());
    if (refusal) throw refusal;
  }
  const now = ctx.clock.now().toISOString();
  // Entering a FINAL status or being deleted ends the ticket's claim in this same transaction.
  const endReason = claimEndReason(write.before, write.after);
  const ended = endReason ? endedClaimEffects(write.after, ctx.clock.now(), ctx.actor.userId, endReason) : undefined;
  const written = ended ? { ...withoutClaim(write.after), ...ended.fields } : write.after;
  const after: TicketItem = {
    ...written,
    ...(write.before
      ? { version: write.before.version + 1, updatedAt: written.updatedAt === write.before.updatedAt ? now : written.updatedAt }
      : {}),
  };
  const attribution = ctx.actor.isAgent ? attributionOf(ctx) : undefined;
  const agentAttribution = attribution && {
    actorIsAgent: true,
    ...(attribution.actor.ownerId ? { actorOwnerId: attribution.actor.ownerId } : {}),
    ...(attribution.actor.client ? { actorClient: attribution.actor.client } : {}),
    ...(attribution.claimCount !== undefined ? { claimCount: attribution.claimCount } : {}),
  };
  const timeline = [...derivedTimeline(write.before, after, write.statusReason), ...(write.timeline ?? []), ...(ended?.timeline ?? [])].map((entry) => ({
    ticketId: after.ticketId,
    entryId: newId('tle'),
    orgId: after.orgId,
    kind: entry.kind,
    actorId: ctx.actor.userId,
    actorName: ctx.actor.name,
    // An agent's write names whose agent it is, its client and the lease it wrote under.
    ...(ctx.actor.isAgent ? agentAttribution : {}),
    details: entry.details ?? {},
    createdAt: now,
  }));
  const readiness = readinessChangeOf(write.before, after);
  const searchJobInput = searchIndexJobFor(write.before, after);
  const searchJob = searchJobInput && newEventRecord(after.orgId, ctx.clock, searchJobInput);
  const events = [
    ...(write.derivedEvents === false ? [] : ticketEventsFor(ctx, write.before, after)),
    ...(write.events ?? []),
    ...(ended?.events ?? []),
  ]
    // A webhook event an agent's write caused says who wrote it (never the internal readiness record).
    .map((event) => (attribution ? { ...event, attribution } : event))
    .concat(readiness ? [readinessEventFor(readiness)] : [])
    .map((event) => newEventRecord(after.orgId, ctx.clock, event));
  const stale = write.onStale ?? (() => new LostRace('The ticket changed concurrently; retry'));
  let searchPending = false;
  await transact((e) => {
    const items = [
      guarded(
        write.before && write.blockerCountMove !== undefined
          ? { Update: blockerCountUpdate(write.before, write.blockerCountMove, now) }
          : write.before
            ? e.ticket
                .put(after)
                .where((attr, op) => op.eq(attr.version, write.before!.version))
                .commit()
            : e.ticket.create(after).commit(),
        stale,
      ),
      ...(write.related?.(e) ?? []),
      ...(ended?.related(e) ?? []),
      ...timeline.map((entry) => e.timelineEntry.create(entry).commit()),
      ...eventPuts(e, events),
      ...columnCountItems(e, write.before, after),
      ...facetItems(e, write.before, after),
      ...facetCountItems(e, write.before, after),
      // The agents overview's closing counters (a ticket entering a FINAL status).
      ...[closingDelta(e, write.before, after, ctx.actor.agent != null, ctx.clock.now())].filter((item) => item !== undefined),
      ...(write.leavesDeletedMilestone ? [] : milestoneProgress(e, write.before, after)),
      ...releaseMembership(e, write.before, after, now),
    ];
    const search = searchItems(e, write.before, after, now, searchJob, MAX_TRANSACTION_ITEMS - items.length);
    searchPending = search.pending;
    return [...items, ...search.items];
  });
  // Not part of a keyed request's work: its recounts carry no idempotency mark (they would all contend for the one record).
  if (readiness) await unmarkedWork(() => settleReadiness(ctx, readiness));
  if (!write.before && searchPending) await unmarkedWork(() => indexCreated(ctx, after));
  return after;
}

/**
 * A new ticket too large to be indexed in its create's transaction (its words do not fit) is
 * left to the events function, unless the organization's index is behind (a bulk import: more
 * than SEARCH_BACKLOG tickets pending, one Query of at most one more marker than that, after the
 * create commits): then the request indexes it itself before it answers. So an import of long
 * tickets is slowed to the pace the index keeps, and never leaves a backlog that sends searches
 * to the boards themselves (past 200 pending, lib/tickets/lists/search.ts); an interactive create
 * pays one Query. The marker and job written with the create stay the backstop: the job finds the
 * marker cleared and writes nothing; after a failure or a crash here, it indexes the ticket.
 */
async function indexCreated(ctx: DomainContext, ticket: TicketItem): Promise<void> {
  try {
    if ((await pendingTicketIds(ticket.orgId, SEARCH_BACKLOG + 1)).length > SEARCH_BACKLOG) await indexTicketSearch(ticket.orgId, ticket.ticketId, ctx.clock);
  } catch (error) {
    log.warn('search indexing left to the events function', { ticketId: ticket.ticketId, orgId: ticket.orgId, error: error instanceof Error ? error.message : String(error) });
  }
}

/**
 * The ticket's open-blocker count moved by `move`, its version by 1 and `updatedAt` set, on
 * condition that it is live and stays blocked when the count moves (at least 1 before an
 * increase, at least 2 before a decrease): nothing derived from readiness (the ready queue's keys,
 * the queued column counts) changes, so no other attribute is written. A move of 0 (a closed
 * blocker) changes nothing of readiness either.
 */
function blockerCountUpdate(ticket: TicketItem, move: number, now: string): Record<string, unknown> {
  const floor = move < 0 ? 1 - move : 1;
  return {
    ...itemTarget(db().entities.ticket.get({ ticketId: ticket.ticketId }).params()),
    UpdateExpression: 'SET #count = if_not_exists(#count, :zero) + :move, #version = #version + :one, #updatedAt = :now',
    ConditionExpression: `attribute_exists(#pk) AND (attribute_not_exists(#deleted) OR #deleted = :false)${move === 0 ? '' : ' AND #count >= :floor'}`,
    ExpressionAttributeNames: { '#count': 'openBlockerCount', '#version': 'version', '#updatedAt': 'updatedAt', '#pk': 'pk', '#deleted': 'isDeleted' },
    ExpressionAttributeValues: { ':zero': 0, ':move': move, ':one': 1, ':now': now, ':false': false, ...(move === 0 ? {} : { ':floor': floor }) },
  };
}

/** Dependents a write recounts at once: a ticket with more has them recounted this many at a time. */
export const SETTLED_DEPENDENTS = 25;

/**
 * Read-your-writes readiness: a write that finishes, reopens or deletes a ticket recounts the
 * open blockers of every ticket that depends on it (one Query finds them; SETTLED_DEPENDENTS at
 * a time) and, for a subticket, its parent's open subtickets before it answers, each recount a
 * ticket write of its own (none when the count is already right). So the very next request of
 * anyone (claim-next, the ready list, `isReady`, `openBlockerCount`) sees them ready or blocked.
 * The READINESS_JOB written with the change stays the backstop: the events function recounts
 * again from what is stored (a recount that finds the count right writes nothing) after a crash
 * between the write and its recounts, or a recount that failed here, which never fails the write.
 */
async function settleReadiness(ctx: DomainContext, change: ReadinessChange): Promise<void> {
  const system = systemContext(ctx.clock, { orgId: ctx.org.orgId });
  try {
    const dependentIds = change.dependents ? (await dependencyItemsOf(change.ticketId, 'blocks')).map((item) => item.otherId) : [];
    await Promise.all([
      ...dependentIds.slice(0, SETTLED_DEPENDENTS).map((id) => recountBlockers(system, saveTicket, id, change.ticketId)),
      // A subticket attached, detached or deleted has its parent written in its own transaction (structure/subtickets.ts).
      ...(change.dependents && change.sameParent && !change.deleted ? change.parentIds : []).map((id) => recountSubtickets(system, saveTicket, id)),
    ]);
    for (let start = SETTLED_DEPENDENTS; start < dependentIds.length; start += SETTLED_DEPENDENTS) {
      await Promise.all(dependentIds.slice(start, start + SETTLED_DEPENDENTS).map((id) => recountBlockers(system, saveTicket, id, change.ticketId)));
    }
  } catch (error) {
    log.warn('readiness recount left to the events function', { ticketId: change.ticketId, orgId: ctx.org.orgId, error: error instanceof Error ? error.message : String(error) });
  }
}

function derivedTimeline(before: TicketItem | undefined, after: TicketItem, reason: string | undefined): TimelineInput[] {
  if (!before) return [{ kind: 'CREATED', details: { statusId: after.statusId, assigneeId: after.assigneeId ?? null } }];
  const entries: TimelineInput[] = [];
  if (before.statusId !== after.statusId) {
    entries.push({ kind: 'STATUS_CHANGED', details: { fromStatusId: before.statusId, toStatusId: after.statusId, reason: reason ?? null } });
  }
  if ((before.assigneeId ?? null) !== (after.assigneeId ?? null)) {
    entries.push({ kind: 'ASSIGNED', details: { fromAssigneeId: before.assigneeId ?? null, toAssigneeId: after.assigneeId ?? null } });
  }
  if (before.boardId !== after.boardId) {
    entries.push({ kind: 'MOVED', details: { fromBoardId: before.boardId, toBoardId: after.boardId, fromDisplayId: before.displayId, toDisplayId: after.displayId } });
  }
  return entries;
}
