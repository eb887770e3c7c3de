import { invalidField, notFound } from '../core/errors.js';
import { newId } from '../core/ids.js';
import { forEachAtMost } from '../core/concurrency.js';
import type { DomainContext } from '../db/context.js';
import { db } from '../db/service.js';
import type { KeyRequest } from '../db/batch.js';
import { guarded, transact, type TransactionEntities, type TransactionItem } from '../db/transact.js';
import { LostRace, retryLostRaces } from '../db/races.js';
import type { BoardItem, MilestoneItem, ReleaseItem, TicketItem } from '../db/entities/index.js';
import type { Permission } from '../organizations/index.js';
import { enterFeatureBoard, milestonesOf } from '../milestones/index.js';
import { liveTicketOf, loadTickets, loadOrgConfig, pageOfTickets, joinRelease, leaveRelease, systemContext } from '../tickets/index.js';
import { continueJob, eventPuts, jobKind, jobRecord, type JobRun, type JobPayload } from '../events/index.js';
import type { Clock } from '../core/clock.js';

/*
 * Releases of a board (docs/features.md, Milestones and releases), behind the board's Milestones & Releases feature.
 * A release groups milestones (by id; names are read when shown) and tickets (a ReleaseTicket
 * per ticket, the ticket's `releaseIds` and the release's `ticketCount`, always changed
 * together: lib/tickets/release-membership.ts).
 */

type ReleasePermission = Extract<Permission, `releases:${string}`>;

interface Entered {
  board: BoardItem;
  release?: ReleaseItem;
  /** Further items asked for, in request order (undefined when missing). */
  more: unknown[];
}

/**
 * The board and (when named) one of its releases, plus any further items, in one
 * BatchGetItem (lib/milestones `enterFeatureBoard`); 404 for an unknown release (or one being
 * deleted, unless `includeDeleted`).
 */
async function enter(ctx: DomainContext, boardId: string, permission: ReleasePermission, releaseId?: string, more: KeyRequest[] = [], includeDeleted = false): Promise<Entered> {
  const { board, found } = await enterFeatureBoard(ctx, boardId, permission, [
    ...(releaseId ? [{ entity: db().entities.release, key: { orgId: ctx.org.orgId, boardId, releaseId } }] : []),
    ...more,
  ]);
  if (!releaseId) return { board, more: found };
  const release = found.shift() as ReleaseItem | undefined;
  if (!release || (release.isDeleted && !includeDeleted)) throw notFound('Release');
  return { board, release, more: found };
}

/** The release as the API shows it; `milestones` are the attached ones still live, by name, in name order. */
export function presentRelease(release: ReleaseItem, boardMilestones: MilestoneItem[]) {
  const attached = new Set(release.milestoneIds ?? []);
  return {
    id: release.releaseId,
    boardId: release.boardId,
    name: release.name,
    version: release.version ?? null,
    description: release.description ?? null,
    releaseDate: release.releaseDate ?? null,
    milestones: boardMilestones
      .filter((milestone) => attached.has(milestone.milestoneId) && !milestone.isDeleted)
      .sort((a, b) => a.name.localeCompare(b.name) || a.milestoneId.localeCompare(b.milestoneId))
      .map((milestone) => ({ id: milestone.milestoneId, name: milestone.name })),
    ticketCount: release.ticketCount,
    createdAt: release.createdAt,
    updatedAt: release.updatedAt,
  };
}

/** GET …/releases: a bare array (the API reference), newest release date first (undated ones last), then by name. */
export async function listReleases(ctx: DomainContext, boardId: string) {
  const [, releases, milestones] = await Promise.all([
    enter(ctx, boardId, 'releases:view'),
    db().entities.release.query.byBoard({ orgId: ctx.org.orgId, boardId }).go({ pages: 'all' }),
    milestonesOf(ctx.org.orgId, boardId),
  ]);
  return releases.data
    .filter((release) => !release.isDeleted)
    .sort((a, b) => (b.releaseDate ?? '').localeCompare(a.releaseDate ?? '') || a.name.localeCompare(b.name) || a.releaseId.localeCompare(b.releaseId))
    .map((release) => presentRelease(release, milestones));
}

export interface ReleaseInput {
  name: string;
  version?: string | null;
  description?: string | null;
  releaseDate?: string | null;
}

/** The live milestones of the board among `milestoneIds`, or 400 naming the first that is not one. */
function liveMilestonesOf(boardMilestones: MilestoneItem[], milestoneIds: string[], field: (index: number) => string): MilestoneItem[] {
  return milestoneIds.map((milestoneId, index) => {
    const milestone = boardMilestones.find((candidate) => candidate.milestoneId === milestoneId && !candidate.isDeleted);
    if (!milestone) throw invalidField(field(index), 'Unknown milestone of this board');
    return milestone;
  });
}

/** A check, inside the write, that a milestone is still a live one of the board (else 400 naming `field`). */
function milestoneIsLive(e: TransactionEntities, milestone: MilestoneItem, field: string): TransactionItem {
  return guarded(
    e.milestone
      .check({ orgId: milestone.orgId, boardId: milestone.boardId, milestoneId: milestone.milestoneId })
      .where((attr, op) => op.eq(attr.isDeleted, false))
      .commit(),
    () => invalidField(field, 'Unknown milestone of this board'),
  );
}

/** POST …/releases: the release, with the milestones it names (each checked live in the same transaction). */
export async function createRelease(ctx: DomainContext, boardId: string, input: ReleaseInput & { milestoneIds?: string[] }) {
  const milestoneIds = [...new Set(input.milestoneIds ?? [])];
  // The board's milestones are read only when some are named.
  const [, boardMilestones] = await Promise.all([enter(ctx, boardId, 'releases:create'), milestoneIds.length > 0 ? milestonesOf(ctx.org.orgId, boardId) : []]);
  const milestones = liveMilestonesOf(boardMilestones, milestoneIds, (index) => `milestoneIds.${index}`);
  const now = ctx.clock.now().toISOString();
  const release: ReleaseItem = {
    orgId: ctx.org.orgId,
    boardId,
    releaseId: newId('rel'),
    name: input.name,
    ...(input.version ? { version: input.version } : {}),
    ...(input.description ? { description: input.description } : {}),
    ...(input.releaseDate ? { releaseDate: input.releaseDate } : {}),
    ...(milestoneIds.length > 0 ? { milestoneIds } : {}),
    ticketCount: 0,
    isDeleted: false,
    createdAt: now,
    updatedAt: now,
  };
  await transact((e) => [
    guarded(e.release.create(release).commit(), () => new LostRace()),
    ...milestones.map((milestone, index) => milestoneIsLive(e, milestone, `milestoneIds.${index}`)),
  ]);
  return presentRelease(release, boardMilestones);
}

/** GET …/releases/{id}. */
export async function getRelease(ctx: DomainContext, boardId: string, releaseId: string) {
  const [{ release }, milestones] = await Promise.all([enter(ctx, boardId, 'releases:view', releaseId), milestonesOf(ctx.org.orgId, boardId)]);
  return presentRelease(release!, milestones);
}

/** A `patch` of the release that holds only while it is live; its failure means the release is gone (404). */
function patchLive(e: TransactionEntities, release: ReleaseItem) {
  return e.release.patch({ orgId: release.orgId, boardId: release.boardId, releaseId: release.releaseId });
}

/**
 * PATCH …/releases/{id}: name, version, description and release date (null or '' clears the
 * optional ones). `ticketCount` and the milestones are never written back.
 */
export async function updateRelease(ctx: DomainContext, boardId: string, releaseId: string, input: Partial<ReleaseInput>) {
  const [{ release }, milestones] = await Promise.all([enter(ctx, boardId, 'releases:edit', releaseId), milestonesOf(ctx.org.orgId, boardId)]);
  const current = release!;
  const optional = ['version', 'description', 'releaseDate'] as const;
  const cleared = optional.filter((field) => input[field] === null || input[field] === '');
  const changes = {
    ...(input.name !== undefined ? { name: input.name } : {}),
    ...Object.fromEntries(optional.filter((field) => input[field]).map((field) => [field, input[field]])),
    updatedAt: ctx.clock.now().toISOString(),
  };
  await transact((e) => {
    const patch = patchLive(e, current).set(changes);
    return [
      guarded(
        (cleared.length > 0 ? patch.remove(cleared) : patch).where((attr, op) => op.eq(attr.isDeleted, false)).commit(),
        () => notFound('Release'),
      ),
    ];
  });
  const updated: ReleaseItem = { ...current, ...changes };
  for (const field of cleared) delete updated[field];
  return presentRelease(updated, milestones);
}

/** POST …/releases/{id}/milestones: attaches a live milestone of the board; attaching one already attached changes nothing. */
export async function attachMilestone(ctx: DomainContext, boardId: string, releaseId: string, milestoneId: string) {
  const [{ release }, boardMilestones] = await Promise.all([enter(ctx, boardId, 'releases:edit', releaseId), milestonesOf(ctx.org.orgId, boardId)]);
  const current = release!;
  const [milestone] = liveMilestonesOf(boardMilestones, [milestoneId], () => 'milestoneId');
  if ((current.milestoneIds ?? []).includes(milestoneId)) return presentRelease(current, boardMilestones);
  const updatedAt = ctx.clock.now().toISOString();
  await transact((e) => [
    guarded(
      patchLive(e, current)
        .add({ milestoneIds: [milestoneId] })
        .set({ updatedAt })
        .where((attr, op) => op.eq(attr.isDeleted, false))
        .commit(),
      () => notFound('Release'),
    ),
    milestoneIsLive(e, milestone!, 'milestoneId'),
  ]);
  return presentRelease({ ...current, milestoneIds: [...(current.milestoneIds ?? []), milestoneId], updatedAt }, boardMilestones);
}

/** DELETE …/releases/{id}/milestones/{milestoneId}: 404 unless the release shows that milestone. */
export async function detachMilestone(ctx: DomainContext, boardId: string, releaseId: string, milestoneId: string): Promise<void> {
  const [{ release }, boardMilestones] = await Promise.all([enter(ctx, boardId, 'releases:edit', releaseId), milestonesOf(ctx.org.orgId, boardId)]);
  const current = release!;
  if (!presentRelease(current, boardMilestones).milestones.some((milestone) => milestone.id === milestoneId)) throw notFound('Milestone of the release');
  await transact((e) => [
    guarded(
      patchLive(e, current)
        .delete({ milestoneIds: [milestoneId] })
        .set({ updatedAt: ctx.clock.now().toISOString() })
        .where((attr, op) => op.eq(attr.isDeleted, false))
        .commit(),
      () => notFound('Release'),
    ),
  ]);
}

/**
 * The ticket's `releaseIds` gains or loses one release, guarded by the ticket's version (so it
 * cannot interleave with any other write of the ticket, a delete or move included), with the
 * membership items of lib/tickets/release-membership.ts. Attaching is not a change of the
 * ticket's fields: no timeline entry, no event.
 */
function ticketReleases(e: TransactionEntities, ticket: TicketItem, releaseId: string, change: 'add' | 'delete'): TransactionItem {
  const patch = e.ticket.patch({ ticketId: ticket.ticketId });
  return guarded(
    (change === 'add' ? patch.add({ releaseIds: [releaseId] }) : patch.delete({ releaseIds: [releaseId] }))
      .set({ version: ticket.version + 1 })
      .where((attr, op) => op.eq(attr.version, ticket.version))
      .commit(),
    () => new LostRace('The ticket changed concurrently; retry'),
  );
}

const ticketKey = (ticketId: string): KeyRequest => ({ entity: db().entities.ticket, key: { ticketId } });

/**
 * POST …/releases/{id}/tickets: attaches a live ticket of the board (another board's or an
 * unknown one → 400 naming `ticketId`); attaching one already attached changes nothing.
 */
export async function attachTicket(ctx: DomainContext, boardId: string, releaseId: string, ticketId: string) {
  return retryLostRaces(async () => {
    const [{ release, more }, milestones] = await Promise.all([enter(ctx, boardId, 'releases:edit', releaseId, [ticketKey(ticketId)]), milestonesOf(ctx.org.orgId, boardId)]);
    const current = release!;
    const ticket = liveTicketOf(ctx, more[0] as TicketItem | undefined);
    if (!ticket || ticket.boardId !== boardId) throw invalidField('ticketId', 'Unknown ticket of this board');
    if ((ticket.releaseIds ?? []).includes(releaseId)) return presentRelease(current, milestones);
    await transact((e) => [ticketReleases(e, ticket, releaseId, 'add'), ...joinRelease(e, ticket, releaseId, ctx.clock.now().toISOString())]);
    return presentRelease({ ...current, ticketCount: current.ticketCount + 1 }, milestones);
  });
}

/** DELETE …/releases/{id}/tickets/{ticketId}: 404 unless the ticket is attached. */
export async function detachTicket(ctx: DomainContext, boardId: string, releaseId: string, ticketId: string): Promise<void> {
  await retryLostRaces(async () => {
    const { more } = await enter(ctx, boardId, 'releases:edit', releaseId, [ticketKey(ticketId)]);
    const ticket = liveTicketOf(ctx, more[0] as TicketItem | undefined);
    if (!ticket || !(ticket.releaseIds ?? []).includes(releaseId)) throw notFound('Ticket of the release');
    await transact((e) => [ticketReleases(e, ticket, releaseId, 'delete'), ...leaveRelease(e, ticket, releaseId)]);
  });
}

async function memberIds(orgId: string, releaseId: string): Promise<string[]> {
  const { data } = await db().entities.releaseTicket.query.byRelease({ orgId, releaseId }).go({ pages: 'all' });
  return data.map((member) => member.ticketId);
}

/** Tickets detached from a deleted release at once. */
const DETACH_CONCURRENCY = 8;

/** Memberships one step of the detaching job takes. */
export const DETACHED_PER_STEP = 200;

/** The background job that detaches a deleted release's tickets and then removes it (`detachDeletedRelease`). */
export const RELEASE_DETACHING_JOB = jobKind(
  'releases.detach',
  (z) => z.object({
    boardId: z.string(),
    releaseId: z.string(),
    /** Where the next step reads on in the release's memberships (absent: from their start). */
    cursor: z.optional(z.string()),
  }),
);
type ReleaseDetaching = JobPayload<typeof RELEASE_DETACHING_JOB>;

/**
 * DELETE …/releases/{id}: the release is marked deleted and the detaching job recorded, in one
 * transaction; from then on it is 404, nothing can join it, and the request answers at once,
 * whatever it holds. The job (`detachDeletedRelease`) detaches its tickets and then deletes
 * the item. Deleting it again answers 404.
 */
export async function deleteRelease(ctx: DomainContext, boardId: string, releaseId: string): Promise<void> {
  await enter(ctx, boardId, 'releases:delete', releaseId);
  const detaching: ReleaseDetaching = { boardId, releaseId };
  await transact((e) => [
    guarded(
      e.release
        .patch({ orgId: ctx.org.orgId, boardId, releaseId })
        .set({ isDeleted: true, updatedAt: ctx.clock.now().toISOString() })
        .where((attr, op) => op.eq(attr.isDeleted, false))
        .commit(),
      () => notFound('Release'),
    ),
    ...eventPuts(e, [jobRecord(RELEASE_DETACHING_JOB, ctx.org.orgId, ctx.clock, { subjectId: releaseId, data: detaching })]),
  ]);
}

/**
 * One step of deleting a release: the next DETACHED_PER_STEP memberships, each ticket detached
 * in its own transaction (re-read: one already detached is left alone), then the step that
 * continues from there. The last step detaches any member that joined behind the walk and
 * deletes the item once its `ticketCount` is 0 (read again and retried while members change).
 * Idempotent: a step replayed after a crash redoes nothing.
 */
export async function detachDeletedRelease(event: JobRun<ReleaseDetaching>, clock: Clock, perStep = DETACHED_PER_STEP): Promise<number> {
  const { boardId, releaseId, cursor } = event.data;
  const ctx = systemContext(clock, { orgId: event.orgId });
  const page = await db()
    .entities.releaseTicket.query.byRelease({ orgId: event.orgId, releaseId })
    .go({ limit: perStep, ...(cursor ? { cursor } : {}) });
  await forEachAtMost(page.data, DETACH_CONCURRENCY, (member) => leaveDeletedRelease(ctx, member.ticketId, releaseId));
  if (page.cursor) {
    await continueJob(RELEASE_DETACHING_JOB, event, clock, { ...event.data, cursor: page.cursor });
    return 0;
  }
  const key = { orgId: event.orgId, boardId, releaseId };
  await retryLostRaces(async () => {
    const release = (await db().entities.release.get(key).go({ consistent: true })).data;
    if (!release) return; // a replay of the last step: already gone
    const members = await memberIds(event.orgId, releaseId);
    await forEachAtMost(members, DETACH_CONCURRENCY, (ticketId) => leaveDeletedRelease(ctx, ticketId, releaseId));
    // A member that left meanwhile (deleted, moved) took its count with it: 0 now, or read again.
    await transact((e) => [
      guarded(
        e.release
          .delete(key)
          .where((attr, op) => `${op.eq(attr.ticketCount, 0)} AND ${op.eq(attr.isDeleted, true)}`)
          .commit(),
        () => new LostRace('Tickets of the release changed concurrently; retry'),
      ),
    ]);
  });
  return 0;
}

/** One ticket leaves a release being deleted (read again and retried when it changes concurrently). */
async function leaveDeletedRelease(ctx: DomainContext, ticketId: string, releaseId: string): Promise<void> {
  await retryLostRaces(async () => {
    const ticket = liveTicketOf(ctx, (await db().entities.ticket.get({ ticketId }).go({ consistent: true })).data ?? undefined);
    if (!ticket || !(ticket.releaseIds ?? []).includes(releaseId)) return;
    await transact((e) => [ticketReleases(e, ticket, releaseId, 'delete'), ...leaveRelease(e, ticket, releaseId)]);
  });
}

/**
 * GET …/releases/{id}/tickets: the release's tickets as ticket lists show them, in ticket id
 * order, paginated with an exact total (its members are exactly its live tickets). The
 * memberships are kept by ticket id, so only those up to the page's end are read, beside the
 * release (whose `ticketCount` is the total); then the page's tickets.
 */
export async function listReleaseTickets(ctx: DomainContext, boardId: string, releaseId: string, query: { page: number; limit: number }) {
  const start = (query.page - 1) * query.limit;
  const [{ release }, head, config] = await Promise.all([
    enter(ctx, boardId, 'releases:view', releaseId),
    db().entities.releaseTicket.query.byRelease({ orgId: ctx.org.orgId, releaseId }).go({ count: start + query.limit, attributes: ['ticketId'] }),
    loadOrgConfig(ctx.org.orgId),
  ]);
  const ids = head.data.slice(start, start + query.limit).map((member) => member.ticketId);
  const byId = new Map((await loadTickets(ctx, ids)).map((ticket) => [ticket.ticketId, ticket]));
  const tickets = ids.flatMap((ticketId) => byId.get(ticketId) ?? []);
  return pageOfTickets(tickets, release!.ticketCount, query, config, ctx.clock.now());
}
