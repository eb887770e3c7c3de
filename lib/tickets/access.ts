import { notFound } from '../core/errors.js';
import type { DomainContext } from '../db/context.js';
import { db } from '../db/service.js';
import { batchGetMixed, type KeyRequest } from '../db/batch.js';
import type { BoardItem, TicketItem } from '../db/entities/index.js';
import { canSeeBoard, visibleOrNotFound } from '../boards/index.js';
import { loadOrgConfig, type OrgConfig } from './config.js';

/**
 * Tickets (and the comments, timeline entries and suggestions keyed by them) are keyed by the
 * ticket id alone, not by organization: this check IS their tenant isolation. A ticket read by
 * id is the caller's only if it belongs to the caller's organization and is not deleted (a
 * deleted ticket is 404 everywhere). Every read of a ticket by id goes through here.
 */
export function liveTicketOf(ctx: DomainContext, ticket: TicketItem | undefined): TicketItem | undefined {
  return ticket && ticket.orgId === ctx.org.orgId && !ticket.isDeleted ? ticket : undefined;
}

export interface TicketOnBoard {
  board: BoardItem;
  ticket: TicketItem;
}

/**
 * The ticket at `/boards/{boardId}/tickets/{ticketId}`: one consistent BatchGetItem of the
 * board and the ticket. 404 unless the board is visible to the caller and the ticket is a
 * live ticket of that board in the caller's organization (a deleted ticket is 404 everywhere).
 */
export async function loadTicketOnBoard(ctx: DomainContext, boardId: string, ticketId: string): Promise<TicketOnBoard> {
  const { board, ticket } = await loadTicketOnBoardWith(ctx, boardId, ticketId, []);
  return { board, ticket };
}

/**
 * `loadTicketOnBoard` that reads further items of the ticket (e.g. one of its comments) in the
 * same BatchGetItem; they come back in request order, undefined when missing.
 */
export async function loadTicketOnBoardWith(ctx: DomainContext, boardId: string, ticketId: string, more: KeyRequest[]): Promise<TicketOnBoard & { more: unknown[] }> {
  const [board, ticket, ...found] = await batchGetMixed([
    { entity: db().entities.board, key: { orgId: ctx.org.orgId, boardId } },
    { entity: db().entities.ticket, key: { ticketId } },
    ...more,
  ]);
  const visible = visibleOrNotFound(ctx, board as BoardItem | undefined);
  const live = liveTicketOf(ctx, ticket as TicketItem | undefined);
  if (!live || live.boardId !== boardId) throw notFound('Ticket');
  return { board: visible, ticket: live, more: found };
}

/** `loadTicketOnBoard` and the organization's configuration, read in parallel. */
export async function loadTicketWithConfig(ctx: DomainContext, boardId: string, ticketId: string): Promise<TicketOnBoard & { config: OrgConfig }> {
  const [found, config] = await Promise.all([loadTicketOnBoard(ctx, boardId, ticketId), loadOrgConfig(ctx.org.orgId)]);
  return { ...found, config };
}

/** Live tickets of the organization by id, in one BatchGetItem (missing and deleted ones left out). */
export async function loadTickets(ctx: DomainContext, ticketIds: string[]): Promise<TicketItem[]> {
  if (ticketIds.length === 0) return [];
  const found = (await batchGetMixed(ticketIds.map((ticketId) => ({ entity: db().entities.ticket, key: { ticketId } })))) as (TicketItem | undefined)[];
  return found.map((ticket) => liveTicketOf(ctx, ticket)).filter((ticket): ticket is TicketItem => ticket !== undefined);
}

/** Of these tickets, those on a board the caller may see (their boards in one BatchGetItem; none read for one who sees every board). */
export const onBoardsSeen = async (ctx: DomainContext, tickets: TicketItem[]): Promise<TicketItem[]> => (seesEveryBoard(ctx) ? tickets : onVisibleBoards(ctx, undefined, tickets));

/** Whether the caller sees every board of its organization: an administrator whose token names no boards. */
export const seesEveryBoard = (ctx: DomainContext): boolean => ctx.actor.isAdmin && ctx.actor.credential.allowedBoardIds.length === 0;

/**
 * Of these tickets, those on a board the caller may see: `known` is a board already seen (no
 * read for its tickets), the other boards are read in one BatchGetItem (none when all are on it).
 */
export async function onVisibleBoards(ctx: DomainContext, known: BoardItem | undefined, tickets: TicketItem[]): Promise<TicketItem[]> {
  const otherBoardIds = [...new Set(tickets.map((ticket) => ticket.boardId).filter((id) => id !== known?.boardId))];
  const otherBoards = (await batchGetMixed(
    otherBoardIds.map((boardId) => ({ entity: db().entities.board, key: { orgId: ctx.org.orgId, boardId } })),
  )) as (BoardItem | undefined)[];
  const visible = new Set([...(known ? [known.boardId] : []), ...otherBoards.filter((board) => board && canSeeBoard(ctx.actor, board)).map((board) => board!.boardId)]);
  return tickets.filter((ticket) => visible.has(ticket.boardId));
}
