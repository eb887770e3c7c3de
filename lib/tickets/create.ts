import { forbidden, invalidField, notFound } from '../core/errors.js';
import type { DomainContext } from '../db/context.js';
import { newId } from '../core/ids.js';
import { db } from '../db/service.js';
import { guarded, isConditionFailure } from '../db/transact.js';
import type { BoardItem, TicketItem } from '../db/entities/index.js';
import { loadVisibleBoard, visibleOrNotFound } from '../boards/index.js';
import { requirePermission } from '../organizations/index.js';
import { loadOrgConfig, type OrgConfig } from './config.js';
import { applyFieldChanges, type TicketFieldChanges } from './fields.js';
import { checkAssignee, readAssignee, referenceGuards, validateReferences } from './reference-guards.js';
import { assertAgentMayCreateIn } from './approvals/approval-gate.js';
import { attachToParent } from './parent-links.js';
import { saveTicket, type TransactionItemsBuilder } from './write.js';

export interface CreateTicketInput extends Omit<TicketFieldChanges, 'timeSpent'> {
  title: string;
}

export interface CreateOptions {
  /** Subticket creation: the parent, which must be updated in the same transaction. */
  parent?: TicketItem;
  /** The board, when the caller already read it and checked the caller may see it. */
  board?: BoardItem;
}

/**
 * Takes the board's next ticket number: one atomic ADD on the board item (refused for a
 * deleted board), which also returns the board with its prefix. Callers take it only once
 * every check has passed, so a refused request never consumes a number; a number taken by
 * a request that then loses a race in its final transaction is skipped, never reused.
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

/** What a customer user may set on a new ticket (customer users see and do little: the API reference). */
const CUSTOMER_FIELDS = new Set<string>(['title', 'description', 'priority', 'typeId', 'dueDate', 'customerId']);

/**
 * A customer user's ticket: customer fields only (anything else is 403 naming the fields),
 * and always their own customer.
 */
function customerTicketInput(ctx: DomainContext, input: CreateTicketInput): CreateTicketInput {
  const internal = Object.entries(input)
    .filter(([field, value]) => value !== undefined && !CUSTOMER_FIELDS.has(field))
    .map(([field]) => field);
  const ownCustomer = ctx.actor.customerId;
  if (input.customerId !== undefined && input.customerId !== ownCustomer) internal.push('customerId');
  if (internal.length > 0) {
    throw forbidden(`Customer users cannot set ${internal.join(', ')}`, 'FORBIDDEN', { fields: internal.sort() });
  }
  return { ...input, customerId: ownCustomer };
}

/**
 * Creates a ticket (the API reference). First every check: the board (visible, open), the
 * organization's defaults and references (configuration), the assignee and customer, all read
 * in parallel; only then the board's counter gives the number. The ticket, its display-id
 * key, the type counter, reference guards, the CREATED timeline entry and `ticket.created`
 * are one transaction. `options.board` (already read and checked by the caller) saves a read.
 */
export async function createTicket(ctx: DomainContext, boardId: string, requested: CreateTicketInput, options: CreateOptions = {}): Promise<{ ticket: TicketItem; config: OrgConfig }> {
  requirePermission(ctx, 'tickets:create');
  const input = ctx.actor.role === 'CUSTOMER' ? customerTicketInput(ctx, requested) : requested;
  const [board, config, assignee, customer] = await Promise.all([
    options.board ?? loadVisibleBoard(ctx, boardId, { consistent: true }),
    loadOrgConfig(ctx.org.orgId),
    readAssignee(ctx, input.assigneeId),
    input.customerId ? db().entities.customer.get({ orgId: ctx.org.orgId, customerId: input.customerId }).go().then((result) => result.data ?? undefined) : undefined,
  ]);
  if (board.isArchived) throw invalidField('boardId', 'The board is archived');
  const status = input.statusId ? config.status(input.statusId) : config.defaultStatus();
  const type = input.typeId ? config.type(input.typeId) : config.defaultType();
  if (!status) throw invalidField('statusId', input.statusId ? 'Unknown status' : 'The organization has no default status');
  if (!type) throw invalidField('typeId', input.typeId ? 'Unknown ticket type' : 'The organization has no default ticket type');
  const assigneeName = checkAssignee(board, input.assigneeId, assignee);
  if (input.customerId && !customer) throw invalidField('customerId', 'Unknown customer');

  const now = ctx.clock.now();
  const base: TicketItem = {
    ticketId: newId('tkt'),
    orgId: ctx.org.orgId,
    boardId: board.boardId,
    number: 0,
    displayId: '',
    title: input.title,
    description: '',
    statusId: status.statusId,
    statusCategory: status.category,
    priority: 'medium',
    typeId: type.typeId,
    labelIds: [],
    isArchived: false,
    isDeleted: false,
    // New tickets go to the end of their column; reorder places them between neighbours.
    position: now.getTime(),
    needsReassignment: false,
    commentCount: 0,
    createdById: ctx.actor.userId,
    createdAt: now.toISOString(),
    updatedAt: now.toISOString(),
    version: 1,
  };
  const changes: TicketFieldChanges = { ...input, statusId: status.statusId, typeId: type.typeId };
  let draft = applyFieldChanges(base, changes);
  if (assigneeName) draft = { ...draft, assigneeName };
  if (options.parent) draft = { ...draft, parentTicketId: options.parent.ticketId };
  validateReferences(config, board, undefined, draft);
  assertAgentMayCreateIn(ctx, status);

  // Every check passed: now the number. The board as the counter returns it is checked again.
  const numbered = visibleOrNotFound(ctx, await takeTicketNumber(ctx, board.boardId));
  const ticket: TicketItem = { ...draft, number: numbered.ticketCounter, displayId: `${numbered.prefix}-${numbered.ticketCounter}` };

  const guards = referenceGuards(undefined, ticket);
  const parent = options.parent;
  const related: TransactionItemsBuilder = (e) => [
    guarded(e.ticketKey.create({ orgId: ctx.org.orgId, displayId: ticket.displayId, ticketId: ticket.ticketId }).commit(), () =>
      invalidField('displayId', 'Display id already taken; retry'),
    ),
    ...guards(e),
    ...(parent ? attachToParent(e, parent, ticket, ticket.createdAt, () => invalidField('parentTicketId', 'The parent ticket changed concurrently; retry')) : []),
  ];
  const saved = await saveTicket(ctx, { after: ticket, related });
  return { ticket: saved, config };
}
