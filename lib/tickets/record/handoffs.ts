import type { HandoffItem, TicketItem } from '../../db/entities/index.js';
import { newId } from '../../core/ids.js';
import type { TransactionEntities } from '../../db/transact.js';

/** Bounds of a handoff's fields. */
export const HANDOFF_LIMITS = { summary: 4_000, nextSteps: 4_000, branch: 200, links: 10, note: 1_000 } as const;

/** What the holder leaves on release (`DELETE …/claim` `handoff`). */
export interface HandoffInput {
  summary: string;
  nextSteps?: string;
  branch?: string;
  links?: string[];
}

/**
 * The handoff one lease leaves, written in the transaction that ends the lease: by its holder
 * on release (`input`), or automatically when it lapsed (the lease's last progress note and
 * heartbeat). Answers the item to write; `handoffPut` writes it.
 */
export function newHandoff(ticket: TicketItem, now: Date, input?: HandoffInput): HandoffItem {
  // A lease that lapsed after a stop was asked for says so: the next holder knows why it ended.
  const stop = input === undefined ? (ticket.claimDirective as { action?: string; requestedByName?: string; requestedAt?: string; message?: string | null } | undefined) : undefined;
  const stopSummary = stop?.action === 'stop' ? `Stopped by ${stop.requestedByName} at ${stop.requestedAt}${stop.message ? `: ${stop.message}` : ''}`.slice(0, HANDOFF_LIMITS.summary) : undefined;
  return {
    orgId: ticket.orgId,
    ticketId: ticket.ticketId,
    handoffId: newId('hof'),
    fromId: ticket.claimedById!,
    fromName: ticket.claimedByName ?? '',
    fromIsAgent: ticket.claimedByIsAgent === true,
    claimCount: ticket.claimCount ?? 0,
    ...(input?.summary !== undefined ? { summary: input.summary } : stopSummary ? { summary: stopSummary } : {}),
    ...(input?.nextSteps !== undefined ? { nextSteps: input.nextSteps } : {}),
    ...(input?.branch !== undefined ? { branch: input.branch } : {}),
    ...(input?.links?.length ? { links: input.links } : {}),
    ...(ticket.claimNote ? { lastNote: ticket.claimNote } : {}),
    ...(ticket.claimHeartbeatAt ? { lastHeartbeatAt: ticket.claimHeartbeatAt } : {}),
    auto: input === undefined,
    createdAt: now.toISOString(),
  };
}

export const handoffPut = (e: TransactionEntities, handoff: HandoffItem) => e.handoff.create(handoff).commit();

