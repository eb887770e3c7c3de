import { forbidden, invalidField } from '../core/errors.js';
import type { DomainContext } from '../db/context.js';
import { db } from '../db/service.js';
import { guarded, type TransactionEntities, type TransactionItem } from '../db/transact.js';
import type { TransactionItemsBuilder } from './write.js';
import type { BoardItem, TicketItem, UserItem } from '../db/entities/index.js';
import { isStatusEnabledOnBoard, membershipGrantsAccess } from '../boards/index.js';
import type { OrgConfig } from './config.js';

/**
 * Validates what a ticket refers to (status, type, labels, customer, milestone, assignee)
 * and builds the transaction items that keep those references true at write time:
 * existence checks and the ticket-type counters, each carrying the 400 naming its field.
 */
export function validateReferences(config: OrgConfig, board: BoardItem, before: TicketItem | undefined, after: TicketItem): void {
  if (!before || before.statusId !== after.statusId || before.boardId !== after.boardId) {
    const status = config.status(after.statusId);
    if (!status) throw invalidField('statusId', 'Unknown status');
    if (!isStatusEnabledOnBoard(board, status)) throw invalidField('statusId', 'This status is not enabled on the board');
  }
  if ((!before || before.typeId !== after.typeId) && !config.type(after.typeId)) throw invalidField('typeId', 'Unknown ticket type');
  const previousLabels = new Set(before?.labelIds ?? []);
  (after.labelIds ?? []).forEach((labelId, index) => {
    if (!previousLabels.has(labelId) && !config.label(labelId)) throw invalidField(`labelIds.${index}`, 'Unknown label');
  });
  // A milestone is set only on a board with Milestones & Releases; that it is a live milestone
  // of this board is checked at commit by the progress counter's guard (lib/tickets/write.ts).
  if (after.milestoneId && after.milestoneId !== before?.milestoneId && !board.milestonesAndReleases) {
    throw forbidden('Milestones & Releases is switched off for this board', 'FEATURE_DISABLED', { feature: 'milestonesAndReleases' });
  }
}

/** Items that re-check the references inside the write, plus the type counters; each names the field it guards. */
export function referenceGuards(before: TicketItem | undefined, after: TicketItem): TransactionItemsBuilder {
  const orgId = after.orgId;
  const builders: ((e: TransactionEntities) => TransactionItem)[] = [];
  if (!before || before.statusId !== after.statusId) {
    builders.push((e) => guarded(e.status.check({ orgId, statusId: after.statusId }).where((attr, op) => op.exists(attr.statusId)).commit(), () => invalidField('statusId', 'Unknown status')));
  }
  if (!before || before.typeId !== after.typeId || (after.isDeleted && !before.isDeleted)) {
    const unknownType = () => invalidField('typeId', 'Unknown ticket type');
    if (before) builders.push((e) => guarded(e.ticketType.patch({ orgId, typeId: before.typeId }).add({ ticketCount: -1 }).commit(), unknownType));
    // `patch` fails when the type no longer exists, and the condition when it is being deleted: the counter doubles as the existence check.
    if (!after.isDeleted) {
      builders.push((e) => guarded(e.ticketType.patch({ orgId, typeId: after.typeId }).add({ ticketCount: 1 }).where((attr, op) => op.notExists(attr.replacedBy)).commit(), unknownType));
    }
  }
  const previousLabels = new Set(before?.labelIds ?? []);
  (after.labelIds ?? []).forEach((labelId, index) => {
    if (previousLabels.has(labelId)) return;
    builders.push((e) => guarded(e.label.check({ orgId, labelId }).where((attr, op) => op.exists(attr.labelId)).commit(), () => invalidField(`labelIds.${index}`, 'Unknown label')));
  });
  if (after.customerId && after.customerId !== before?.customerId) {
    builders.push((e) =>
      guarded(e.customer.check({ orgId, customerId: after.customerId! }).where((attr, op) => op.exists(attr.customerId)).commit(), () => invalidField('customerId', 'Unknown customer')),
    );
  }
  return (e) => builders.map((build) => build(e));
}

/**
 * The assignee, if one is being set: an active, internal user of the organization who may
 * see the board. Returns the name to store on the ticket.
 */
export async function resolveAssignee(ctx: DomainContext, board: BoardItem, assigneeId: string | undefined | null): Promise<string | undefined> {
  return checkAssignee(board, assigneeId, await readAssignee(ctx, assigneeId));
}

/** Reads the user an assignee id names (nothing when none is set), so callers can read it beside other items. */
export async function readAssignee(ctx: DomainContext, assigneeId: string | undefined | null): Promise<UserItem | undefined> {
  if (!assigneeId) return undefined;
  return ((await db().entities.user.get({ orgId: ctx.org.orgId, userId: assigneeId }).go({ consistent: true })).data as UserItem | null) ?? undefined;
}

/** The checks of `resolveAssignee` on a user already read; returns the name to store. */
export function checkAssignee(board: BoardItem, assigneeId: string | undefined | null, user: UserItem | undefined): string | undefined {
  if (!assigneeId) return undefined;
  if (!user?.isActive) throw invalidField('assigneeId', 'Unknown user');
  if (user.role === 'CUSTOMER') throw invalidField('assigneeId', 'Customer users cannot be assigned');
  const subject = { userId: user.userId, role: user.role, customerId: user.customerId ?? null, teamIds: user.teamIds ?? [] };
  if (!membershipGrantsAccess(subject, board)) throw invalidField('assigneeId', 'This user cannot see the board');
  return user.name;
}
