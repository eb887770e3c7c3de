import { AppError, forbidden } from '../../core/errors.js';
import { addSeconds } from '../../core/clock.js';
import { newId } from '../../core/ids.js';
import type { DomainContext } from '../../db/context.js';
import type { TicketItem } from '../../db/entities/index.js';
import { retryLostRaces } from '../../db/races.js';
import { hasPermission } from '../../organizations/index.js';
import { loadTicketOnBoard } from '../access.js';
import { baseTicketData } from '../events.js';
import { saveTicket } from '../write.js';
import { hasLiveClaim } from '../record/lease.js';
import { directiveOf, type DirectiveAction, MAX_PENDING_MESSAGES, pendingMessagesOf, presentDirective, presentMessage, STOP_GRACE_SECONDS, type StoredDirective, type StoredMessage } from '../directive-view.js';

/**
 * Directing a lease (docs/fleet-control.md): a person tells the agent holding a ticket to stop,
 * pause or resume, or sends it a note, and the agent hears it in its next heartbeat's answer.
 * Both live on the ticket item beside the claim (CLAIM_ATTRIBUTES), so they end with the lease
 * and a heartbeat delivers them in the write it makes anyway: no extra round trip for the agent.
 */

export { DIRECTIVE_ACTIONS, type DirectiveAction, MESSAGE_LIMIT } from '../directive-view.js';

/**
 * Who may direct a lease or write to its holder: a person (never an agent) holding
 * `tickets:edit` (the board was already found visible), the holding agent's owner, or an administrator.
 */
function assertMayDirect(ctx: DomainContext, ticket: TicketItem): void {
  const owns = ticket.claimedByIsAgent === true && ticket.claimAgentOwnerId === ctx.actor.userId;
  if (!owns && !hasPermission(ctx, 'tickets:edit')) throw forbidden('Missing permission tickets:edit', 'FORBIDDEN', { permission: 'tickets:edit' });
}

const noLiveLease = (): AppError => new AppError('CLAIM_NOT_HELD', 'Nobody holds a live claim on this ticket');

/** The live lease a person may direct, read consistently (the write is guarded by the ticket's version). */
async function directableLease(ctx: DomainContext, boardId: string, ticketId: string): Promise<TicketItem> {
  const { ticket } = await loadTicketOnBoard(ctx, boardId, ticketId);
  if (ctx.actor.isAgent) throw forbidden('An agent may not direct a lease', 'FORBIDDEN');
  if (!hasLiveClaim(ticket, ctx.clock.now())) throw noLiveLease();
  assertMayDirect(ctx, ticket);
  return ticket;
}

/**
 * POST …/claim/directive. `stop`: the holder should release now; its lease ends at
 * `stopDeadline` (requested + 120 s) at the latest (heartbeats no longer extend it past that),
 * then lapses with an automatic handoff naming the stop. `pause`: the holder keeps its lease
 * (and keeps renewing it) but should do no work until `resume`. A stop cannot be taken back:
 * pause or resume after it answers 409 CLAIM_STOPPING; asking for what is already in force
 * changes nothing. Timeline CLAIM_DIRECTIVE and `ticket.claim_directive` with every change.
 */
export async function directClaim(ctx: DomainContext, boardId: string, ticketId: string, input: { action: DirectiveAction; message?: string | undefined }) {
  return retryLostRaces(async () => {
    const ticket = await directableLease(ctx, boardId, ticketId);
    const nowDate = ctx.clock.now();
    const current = directiveOf(ticket);
    if (current?.action === 'stop') {
      if (input.action === 'stop') return { directive: presentDirective(current) };
      throw new AppError('CLAIM_STOPPING', 'A stop was requested: this lease is ending', { stopDeadline: current.stopDeadline });
    }
    // Already in force (a pause paused, a resume with nothing paused): nothing to change.
    if ((input.action === 'pause' && current?.action === 'pause') || (input.action === 'resume' && current?.action !== 'pause')) {
      return { directive: presentDirective(current) };
    }
    const directive: StoredDirective = {
      action: input.action,
      message: input.message ?? null,
      requestedById: ctx.actor.userId,
      requestedByName: ctx.actor.name,
      requestedAt: nowDate.toISOString(),
      ...(input.action === 'stop' ? { stopDeadline: addSeconds(nowDate, STOP_GRACE_SECONDS).toISOString() } : {}),
    };
    const after: TicketItem = { ...ticket, claimDirective: directive };
    // The stop's deadline is the lease's end at the latest.
    if (directive.stopDeadline && directive.stopDeadline < ticket.claimExpiresAt!) after.claimExpiresAt = directive.stopDeadline;
    await saveTicket(ctx, {
      before: ticket,
      after,
      timeline: [{ kind: 'CLAIM_DIRECTIVE', details: { action: directive.action, message: directive.message, holderId: ticket.claimedById, claimCount: ticket.claimCount ?? 0, stopDeadline: directive.stopDeadline ?? null } }],
      events: [{ type: 'ticket.claim_directive', data: { ...baseTicketData(ticket), action: directive.action, requestedById: ctx.actor.userId, message: directive.message, holderId: ticket.claimedById, claimCount: ticket.claimCount ?? 0 } }],
    });
    return { directive: presentDirective(directive) };
  });
}

/**
 * POST …/claim/messages: a note for the lease's holder, delivered once, in its next heartbeat's
 * answer; at most 20 wait at once (409 MESSAGES_PENDING beyond). Recorded in the timeline.
 */
export async function messageClaimHolder(ctx: DomainContext, boardId: string, ticketId: string, input: { text: string }) {
  return retryLostRaces(async () => {
    const ticket = await directableLease(ctx, boardId, ticketId);
    const pending = pendingMessagesOf(ticket);
    if (pending.length >= MAX_PENDING_MESSAGES) {
      throw new AppError('MESSAGES_PENDING', `${MAX_PENDING_MESSAGES} messages already wait for the holder's next heartbeat`, { pending: pending.length });
    }
    const message: StoredMessage = { id: newId('lmsg'), text: input.text, fromId: ctx.actor.userId, fromName: ctx.actor.name, sentAt: ctx.clock.now().toISOString() };
    await saveTicket(ctx, {
      before: ticket,
      after: { ...ticket, claimMessages: [...pending, message] },
      timeline: [{ kind: 'CLAIM_MESSAGE', details: { messageId: message.id, text: message.text, holderId: ticket.claimedById, claimCount: ticket.claimCount ?? 0 } }],
    });
    return { message: presentMessage(message) };
  });
}

/**
 * What a heartbeat tells the holder and changes on the ticket: the directive in force, the notes
 * not yet delivered (taken off the ticket in the heartbeat's own write, so each is delivered
 * once), a `resume` delivered once (then cleared), and the lease's end held at a stop's deadline.
 */
export function heartbeatDelivery(ticket: TicketItem, requestedExpiry: string) {
  const directive = directiveOf(ticket);
  const messages = pendingMessagesOf(ticket);
  const claimExpiresAt = directive?.stopDeadline && directive.stopDeadline < requestedExpiry ? directive.stopDeadline : requestedExpiry;
  const remove: ('claimMessages' | 'claimDirective')[] = [...(messages.length ? ['claimMessages' as const] : []), ...(directive?.action === 'resume' ? ['claimDirective' as const] : [])];
  return { claimExpiresAt, remove, answer: { directive: presentDirective(directive), messages: messages.map(presentMessage) } };
}
