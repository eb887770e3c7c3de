import type { DomainContext } from '../db/context.js';
import type { BoardItem, TicketItem } from '../db/entities/index.js';
import type { EventInput } from '../events/index.js';
import type { OrgConfig } from './config.js';
import { applyFieldChanges, type TicketFieldChanges } from './fields.js';
import { referenceGuards, resolveAssignee, validateReferences } from './reference-guards.js';
import { saveTicket, type TimelineInput, type TransactionItemsBuilder } from './write.js';
import { BLOCKED_KEY } from './record/readiness.js';
import { enforceApprovalGate, type ApprovalGateMode } from './approvals/approval-gate.js';

/** Key of the status whose tickets carry blocker info (the API reference). */
export { BLOCKED_KEY };

export interface UpdateOptions {
  /** Explainable Status: why the status changed (stored on the ticket and its timeline). */
  statusReason?: string;
  /** Fields outside TicketFieldChanges (position, blocker info, flags, parent links …). */
  extra?: Partial<TicketItem>;
  /** Attributes to remove outright (e.g. blockerInfo when leaving BLOCKED). */
  remove?: (keyof TicketItem)[];
  /** The error when the ticket changed since it was read (default: LostRace). */
  onStale?: () => Error;
  timeline?: TimelineInput[];
  events?: EventInput[];
  /** Further items of the same transaction, each guarded with its own failure. */
  related?: TransactionItemsBuilder;
  /**
   * An agent's move into a gated status: `record` (default) records a suggestion on an
   * Explainable Status board before refusing; `refuse` only refuses (side-effect moves).
   */
  approvalGate?: ApprovalGateMode;
}

export interface LoadedTicket {
  board: BoardItem;
  ticket: TicketItem;
  config: OrgConfig;
}

/**
 * Applies field changes to a loaded ticket: validates what they refer to, keeps the
 * denormalized assignee name, records why a status changed, and writes everything through
 * `saveTicket` (one transaction with the timeline, the events and the reference checks).
 * Shared by every route that changes a ticket, and by the MCP tools later.
 */
export async function updateTicket(ctx: DomainContext, loaded: LoadedTicket, changes: TicketFieldChanges, options: UpdateOptions = {}): Promise<TicketItem> {
  const { board, ticket, config } = loaded;
  let after = applyFieldChanges(ticket, changes);
  if (options.extra) after = { ...after, ...options.extra };
  for (const field of options.remove ?? []) delete (after as Record<string, unknown>)[field];
  if (changes.assigneeId !== undefined && changes.assigneeId !== ticket.assigneeId) {
    const name = await resolveAssignee(ctx, board, changes.assigneeId);
    after = name ? { ...after, assigneeName: name } : after;
    // A ticket that got a new assignee no longer needs reassignment.
    after.needsReassignment = false;
  }
  validateReferences(config, board, ticket, after);
  await enforceApprovalGate(ctx, { board, ticket, config, toStatusId: after.statusId, reason: options.statusReason, mode: options.approvalGate });
  // Ids of labels deleted since they were set leave the ticket on its next write (lazy cleanup).
  if (after.labelIds) after.labelIds = after.labelIds.filter((labelId) => config.label(labelId) !== undefined);
  after.statusCategory = config.status(after.statusId)?.category ?? after.statusCategory;
  // Blocker info belongs to the BLOCKED status: any move to another status clears it.
  if (after.statusId !== ticket.statusId && config.status(after.statusId)?.key !== BLOCKED_KEY) delete after.blockerInfo;
  const now = ctx.clock.now().toISOString();
  if (after.statusId !== ticket.statusId) {
    after.statusChangedAt = now;
    if (options.statusReason) after.statusChangeReason = options.statusReason;
    else delete after.statusChangeReason;
  }
  after.updatedAt = now;
  const guards = referenceGuards(ticket, after);
  return saveTicket(ctx, {
    before: ticket,
    after,
    statusReason: options.statusReason,
    timeline: options.timeline,
    events: options.events,
    onStale: options.onStale,
    related: (e) => [...guards(e), ...(options.related?.(e) ?? [])],
  });
}
