import { invalidField } from '../core/errors.js';
import type { DomainContext } from '../core/context.js';
import { newId } from '../core/ids.js';
import { db } from '../db/service.js';
import { isConditionFailure } from '../db/transact.js';
import type { BoardItem, TicketItem } from '../db/entities/index.js';
import { visibleOrNotFound } from '../boards/index.js';
import { notFound } from '../core/errors.js';
import { requirePermission } from '../organizations/permissions.js';
import { loadOrgConfig, type OrgConfig } from './config.js';
import { applyFieldChanges, type TicketFieldChanges } from './fields.js';
import { referenceGuards, resolveAssignee, validateReferences } from './references.js';
import { assertAgentMayCreateIn } from '../suggestions/gate.js';
import { positionKeyOf, saveTicket, UNASSIGNED, type TransactionItemsBuilder } from './write.js';

export interface CreateTicketInput extends Omit<TicketFieldChanges, 'timeSpent'> {
  title: string;
}

export interface CreateOptions {
  /** Subticket creation: the parent, which must be updated in the same transaction. */
  parent?: TicketItem;
}

/**
 * Takes the board's next ticket number: one atomic ADD on the board item (refused for a
 * deleted board), which also returns the board for the access check and its prefix.
 * A number taken by a request that then fails is skipped, never reused.
 */
export async function takeTicketNumber(ctx: DomainContext, boardId: string): Promise<BoardItem> {
  try {
    const result = await db()
      .entities.board.patch({ orgId: ctx.org.orgId, boardId })
      .add({ ticketCounter: 1 })
      .where((attr, op) => op.eq(attr.isDeleted, false))
      .go({ response: 'all_new' });
    return result.data as BoardItem;
  } catch (error) {
    if (isConditionFailure(error)) throw notFound('Board');
    throw error;
  }
}

/**
 * Creates a ticket (spec §4.1 POST): the number comes from the board's counter, defaults
 * from the organization (default status, default type), and the ticket, its display-id
 * key, the type counter, reference checks, the CREATED timeline entry and the
 * `ticket.created` event are one transaction.
 */
export async function createTicket(ctx: DomainContext, boardId: string, input: CreateTicketInput, options: CreateOptions = {}): Promise<{ ticket: TicketItem; config: OrgConfig }> {
  requirePermission(ctx, 'tickets:create');
  const [numbered, config] = await Promise.all([takeTicketNumber(ctx, boardId), loadOrgConfig(ctx.org.orgId)]);
  const board = visibleOrNotFound(ctx, numbered);
  if (board.isArchived) throw invalidField('boardId', 'The board is archived');
  const status = input.statusId ? config.status(input.statusId) : config.defaultStatus();
  const type = input.typeId ? config.type(input.typeId) : config.defaultType();
  if (!status) throw invalidField('statusId', input.statusId ? 'Unknown status' : 'The organization has no default status');
  if (!type) throw invalidField('typeId', input.typeId ? 'Unknown ticket type' : 'The organization has no default ticket type');
  const assigneeName = await resolveAssignee(ctx, board, input.assigneeId);

  const now = ctx.clock.now();
  const number = board.ticketCounter;
  const base: TicketItem = {
    ticketId: newId('tkt'),
    orgId: ctx.org.orgId,
    boardId: board.boardId,
    number,
    displayId: `${board.prefix}-${number}`,
    title: input.title,
    description: '',
    statusId: status.statusId,
    statusCategory: status.category,
    priority: 'medium',
    typeId: type.typeId,
    labelIds: [],
    assigneeKey: UNASSIGNED,
    isArchived: false,
    isDeleted: false,
    // New tickets go to the end of their column; reorder places them between neighbours.
    position: now.getTime(),
    positionKey: positionKeyOf(now.getTime()),
    needsReassignment: false,
    commentCount: 0,
    createdById: ctx.actor.userId,
    createdAt: now.toISOString(),
    updatedAt: now.toISOString(),
    version: 1,
  };
  const changes: TicketFieldChanges = { ...input, statusId: status.statusId, typeId: type.typeId };
  let ticket = applyFieldChanges(base, changes);
  if (assigneeName) ticket = { ...ticket, assigneeName };
  if (options.parent) ticket = { ...ticket, parentTicketId: options.parent.ticketId };
  validateReferences(config, board, undefined, ticket);
  assertAgentMayCreateIn(ctx, status);

  const guards = referenceGuards(undefined, ticket);
  const parent = options.parent;
  let guardCount = 0;
  const related: TransactionItemsBuilder = (e) => {
    const items: any[] = [e.ticketKey.create({ orgId: ctx.org.orgId, displayId: ticket.displayId, ticketId: ticket.ticketId }).commit(), ...guards.items(e)];
    guardCount = items.length;
    if (parent) {
      items.push(
        e.ticket
          .put({ ...parent, subticketIds: [...(parent.subticketIds ?? []), ticket.ticketId], version: parent.version + 1, updatedAt: ticket.createdAt })
          .where((attr, op) => op.eq(attr.version, parent.version))
          .commit(),
      );
    }
    return items;
  };
  const saved = await saveTicket(ctx, {
    after: ticket,
    related,
    onRelatedFailed: (index) =>
      index === 0
        ? invalidField('displayId', 'Display id already taken; retry')
        : index < guardCount
          ? guards.errorFor(index - 1)
          : invalidField('parentTicketId', 'The parent ticket changed concurrently; retry'),
  });
  return { ticket: saved, config };
}
