import type { Clock } from '../../core/clock.js';
import { db } from '../../db/service.js';
import { isConditionFailure } from '../../db/transact.js';
import { log } from '../../core/telemetry.js';
import type { TicketItem } from '../../db/entities/index.js';
import { nextBoardOf } from '../../boards/index.js';
import { continueJob, jobKind, type JobRun, type JobPayload } from '../../events/index.js';
import { loadOrgConfig } from '../config.js';
import { systemContext } from '../system-context.js';
import { rewriteTickets } from './bulk.js';

/** The background job that moves a deleted type's tickets to its replacement (run by lib/tickets/jobs.ts). */
export const RETYPE_JOB = jobKind(
  'ticketTypes.retype',
  (z) => z.object({
    fromTypeId: z.string(),
    /** The last board this walk is done with (boards in id order; absent: none yet). */
    after: z.optional(z.string()),
    /** Where the Query of the board after `after` reads on. */
    cursor: z.optional(z.string()),
    /** Walks over the boards so far, after the first. */
    pass: z.optional(z.int().check(z.nonnegative())),
  }),
);
export type Retyping = JobPayload<typeof RETYPE_JOB>;

/** Tickets one step reads (about 2 s of writes at most, far inside the function's 60 s). */
export const RETYPED_PER_STEP = 200;

/** Walks over every board before the type is deleted anyway (a ticket that kept it then shows no type name). */
const MAX_PASSES = 3;

/**
 * One step of moving a deleted type's tickets (the type marked `replacedBy`, so reads already
 * show the replacement): the next RETYPED_PER_STEP tickets of one board (every board of the
 * organization, deleted ones too, in the order of their ids: `nextBoardOf`), those of the type
 * rewritten through the ticket write path (events, timeline, both types' counts), then the
 * step that continues. After the last board the type item is deleted once its count is 0; a ticket that
 * took the type before it was marked, behind the walk, sends the walk round again. Idempotent,
 * so a step replayed after a crash redoes nothing. The replacement is where the type's chain
 * of replacements ends now (it may have been deleted since, too). Done by the service (actor
 * `system`).
 */
export async function retypeStep(event: JobRun<Retyping>, clock: Clock): Promise<number> {
  const job = event.data;
  const orgId = event.orgId;
  const [board, config] = await Promise.all([nextBoardOf(orgId, job.after), loadOrgConfig(orgId)]);
  const target = config.shownType(job.fromTypeId);
  if (board && target) {
    const page = await db().entities.ticket.query.byBoard({ orgId, boardId: board.boardId }).go({ limit: RETYPED_PER_STEP, ...(job.cursor ? { cursor: job.cursor } : {}) });
    const ctx = systemContext(clock, { orgId });
    const ofType = (page.data as TicketItem[]).filter((ticket) => ticket.typeId === job.fromTypeId && !ticket.isDeleted);
    await rewriteTickets(ctx, ofType, config, (ticket) => (ticket.boardId === board.boardId ? board : undefined), (ticket) =>
      ticket.typeId === job.fromTypeId ? { changes: { typeId: target.typeId } } : 'skip',
    );
    const next: Retyping = page.cursor ? { ...job, cursor: page.cursor } : { fromTypeId: job.fromTypeId, after: board.boardId, ...(job.pass ? { pass: job.pass } : {}) };
    await continueJob(RETYPE_JOB, event, clock, next);
    return 0;
  }
  const type = (await db().entities.ticketType.get({ orgId, typeId: job.fromTypeId }).go({ consistent: true })).data;
  if (!type) return 0;
  const pass = job.pass ?? 0;
  if (type.ticketCount > 0 && target && pass + 1 < MAX_PASSES) {
    await continueJob(RETYPE_JOB, event, clock, { fromTypeId: job.fromTypeId, pass: pass + 1 });
    return 0;
  }
  if (type.ticketCount > 0) log.warn('deleted ticket type kept tickets after every pass', { orgId, typeId: job.fromTypeId, tickets: type.ticketCount });
  await db()
    .entities.ticketType.delete({ orgId, typeId: job.fromTypeId })
    .where((attr, op) => op.exists(attr.replacedBy))
    .go({ response: 'none' })
    .catch((error: unknown) => {
      if (!isConditionFailure(error)) throw error;
    });
  return 0;
}
