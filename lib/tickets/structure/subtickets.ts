import { conflict, invalidField, notFound } from '../../core/errors.js';
import type { DomainContext } from '../../db/context.js';
import { LostRace, retryLostRaces } from '../../db/races.js';
import { db } from '../../db/service.js';
import type { TicketItem } from '../../db/entities/index.js';
import { requirePermission } from '../../organizations/index.js';
import { liveTicketOf, loadTicketOnBoard, loadTicketOnBoardWith, loadTicketWithConfig, loadTickets } from '../access.js';
import { loadOrgConfig, type OrgConfig } from '../config.js';
import { createTicket } from '../create.js';
import { presentFullTicket } from '../present.js';
import { updateTicket } from '../update.js';
import { attachToParent, detachFromParent } from '../parent-links.js';

/** Subtickets one ticket may hold. Subtickets are one level deep: a subticket has none. */
export const MAX_SUBTICKETS_PER_TICKET = 100;

/** The live parent of a subticket (one consistent read); undefined for a standalone ticket or a deleted parent. */
export async function loadLiveParent(ctx: DomainContext, child: TicketItem): Promise<TicketItem | undefined> {
  if (!child.parentTicketId) return undefined;
  return (await loadTickets(ctx, [child.parentTicketId]))[0];
}

const parentChanged = () => new LostRace('The parent ticket changed concurrently; retry');

/** Whether `parent` may take one more subticket (409 with a reason code otherwise). */
function assertCanTakeSubticket(parent: TicketItem): void {
  if (parent.parentTicketId) {
    throw conflict('A subticket cannot have subtickets of its own', { reason: 'PARENT_IS_SUBTICKET' });
  }
  if ((parent.subticketIds ?? []).length >= MAX_SUBTICKETS_PER_TICKET) {
    throw conflict(`A ticket has at most ${MAX_SUBTICKETS_PER_TICKET} subtickets`, { reason: 'TOO_MANY_SUBTICKETS' });
  }
}

/**
 * The board and tickets of a request that names two tickets: one consistent BatchGetItem,
 * the organization's configuration beside it. 404 unless the board is visible and `ticketId`
 * is a live ticket of it; the second ticket comes back as read (the caller judges it).
 */
async function loadTicketAndAnother(ctx: DomainContext, boardId: string, ticketId: string, otherId: string) {
  const [{ board, ticket, more }, config] = await Promise.all([
    loadTicketOnBoardWith(ctx, boardId, ticketId, [{ entity: db().entities.ticket, key: { ticketId: otherId } }]),
    loadOrgConfig(ctx.org.orgId),
  ]);
  return { board, ticket, other: liveTicketOf(ctx, more[0] as TicketItem | undefined), config };
}

function presentSubticket(ticket: TicketItem, config: OrgConfig) {
  const status = config.status(ticket.statusId);
  return {
    id: ticket.ticketId,
    displayId: ticket.displayId,
    title: ticket.title,
    status: { id: ticket.statusId, name: status?.name ?? '', category: status?.category ?? ticket.statusCategory },
    assignee: ticket.assigneeId ? { id: ticket.assigneeId, name: ticket.assigneeName ?? '' } : null,
  };
}

/** The live subtickets of a parent, in the parent's order (one BatchGetItem; none when it has none). */
export async function loadSubtickets(ctx: DomainContext, parent: TicketItem): Promise<TicketItem[]> {
  const found = new Map((await loadTickets(ctx, parent.subticketIds ?? [])).map((ticket) => [ticket.ticketId, ticket]));
  return (parent.subticketIds ?? [])
    .map((id) => found.get(id))
    .filter((ticket): ticket is TicketItem => !!ticket && ticket.parentTicketId === parent.ticketId && ticket.boardId === parent.boardId);
}

/** GET .../subtickets → {data: [subticket], aggregation {total, completed, inProgress, planning}} (by status category). */
export async function listSubtickets(ctx: DomainContext, boardId: string, ticketId: string) {
  const { ticket, config } = await loadTicketWithConfig(ctx, boardId, ticketId);
  const subtickets = await loadSubtickets(ctx, ticket);
  const count = (category: string) => subtickets.filter((subticket) => (config.status(subticket.statusId)?.category ?? subticket.statusCategory) === category).length;
  return {
    data: subtickets.map((subticket) => presentSubticket(subticket, config)),
    aggregation: { total: subtickets.length, completed: count('FINAL'), inProgress: count('ACTIVE'), planning: count('PLANNING') },
  };
}

export interface CreateSubticketInput {
  title: string;
  description?: string;
  assigneeId?: string | null;
}

/**
 * POST .../subtickets → 201 {data: ticket}: a ticket on the parent's board, created with the
 * parent's `subticketIds` in the same transaction (guarded by the parent's version).
 */
export async function createSubticket(ctx: DomainContext, boardId: string, parentId: string, input: CreateSubticketInput) {
  requirePermission(ctx, 'tickets:create');
  const { board, ticket: parent } = await loadTicketOnBoard(ctx, boardId, parentId);
  assertCanTakeSubticket(parent);
  const { ticket, config } = await createTicket(ctx, boardId, input, { parent, board });
  return presentFullTicket(ticket, config, ctx);
}

/** PATCH .../subtickets/{subticketId}/status → {data: subticket}; 404 unless it is a subticket of this parent. */
export async function updateSubticketStatus(ctx: DomainContext, boardId: string, parentId: string, subticketId: string, statusId: string) {
  requirePermission(ctx, 'tickets:edit');
  return retryLostRaces(async () => {
    const { board, ticket: parent, other: subticket, config } = await loadTicketAndAnother(ctx, boardId, parentId, subticketId);
    if (!subticket || subticket.parentTicketId !== parent.ticketId || subticket.boardId !== boardId) throw notFound('Subticket');
    const saved = await updateTicket(ctx, { board, ticket: subticket, config }, { statusId });
    return presentFullTicket(saved, config, ctx);
  });
}

/**
 * POST .../convert-to-subticket: the ticket becomes a subticket of `parentTicketId`, which
 * must be another live ticket of the same board that is not itself a subticket; the ticket
 * must have no subtickets. Both tickets change in one transaction, each guarded by its version.
 */
export async function convertToSubticket(ctx: DomainContext, boardId: string, ticketId: string, parentTicketId: string) {
  requirePermission(ctx, 'tickets:edit');
  return retryLostRaces(async () => {
    const { board, ticket, other: parent, config } = await loadTicketAndAnother(ctx, boardId, ticketId, parentTicketId);
    if (parentTicketId === ticketId) throw invalidField('parentTicketId', 'A ticket cannot be its own parent');
    if (!parent) throw invalidField('parentTicketId', 'Unknown ticket');
    if (parent.boardId !== boardId) throw invalidField('parentTicketId', 'The parent must be on the same board');
    if (ticket.parentTicketId) {
      throw conflict('The ticket is already a subticket; promote it to standalone first', { reason: 'ALREADY_SUBTICKET', parentTicketId: ticket.parentTicketId });
    }
    if ((ticket.subticketIds ?? []).length > 0) {
      throw conflict('A ticket that has subtickets cannot become a subticket', { reason: 'HAS_SUBTICKETS' });
    }
    assertCanTakeSubticket(parent);
    const at = ctx.clock.now().toISOString();
    const saved = await updateTicket(ctx, { board, ticket, config }, {}, {
      extra: { parentTicketId: parent.ticketId },
      timeline: [{ kind: 'CONVERTED_TO_SUBTICKET', details: { parentTicketId: parent.ticketId, parentDisplayId: parent.displayId } }],
      related: (e) => attachToParent(e, parent, ticket, at, parentChanged),
    });
    return presentFullTicket(saved, config, ctx);
  });
}

/**
 * POST .../promote-to-standalone: removes the parent link on both tickets in one transaction.
 * A parent deleted in the meantime needs no change; a standalone ticket is 409.
 */
export async function promoteToStandalone(ctx: DomainContext, boardId: string, ticketId: string) {
  requirePermission(ctx, 'tickets:edit');
  return retryLostRaces(async () => {
    const loaded = await loadTicketWithConfig(ctx, boardId, ticketId);
    const { ticket, config } = loaded;
    if (!ticket.parentTicketId) throw conflict('The ticket is not a subticket', { reason: 'NOT_A_SUBTICKET' });
    const parent = await loadLiveParent(ctx, ticket);
    const at = ctx.clock.now().toISOString();
    const saved = await updateTicket(ctx, loaded, {}, {
      remove: ['parentTicketId'],
      timeline: [{ kind: 'PROMOTED_TO_STANDALONE', details: { formerParentTicketId: ticket.parentTicketId, formerParentDisplayId: parent?.displayId ?? null } }],
      related: (e) => (parent ? detachFromParent(e, parent, ticket, at, parentChanged) : []),
    });
    return presentFullTicket(saved, config, ctx);
  });
}
