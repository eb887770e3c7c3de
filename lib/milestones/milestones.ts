import { forbidden, notFound } from '../core/errors.js';
import { newId } from '../core/ids.js';
import type { DomainContext } from '../db/context.js';
import { db } from '../db/service.js';
import { batchGetMixed, type KeyRequest } from '../db/batch.js';
import { guarded, isConditionFailure, transact } from '../db/transact.js';
import { LostRace, retryLostRaces } from '../db/races.js';
import { STATUS_CATEGORIES, type BoardItem, type MilestoneItem, type StatusCategory, type TicketItem } from '../db/entities/index.js';
import { queryCount, type QueryParams } from '../db/projected.js';
import { forEachAtMost } from '../core/concurrency.js';
import { saveTicket, loadOrgConfig, pageOfTickets, systemContext } from '../tickets/index.js';
import { continueJob, eventPuts, jobKind, jobRecord, type JobRun, type JobPayload } from '../events/index.js';
import type { Clock } from '../core/clock.js';
import { visibleOrNotFound } from '../boards/index.js';
import { requirePermission, type Permission, claimName, nameChanges, nameTaken, releaseName } from '../organizations/index.js';

/*
 * Milestones of a board (docs/features.md, Milestones and releases), behind the board's Milestones & Releases feature.
 * Their progress counters are written by the ticket write path (`milestoneProgress` in
 * lib/tickets/write.ts), never here.
 */

type MilestonePermission = Extract<Permission, `milestones:${string}`>;

/** 403 FEATURE_DISABLED unless the board has Milestones & Releases switched on. */
export function requireMilestonesFeature(board: BoardItem): void {
  if (!board.milestonesAndReleases) throw forbidden('Milestones & Releases is switched off for this board', 'FEATURE_DISABLED', { feature: 'milestonesAndReleases' });
}

/**
 * The entry of every milestone and release route: the permission, then the board and any
 * further items in one BatchGetItem (they come back in request order, undefined when
 * missing); 404 for a board the caller may not see, then 403 FEATURE_DISABLED when the board
 * has the feature off.
 */
export async function enterFeatureBoard(ctx: DomainContext, boardId: string, permission: Permission, more: KeyRequest[] = []): Promise<{ board: BoardItem; found: unknown[] }> {
  requirePermission(ctx, permission);
  const [board, ...found] = await batchGetMixed([{ entity: db().entities.board, key: { orgId: ctx.org.orgId, boardId } }, ...more]);
  const visible = visibleOrNotFound(ctx, board as BoardItem | undefined);
  requireMilestonesFeature(visible);
  return { board: visible, found };
}

/** The board and (when named) one of its milestones; 404 for an unknown milestone (a deleted one too, unless `includeDeleted`). */
async function enter(ctx: DomainContext, boardId: string, permission: MilestonePermission, milestoneId?: string, includeDeleted = false): Promise<{ board: BoardItem; milestone?: MilestoneItem }> {
  const { board, found } = await enterFeatureBoard(
    ctx,
    boardId,
    permission,
    milestoneId ? [{ entity: db().entities.milestone, key: { orgId: ctx.org.orgId, boardId, milestoneId } }] : [],
  );
  const milestone = found[0] as MilestoneItem | undefined;
  if (milestoneId && (!milestone || (milestone.isDeleted && !includeDeleted))) throw notFound('Milestone');
  return { board, ...(milestone ? { milestone } : {}) };
}

/** The guard's name: unique per board among live milestones. */
const guardName = (boardId: string, name: string) => `${boardId}:${name}`;

export function presentMilestone(milestone: MilestoneItem) {
  const total = milestone.ticketCount;
  const completed = milestone.completedCount;
  return {
    id: milestone.milestoneId,
    boardId: milestone.boardId,
    name: milestone.name,
    description: milestone.description ?? null,
    dueDate: milestone.dueDate,
    color: milestone.color,
    sortOrder: milestone.sortOrder,
    progress: { total, completed, percentage: total === 0 ? 0 : Math.round((completed / total) * 100) },
    isDeleted: milestone.isDeleted,
    createdAt: milestone.createdAt,
    updatedAt: milestone.updatedAt,
  };
}

/** A board's milestones, deleted ones too (one Query of the organization's configuration partition). */
export async function milestonesOf(orgId: string, boardId: string): Promise<MilestoneItem[]> {
  return (await db().entities.milestone.query.byBoard({ orgId, boardId }).go({ pages: 'all' })).data.filter((milestone) => milestone.boardId === boardId);
}

export type MilestoneSort = 'dueDate' | 'name' | 'sortOrder' | 'createdAt';

/** GET …/milestones: a bare array (the API reference), live ones unless `includeDeleted`, sorted as asked (default sortOrder ascending). */
export async function listMilestones(ctx: DomainContext, boardId: string, query: { includeDeleted?: boolean; sortBy?: MilestoneSort; sortOrder?: 'asc' | 'desc' }) {
  const [, milestones] = await Promise.all([enter(ctx, boardId, 'milestones:view'), milestonesOf(ctx.org.orgId, boardId)]);
  const sortBy = query.sortBy ?? 'sortOrder';
  const direction = query.sortOrder === 'desc' ? -1 : 1;
  const key = (milestone: MilestoneItem): string | number => (sortBy === 'name' ? milestone.name.toLowerCase() : milestone[sortBy]);
  return milestones
    .filter((milestone) => query.includeDeleted || !milestone.isDeleted)
    .sort((a, b) => {
      const [x, y] = [key(a), key(b)];
      return (x < y ? -1 : x > y ? 1 : 0) * direction || a.milestoneId.localeCompare(b.milestoneId);
    })
    .map(presentMilestone);
}

export interface MilestoneInput {
  name: string;
  description?: string | null;
  dueDate: string;
  color?: string;
  sortOrder?: number;
}

/** POST …/milestones: the milestone and its name guard in one transaction (a taken name → 409). */
export async function createMilestone(ctx: DomainContext, boardId: string, input: MilestoneInput) {
  await enter(ctx, boardId, 'milestones:create');
  const now = ctx.clock.now().toISOString();
  const milestone: MilestoneItem = {
    orgId: ctx.org.orgId,
    boardId,
    milestoneId: newId('ms'),
    name: input.name,
    ...(input.description ? { description: input.description } : {}),
    dueDate: input.dueDate,
    color: input.color ?? '#607D8B',
    sortOrder: input.sortOrder ?? 0,
    isDeleted: false,
    ticketCount: 0,
    completedCount: 0,
    createdAt: now,
    updatedAt: now,
  };
  await transact((e) => [
    guarded(e.milestone.create(milestone).commit(), () => new LostRace()),
    claimName(e, ctx.org.orgId, 'milestone', guardName(boardId, input.name), milestone.milestoneId, () => nameTaken('milestone', input.name)),
  ]);
  return presentMilestone(milestone);
}

/** GET …/milestones/{id}, with its progress. */
export async function getMilestone(ctx: DomainContext, boardId: string, milestoneId: string) {
  return presentMilestone((await enter(ctx, boardId, 'milestones:view', milestoneId)).milestone!);
}

/**
 * PATCH …/milestones/{id}: fields by `patch` (the progress counters are never written back),
 * guarded by the `updatedAt` read; a rename moves the name guard in the same transaction.
 */
export async function updateMilestone(ctx: DomainContext, boardId: string, milestoneId: string, input: Partial<MilestoneInput>) {
  return retryLostRaces(async () => {
    const { milestone } = await enter(ctx, boardId, 'milestones:edit', milestoneId);
    const current = milestone!;
    const updatedAt = ctx.clock.now().toISOString();
    const changes = {
      ...(input.name !== undefined ? { name: input.name } : {}),
      ...(input.dueDate !== undefined ? { dueDate: input.dueDate } : {}),
      ...(input.color !== undefined ? { color: input.color } : {}),
      ...(input.sortOrder !== undefined ? { sortOrder: input.sortOrder } : {}),
      ...(input.description ? { description: input.description } : {}),
      updatedAt,
    };
    const clearsDescription = input.description === null || input.description === '';
    const renamed = nameChanges(current.name, input.name);
    await transact((e) => {
      const patch = e.milestone.patch({ orgId: current.orgId, boardId, milestoneId }).set(changes);
      return [
        guarded(
          (clearsDescription ? patch.remove(['description']) : patch)
            .where((attr, op) => `${op.eq(attr.updatedAt, current.updatedAt)} AND ${op.eq(attr.isDeleted, false)}`)
            .commit(),
          () => new LostRace('The milestone changed concurrently; retry'),
        ),
        ...(renamed
          ? [
              releaseName(e, current.orgId, 'milestone', guardName(boardId, current.name)),
              claimName(e, current.orgId, 'milestone', guardName(boardId, input.name!), milestoneId, () => nameTaken('milestone', input.name!)),
            ]
          : []),
      ];
    });
    const updated: MilestoneItem = { ...current, ...changes };
    if (clearsDescription) delete updated.description;
    return presentMilestone(updated);
  });
}

/** Tickets cleared of a deleted milestone at once. */
const CLEARING_CONCURRENCY = 8;

/** Tickets one step of the clearing job takes (about 2 s of writes, far inside the function's 60 s). */
export const CLEARED_PER_STEP = 200;

/** The background job that clears a deleted milestone from its tickets (`clearDeletedMilestone`). */
export const MILESTONE_CLEARING_JOB = jobKind(
  'milestones.clear',
  (z) => z.object({
    boardId: z.string(),
    milestoneId: z.string(),
    /** Where the next step reads on in the milestone's index (absent: from its start). */
    cursor: z.optional(z.string()),
  }),
);
type MilestoneClearing = JobPayload<typeof MILESTONE_CLEARING_JOB>;

/**
 * DELETE …/milestones/{id} (soft): the milestone is marked deleted, its name freed and the
 * clearing job recorded, in one transaction. From then on no ticket can enter it, reads no
 * longer show it (nor a ticket's `milestoneId` naming it), and the request answers at once,
 * whatever the milestone holds. The job (`clearDeletedMilestone`) then takes each ticket out
 * through the ticket write path, so timelines, events and counters follow. Deleting it again
 * answers 404.
 */
export async function deleteMilestone(ctx: DomainContext, boardId: string, milestoneId: string): Promise<void> {
  const milestone = (await enter(ctx, boardId, 'milestones:delete', milestoneId)).milestone!;
  const now = ctx.clock.now().toISOString();
  const clearing: MilestoneClearing = { boardId, milestoneId };
  await transact((e) => [
    guarded(
      e.milestone
        .patch({ orgId: ctx.org.orgId, boardId, milestoneId })
        .set({ isDeleted: true, deletedAt: now, updatedAt: now })
        .where((attr, op) => op.eq(attr.isDeleted, false))
        .commit(),
      () => notFound('Milestone'),
    ),
    releaseName(e, ctx.org.orgId, 'milestone', guardName(boardId, milestone.name)),
    ...eventPuts(e, [jobRecord(MILESTONE_CLEARING_JOB, ctx.org.orgId, ctx.clock, { subjectId: milestoneId, data: clearing })]),
  ]);
}

/**
 * One step of clearing a deleted milestone: the next CLEARED_PER_STEP tickets of its index,
 * each taken out (guarded by its version: one already out, or deleted, is left alone), then the
 * step that continues from there while the index goes on. Idempotent, so a step replayed
 * after a crash redoes nothing; the walk follows the index once, so deleted tickets that keep
 * the id are passed, not read again and again. Done by the service (actor `system`).
 */
export async function clearDeletedMilestone(event: JobRun<MilestoneClearing>, clock: Clock): Promise<number> {
  const { boardId, milestoneId, cursor } = event.data;
  const page = await db()
    .entities.ticket.query.byMilestone({ orgId: event.orgId, milestoneKey: milestoneId })
    .go({ limit: CLEARED_PER_STEP, ...(cursor ? { cursor } : {}) });
  const ctx = systemContext(clock, { orgId: event.orgId });
  await forEachAtMost(page.data, CLEARING_CONCURRENCY, (ticket) => leaveMilestone(ctx, ticket, milestoneId));
  if (page.cursor) {
    await continueJob(MILESTONE_CLEARING_JOB, event, clock, { ...event.data, cursor: page.cursor });
    return 0;
  }
  // Every ticket has left (their writes skipped the counts): the deleted milestone holds nothing.
  await db()
    .entities.milestone.patch({ orgId: event.orgId, boardId, milestoneId })
    .set({ ticketCount: 0, completedCount: 0 })
    .where((attr, op) => op.eq(attr.isDeleted, true))
    .go({ response: 'none' })
    .catch((error: unknown) => {
      if (!isConditionFailure(error)) throw error;
    });
  return 0;
}

/**
 * One ticket leaves a milestone. The first attempt writes from the copy the milestone's index
 * gave (its version guards the write); when that copy was stale, the ticket is read
 * consistently and the write tried again.
 */
async function leaveMilestone(ctx: DomainContext, listed: TicketItem, milestoneId: string): Promise<void> {
  await retryLostRaces(async (attempt) => {
    const ticket = attempt === 1 ? listed : (await db().entities.ticket.get({ ticketId: listed.ticketId }).go({ consistent: true })).data;
    if (!ticket || ticket.isDeleted || ticket.milestoneId !== milestoneId) return;
    const after: TicketItem = { ...ticket };
    delete after.milestoneId;
    await saveTicket(ctx, { before: ticket, after, leavesDeletedMilestone: true });
  });
}

/**
 * GET …/milestones/{id}/tickets: the milestone's live tickets as ticket lists show them, by
 * ticket id, optionally of one status category; paginated with an exact total. The milestone
 * index (live tickets only) is in that order within each category, so the page is read from it
 * no further than the page's end: the head of the category asked for, or the heads of the three
 * categories merged. The total is the milestone's own count (`ticketCount`, or `completedCount`
 * for FINAL), kept by every ticket write; for ACTIVE or PLANNING a COUNT of the index, beside
 * the read. Nothing reads the milestone's tickets beyond the page.
 */
export async function listMilestoneTickets(ctx: DomainContext, boardId: string, milestoneId: string, query: { status?: StatusCategory; page: number; limit: number }) {
  const { milestone } = await enter(ctx, boardId, 'milestones:view', milestoneId);
  const orgId = ctx.org.orgId;
  const end = query.page * query.limit;
  const ofCategory = (statusCategory: StatusCategory) => db().entities.ticket.query.byMilestone({ orgId, milestoneKey: milestoneId }).begins({ statusCategory });
  const [heads, total, config] = await Promise.all([
    Promise.all((query.status ? [query.status] : STATUS_CATEGORIES).map((category) => ofCategory(category).go({ count: end }))),
    !query.status ? milestone!.ticketCount : query.status === 'FINAL' ? milestone!.completedCount : queryCount(ofCategory(query.status).params() as QueryParams, { expression: '', names: {}, values: {} }),
    loadOrgConfig(orgId),
  ]);
  // Index order: ticket ids as the index compares them (their ULIDs' code units; ids are upper case).
  const tickets = heads
    .flatMap((head) => head.data)
    .sort((a, b) => (a.ticketId < b.ticketId ? -1 : a.ticketId > b.ticketId ? 1 : 0))
    .slice((query.page - 1) * query.limit, end);
  return pageOfTickets(tickets, total, query, config, ctx.clock.now());
}
