import type { Clock } from '../../core/clock.js';
import type { DomainContext } from '../../db/context.js';
import { db } from '../../db/service.js';
import { guarded, isConditionFailure, transact, type TransactionEntities } from '../../db/transact.js';
import { LostRace, retryLostRaces } from '../../db/races.js';
import { log } from '../../core/telemetry.js';
import { STATUS_CATEGORIES, type StatusItem, type TicketItem } from '../../db/entities/index.js';
import { continueJob, eventPuts, newEventRecord, type JobRun } from '../../events/index.js';
import { RECATEGORIZE_JOB, type Recategorizing } from '../../statuses/index.js';
import { readinessChangeOf, readinessEventFor } from '../record/readiness.js';
import { systemContext } from '../system-context.js';
import { nextBoardOf } from '../../boards/index.js';
import { milestoneProgress, replaceTicketItems, saveTicket } from '../write.js';

/** Tickets one step reads per category they may be left under (two categories: at most 200, a few seconds of writes). */
export const RECATEGORIZED_PER_STEP = 100;

/** Walks over every board at most: the first moves the tickets, the next finds none left (or the few a request with the old category wrote behind the walk). */
const MAX_PASSES = 3;

/** The status changed category again (a newer job moves its tickets now) or was deleted: this job ends. */
class Superseded extends Error {}

/**
 * One step of moving a status's tickets to the category it was given (the background job of a
 * category change, recorded by lib/statuses with the status marked `recategorizing`; wired in
 * functions/events.ts). Tickets carry their status's category in their board index key, so
 * each ticket of the status still under another category is rewritten: RECATEGORIZED_PER_STEP
 * of each such category on one board (every board of the organization, deleted ones too, in
 * the order of their ids: `nextBoardOf`, one small Query a step), then the step that
 * continues. A rewritten ticket leaves the key range read, so a step starts at the range's
 * beginning again and a replayed step redoes nothing.
 * After a walk over the boards that moved nothing, the mark is removed. Each ticket's
 * transaction checks that the status still carries this job's mark: a category changed again
 * meanwhile (its own job supersedes this one) or a deleted status ends the job without writing.
 * Done by the service, in the name of whoever changed the category.
 */
export async function recategorizeStep(event: JobRun<Recategorizing>, clock: Clock): Promise<number> {
  const job = event.data;
  const orgId = event.orgId;
  const [status, board] = await Promise.all([
    db().entities.status.get({ orgId, statusId: job.statusId }).go({ consistent: true }).then((result) => result.data),
    nextBoardOf(orgId, job.after),
  ]);
  if (!status || status.recategorizing !== job.jobId) return 0;
  if (board) {
    const pages = await Promise.all(
      STATUS_CATEGORIES.filter((category) => category !== status.category).map((statusCategory) =>
        db().entities.ticket.query.byBoard({ orgId, boardId: board.boardId, statusCategory, statusId: status.statusId }).go({ limit: RECATEGORIZED_PER_STEP }),
      ),
    );
    const service = systemContext(clock, { orgId });
    // The service does the work; a claim it ends is released by whoever changed the category.
    const ctx: DomainContext = { ...service, actor: { ...service.actor, userId: job.actorId, name: job.actorName } };
    let moved = job.moved === true;
    try {
      for (const ticket of pages.flatMap((page) => page.data as TicketItem[])) {
        if (await moveTicket(ctx, ticket, status, job.jobId)) moved = true;
      }
    } catch (error) {
      if (error instanceof Superseded) return 0;
      throw error;
    }
    const more = pages.some((page) => page.cursor);
    await continueJob(RECATEGORIZE_JOB, event, clock, { ...job, ...(more ? {} : { after: board.boardId }), moved });
    return 0;
  }
  const pass = job.pass ?? 0;
  if (job.moved && pass + 1 < MAX_PASSES) {
    const { after: _done, ...rest } = job;
    await continueJob(RECATEGORIZE_JOB, event, clock, { ...rest, moved: false, pass: pass + 1 });
    return 0;
  }
  if (job.moved) log.warn('a recategorized status still had tickets to move after every pass', { orgId, statusId: job.statusId });
  await db()
    .entities.status.patch({ orgId, statusId: job.statusId })
    .remove(['recategorizing'])
    .where((attr, op) => op.eq(attr.recategorizing, job.jobId))
    .go({ response: 'none' })
    .catch((error: unknown) => {
      if (!isConditionFailure(error)) throw error;
    });
  return 0;
}

/**
 * Rewrites one ticket under its status's category (guarded by its version, which it bumps so
 * no writer that read the old copy can overwrite the new one), with everything the category
 * decides: its column's `queued` count (column counts are keyed by status, not category), its
 * milestone's completed count, and the readiness of the tickets it blocks and of its parent
 * when it enters or leaves FINAL. No webhook event: nothing changed for the ticket's users. A
 * claimed ticket that thereby enters FINAL goes through the ticket write path instead, which
 * ends its claim (ticket.claim_released, slot freed) in the same transaction. False when the
 * ticket needed no move (moved on since it was read).
 */
async function moveTicket(ctx: DomainContext, ticket: TicketItem, status: StatusItem, jobId: string): Promise<boolean> {
  const to = status.category;
  const stillThisJob = (e: TransactionEntities) =>
    guarded(
      e.status
        .check({ orgId: status.orgId, statusId: status.statusId })
        .where((attr, op) => op.eq(attr.recategorizing, jobId))
        .commit(),
      () => new Superseded(),
    );
  let moved = false;
  await retryLostRaces(async (attempt) => {
    const current = attempt === 1 ? ticket : ((await db().entities.ticket.get({ ticketId: ticket.ticketId }).go({ consistent: true })).data as TicketItem | null);
    if (!current || current.statusId !== status.statusId || current.statusCategory === to) return;
    if (to === 'FINAL' && current.claimedById) {
      await saveTicket(ctx, { before: current, after: { ...current, statusCategory: to }, derivedEvents: false, related: (e) => [stillThisJob(e)] });
    } else {
      // The whole item again: the entity derives its index keys from the new category.
      const after: TicketItem = { ...current, statusCategory: to, version: current.version + 1 };
      const readiness = readinessChangeOf(current, after);
      await transact((e) => [
        ...replaceTicketItems(e, current, after, () => new LostRace('The ticket changed concurrently; retry')),
        ...milestoneProgress(e, current, after),
        ...(readiness ? eventPuts(e, [newEventRecord(current.orgId, ctx.clock, readinessEventFor(readiness))]) : []),
        stillThisJob(e),
      ]);
    }
    moved = true;
  });
  return moved;
}
