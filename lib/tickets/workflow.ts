import { conflict, invalidField } from '../core/errors.js';
import type { DomainContext } from '../db/context.js';
import { db } from '../db/service.js';
import { guarded } from '../db/transact.js';
import { LostRace, retryLostRaces } from '../db/races.js';
import type { BoardItem, StatusItem, TicketItem, UserItem } from '../db/entities/index.js';
import { isStatusEnabledOnBoard, isTransitionAllowed, membershipGrantsAccess, visibleOrNotFound } from '../boards/index.js';
import { requirePermission } from '../organizations/index.js';
import { loadTicketOnBoardWith, loadTicketWithConfig } from './access.js';
import { loadOrgConfig, type OrgConfig } from './config.js';
import { takeTicketNumber } from './create.js';
import { listBoardTickets } from './lists/list.js';
import { presentFullTicket } from './present.js';
import { updateUnlessChanged } from './tickets.js';
import { BLOCKED_KEY, updateTicket, type UpdateOptions } from './update.js';
import { enforceApprovalGate } from './approvals/approval-gate.js';

const respond = (ctx: DomainContext, ticket: TicketItem, config: OrgConfig) => presentFullTicket(ticket, config, ctx);

export interface ChangeStatusInput {
  statusId: string;
  reason?: string;
}

/**
 * PATCH .../status (the API reference): any status enabled on the board; the reason is
 * stored with the change (Explainable Status). Transition rules apply to POST .../transition.
 */
export async function changeTicketStatus(ctx: DomainContext, boardId: string, ticketId: string, input: ChangeStatusInput) {
  requirePermission(ctx, 'tickets:edit');
  return retryLostRaces(async () => {
    const loaded = await loadTicketWithConfig(ctx, boardId, ticketId);
    const ticket = await updateTicket(ctx, loaded, { statusId: input.statusId }, { statusReason: input.reason });
    return respond(ctx, ticket, loaded.config);
  });
}

/** PATCH .../assign: a user who may see the board, or null to unassign (ticket.assigned is derived). */
export async function assignTicket(ctx: DomainContext, boardId: string, ticketId: string, assigneeId: string | null) {
  requirePermission(ctx, 'tickets:edit');
  return retryLostRaces(async () => {
    const loaded = await loadTicketWithConfig(ctx, boardId, ticketId);
    const ticket = await updateTicket(ctx, loaded, { assigneeId });
    return respond(ctx, ticket, loaded.config);
  });
}

export interface TransitionInput {
  toStatusId: string;
  reason?: string;
  blockerInfo?: { reason: string; blockedBy?: string };
}

/**
 * POST .../transition (the API reference): the board's transition rules decide whether
 * the move is allowed (409 CONFLICT otherwise); a reason is required when the board has
 * Explainable Status; a BLOCKED target requires blockerInfo.reason, which is stored on the
 * ticket until it leaves BLOCKED.
 */
export async function transitionTicket(ctx: DomainContext, boardId: string, ticketId: string, input: TransitionInput) {
  requirePermission(ctx, 'tickets:edit');
  return retryLostRaces(async () => {
    const loaded = await loadTicketWithConfig(ctx, boardId, ticketId);
    const { board, ticket, config } = loaded;
    const target = config.status(input.toStatusId);
    if (!target) throw invalidField('toStatusId', 'Unknown status');
    if (!isStatusEnabledOnBoard(board, target)) throw invalidField('toStatusId', 'This status is not enabled on the board');
    const reason = input.reason?.trim() || undefined;
    if (board.explainableStatus && !reason) throw invalidField('reason', 'The board explains status changes: a reason is required');
    const toBlocked = target.key === BLOCKED_KEY;
    if (toBlocked && !input.blockerInfo) throw invalidField('blockerInfo.reason', 'Required when moving to BLOCKED');
    if (!toBlocked && input.blockerInfo) throw invalidField('blockerInfo', 'Only a move to BLOCKED takes blocker info');
    if (!isTransitionAllowed(board, ticket.statusId, target.statusId)) {
      throw conflict('The board does not allow this transition', { fromStatusId: ticket.statusId, toStatusId: target.statusId });
    }
    const blockedBy = input.blockerInfo?.blockedBy;
    const options: UpdateOptions = { statusReason: reason };
    if (input.blockerInfo) {
      options.extra = { blockerInfo: { reason: input.blockerInfo.reason, ...(blockedBy ? { blockedBy } : {}) } };
    }
    if (blockedBy) {
      // The blocking person must be a user of the organization: checked inside the write.
      options.related = (e) => [
        guarded(e.user.check({ orgId: ctx.org.orgId, userId: blockedBy }).where((attr, op) => op.exists(attr.userId)).commit(), () =>
          invalidField('blockerInfo.blockedBy', 'Unknown user'),
        ),
      ];
    }
    const updated = await updateTicket(ctx, loaded, { statusId: target.statusId }, options);
    return respond(ctx, updated, config);
  });
}

/** The status approve moves to: the first ACTIVE status (organization order) enabled on the board. */
function firstActiveStatus(config: OrgConfig, board: BoardItem): StatusItem | undefined {
  return config.statuses.find((status) => status.category === 'ACTIVE' && isStatusEnabledOnBoard(board, status));
}

/** POST .../approve (the API reference): a PLANNING ticket moves to the board's first ACTIVE status. */
export async function approveTicket(ctx: DomainContext, boardId: string, ticketId: string) {
  requirePermission(ctx, 'tickets:edit');
  return retryLostRaces(async () => {
    const loaded = await loadTicketWithConfig(ctx, boardId, ticketId);
    const { board, ticket, config } = loaded;
    const current = config.status(ticket.statusId);
    if (current?.category !== 'PLANNING') {
      throw conflict('Only a ticket in a PLANNING status can be approved', { statusId: ticket.statusId, category: current?.category ?? null });
    }
    const target = firstActiveStatus(config, board);
    if (!target) throw conflict('The board has no ACTIVE status enabled to approve into', { boardId: board.boardId });
    const updated = await updateTicket(ctx, loaded, { statusId: target.statusId });
    return respond(ctx, updated, config);
  });
}

/** GET .../needing-reassignment: the shared filter with every status and archived tickets included. */
export function listTicketsNeedingReassignment(ctx: DomainContext, boardId: string, page: { page: number; limit: number }) {
  return listBoardTickets(ctx, boardId, { ...page, needsReassignment: true, includePlanning: true, includeArchived: true });
}

export interface ReorderInput {
  ticketId: string;
  position: number;
  /** A move to another column: validated like any status change. */
  statusId?: string;
}

/** PATCH .../reorder: a float position within the column, optionally in another column. */
export async function reorderTicket(ctx: DomainContext, boardId: string, input: ReorderInput) {
  requirePermission(ctx, 'tickets:edit');
  return retryLostRaces(async () => {
    const loaded = await loadTicketWithConfig(ctx, boardId, input.ticketId);
    const ticket = await updateTicket(ctx, loaded, { statusId: input.statusId }, { extra: { position: input.position } });
    return respond(ctx, ticket, loaded.config);
  });
}

export interface InlineUpdateInput {
  title?: string;
  description?: string;
  statusId?: string;
  assigneeId?: string | null;
  dueDate?: string | null;
  expectedUpdatedAt?: string;
}

/**
 * PATCH .../inline (board inline edit): optimistic locking on `expectedUpdatedAt`
 * (`updateUnlessChanged`).
 */
export async function inlineUpdateTicket(ctx: DomainContext, boardId: string, ticketId: string, input: InlineUpdateInput) {
  requirePermission(ctx, 'tickets:edit');
  const { expectedUpdatedAt, ...changes } = input;
  if (expectedUpdatedAt !== undefined) return updateUnlessChanged(ctx, boardId, ticketId, expectedUpdatedAt, changes);
  // Unguarded, a concurrent write is no conflict: read again and apply the change again.
  return retryLostRaces(async () => {
    const loaded = await loadTicketWithConfig(ctx, boardId, ticketId);
    return respond(ctx, await updateTicket(ctx, loaded, changes), loaded.config);
  });
}

/** Whether a stored user (the assignee) may see the board, token restrictions aside. */
function userMaySeeBoard(user: UserItem | undefined, board: BoardItem): boolean {
  if (!user?.isActive) return false;
  return membershipGrantsAccess({ userId: user.userId, role: user.role, customerId: user.customerId ?? null, teamIds: user.teamIds ?? [] }, board);
}

/** The status a moved ticket takes on the target board: its own if enabled there, else the target's default. */
function statusOnTarget(config: OrgConfig, board: BoardItem, statusId: string): StatusItem | undefined {
  const current = config.status(statusId);
  if (current && isStatusEnabledOnBoard(board, current)) return current;
  const fallback = config.defaultStatus();
  if (fallback && isStatusEnabledOnBoard(board, fallback)) return fallback;
  return config.statuses.find((status) => isStatusEnabledOnBoard(board, status));
}

/**
 * POST .../move: the ticket moves to another board the caller may see (404 otherwise) that
 * is not archived. It takes the target board's next number and display id (a new TicketKey;
 * the old key keeps resolving to the ticket), keeps its status if the target shows it and
 * takes the target's default status otherwise, and keeps its assignee, flagged
 * needsReassignment when the assignee cannot see the target board. Subtickets and tickets
 * with subtickets cannot move (409). Validation happens before a number is taken, so a
 * refused move leaves the target's counter alone.
 */
export async function moveTicket(ctx: DomainContext, boardId: string, ticketId: string, targetBoardId: string) {
  requirePermission(ctx, 'tickets:edit');
  if (targetBoardId === boardId) throw invalidField('targetBoardId', 'The ticket is already on this board');
  return retryLostRaces(async () => {
    const orgId = ctx.org.orgId;
    const [{ ticket, more }, config] = await Promise.all([
      loadTicketOnBoardWith(ctx, boardId, ticketId, [{ entity: db().entities.board, key: { orgId, boardId: targetBoardId } }]),
      loadOrgConfig(orgId),
    ]);
    const targetBoard = visibleOrNotFound(ctx, more[0] as BoardItem | undefined);
    assertTargetOpen(targetBoard);
    if (ticket.parentTicketId) {
      throw conflict('A subticket cannot be moved; promote it to a standalone ticket first', { reason: 'SUBTICKET', parentTicketId: ticket.parentTicketId });
    }
    if ((ticket.subticketIds ?? []).length > 0) {
      throw conflict('A ticket with subtickets cannot be moved', { reason: 'HAS_SUBTICKETS', subticketIds: ticket.subticketIds });
    }
    // An agent whose move would change the status into a gated one is refused before a number is taken.
    const expectedStatus = statusOnTarget(config, targetBoard, ticket.statusId);
    if (expectedStatus) await enforceApprovalGate(ctx, { board: targetBoard, ticket, config, toStatusId: expectedStatus.statusId, mode: 'refuse' });

    const [numbered, assignee] = await Promise.all([
      takeTicketNumber(ctx, targetBoardId),
      ticket.assigneeId ? db().entities.user.get({ orgId, userId: ticket.assigneeId }).go({ consistent: true }).then((result) => result.data ?? undefined) : undefined,
    ]);
    // The board as the counter returned it: re-checked in case it changed since it was read.
    const board = visibleOrNotFound(ctx, numbered);
    assertTargetOpen(board);
    const status = statusOnTarget(config, board, ticket.statusId);
    if (!status) throw invalidField('targetBoardId', 'The target board shows no status');
    const displayId = `${board.prefix}-${board.ticketCounter}`;
    const assigneeLosesAccess = ticket.assigneeId !== undefined && !userMaySeeBoard(assignee, board);
    const moved = await updateTicket(
      ctx,
      { board, ticket, config },
      { statusId: status.statusId },
      {
        statusReason: status.statusId === ticket.statusId ? undefined : `Moved to board ${board.name}, which does not show the previous status`,
        extra: {
          boardId: board.boardId,
          number: board.ticketCounter,
          displayId,
          // The end of its column on the target board, as a new ticket.
          position: ctx.clock.now().getTime(),
          needsReassignment: assigneeLosesAccess,
          // Milestones belong to a board: the ticket leaves its milestone (its progress falls in the same transaction).
          milestoneId: undefined,
          // So do releases: it leaves every release of the old board (their counts fall in the same transaction).
          releaseIds: undefined,
        },
        related: (e) => [guarded(e.ticketKey.create({ orgId, displayId, ticketId }).commit(), () => new LostRace('The display id on the target board is already taken; retry'))],
        // The status change is a side effect of the move: refused for an agent, never suggested.
        approvalGate: 'refuse',
      },
    );
    return { id: moved.ticketId, displayId: moved.displayId, title: moved.title, boardId: moved.boardId };
  });
}

function assertTargetOpen(target: BoardItem): void {
  if (target.isArchived) throw invalidField('targetBoardId', 'The target board is archived');
}
