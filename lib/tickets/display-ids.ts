import { notFound } from '../core/errors.js';
import type { DomainContext } from '../db/context.js';
import { db } from '../db/service.js';

/**
 * A ticket reference as people write it: the board prefix, a dash and the number ("PLAT-12",
 * any case). Ticket ids (`tkt_…`) never match it.
 */
const DISPLAY_ID = /^[A-Za-z0-9]{2,10}-[0-9]{1,12}$/;

/**
 * The ticket id a reference names: a ticket id as it is, a display id through its key item
 * (one GetItem). An unknown display id stays as it is, so the route answers its usual 404.
 * A ticket moved to another board keeps its old key, which then resolves to a ticket that
 * is not on the old board: 404 there too.
 */
export async function resolveTicketRef(ctx: DomainContext, ref: string): Promise<string> {
  if (!DISPLAY_ID.test(ref)) return ref;
  const key = await db().entities.ticketKey.get({ orgId: ctx.org.orgId, displayId: ref.toUpperCase() }).go();
  return key.data?.ticketId ?? ref;
}

/**
 * The board and id of the ticket a reference names (an id or a display id), for callers that
 * name tickets without their board (MCP tools). Unknown, or another organization's → 404; the
 * domain function called with the result then applies the board's access rules as for REST.
 */
export async function locateTicket(ctx: DomainContext, ref: string): Promise<{ boardId: string; ticketId: string }> {
  const ticketId = await resolveTicketRef(ctx, ref);
  const ticket = (await db().entities.ticket.get({ ticketId }).go()).data;
  if (!ticket || ticket.orgId !== ctx.org.orgId) throw notFound('Ticket');
  return { boardId: ticket.boardId, ticketId };
}
