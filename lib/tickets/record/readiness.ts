import type { TicketItem } from '../../db/entities/index.js';
import { isQueued } from '../../db/entities/index.js';
import { type EventInput, jobEvent, jobKind, type JobPayload } from '../../events/index.js';
import type { OrgConfig } from '../config.js';
import { hasLiveClaim } from './lease.js';

/** The status key of the organization's BLOCKED status. */
export const BLOCKED_KEY = 'BLOCKED';

/**
 * Ready work (the fleet's queue). A ticket is ready when it is live and not archived, its status
 * is ACTIVE and not the organization's BLOCKED status, it has no live claim, every ticket it
 * depends on is FINAL (or deleted), and none of its subtickets is open. The byReady index holds
 * what a write can judge (`isQueued`); the BLOCKED status and a lapsed, unswept claim are
 * judged by the reader. This is the whole rule, for one ticket.
 */
export function isReady(ticket: TicketItem, config: OrgConfig, now: Date): boolean {
  const status = config.status(ticket.statusId);
  if (status?.category !== 'ACTIVE' || status.key === BLOCKED_KEY) return false;
  if (hasLiveClaim(ticket, now)) return false;
  return isQueued({ ...ticket, claimedById: undefined });
}

/** A ticket that still holds up what depends on it: live and not FINAL. */
export const isOpenTicket = (ticket: TicketItem | undefined): boolean => !!ticket && !ticket.isDeleted && ticket.statusCategory !== 'FINAL';

/**
 * The internal outbox record that carries a change of readiness to other tickets: written in
 * the transaction of a ticket write that opened or closed the ticket (entered or left FINAL,
 * was deleted) or changed its parent. The events function then recounts the open blockers of
 * the tickets that depend on it and the open subtickets of its parents (`propagateReadiness`).
 * Not a webhook event: never in the catalogue, never delivered.
 */
export const READINESS_JOB = jobKind(
  'tickets.readiness',
  /** What a ticket write changes of other tickets' readiness: its dependents' (it opened or closed), its parents'. */
  (z) => z.object({
    ticketId: z.string(),
    parentIds: z.array(z.string()),
    deleted: z.boolean(),
    /** It entered or left FINAL, or was deleted while open: its dependents' open blockers change. */
    dependents: z.boolean(),
    /** Its parent is the same before and after (a subticket that opened or closed, not one attached or detached, whose parent the write itself updates). */
    sameParent: z.boolean(),
  }),
);
export type ReadinessChange = JobPayload<typeof READINESS_JOB>;

export function readinessChangeOf(before: TicketItem | undefined, after: TicketItem): ReadinessChange | undefined {
  const parentIds = [...new Set([before?.parentTicketId, after.parentTicketId].filter((id): id is string => !!id))];
  const opennessChanged = before !== undefined && isOpenTicket(before) !== isOpenTicket(after);
  const parentChanged = (before?.parentTicketId ?? null) !== (after.parentTicketId ?? null);
  if (!opennessChanged && !parentChanged) return undefined;
  return { ticketId: after.ticketId, parentIds, deleted: after.isDeleted === true, dependents: opennessChanged, sameParent: !parentChanged };
}

export function readinessEventFor(change: ReadinessChange): EventInput {
  // Its own outbox partition, apart from the ticket's webhook events.
  return jobEvent(READINESS_JOB, { subjectId: `readiness:${change.ticketId}`, data: change });
}

