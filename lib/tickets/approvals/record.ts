import type { DomainContext } from '../../db/context.js';
import { newId } from '../../core/ids.js';
import { db } from '../../db/service.js';
import { transact } from '../../db/transact.js';
import type { BoardItem, SuggestionItem, TicketItem } from '../../db/entities/index.js';
import { notificationPut } from '../../notifications/index.js';

export interface SuggestionInput {
  board: BoardItem;
  ticket: TicketItem;
  toStatusId: string;
  reason?: string;
}

/** Every suggestion of a ticket (one Query of its partition), oldest first. */
export async function suggestionsOfTicket(ctx: DomainContext, ticketId: string): Promise<SuggestionItem[]> {
  const { data } = await db().entities.suggestion.query.byTicket({ ticketId }).go({ pages: 'all' });
  return (data as SuggestionItem[]).filter((suggestion) => suggestion.orgId === ctx.org.orgId).sort((a, b) => a.suggestionId.localeCompare(b.suggestionId));
}

/**
 * Records the calling agent's refused move as a PENDING suggestion and notifies the agent's
 * owner (AGENT_SUGGESTION_PENDING), in one transaction; the ticket itself is not written.
 * A PENDING suggestion of the ticket for the same target status is reused (its id returned,
 * nothing written). Two identical refused moves at the same instant may both record one: the
 * check is a Query before the write, not a condition.
 */
export async function recordSuggestion(ctx: DomainContext, input: SuggestionInput): Promise<string> {
  const { board, ticket, toStatusId } = input;
  const existing = (await suggestionsOfTicket(ctx, ticket.ticketId)).find(
    (suggestion) => suggestion.state === 'PENDING' && suggestion.toStatusId === toStatusId,
  );
  if (existing) return existing.suggestionId;

  const now = ctx.clock.now();
  const createdAt = now.toISOString();
  const suggestionId = newId('sug');
  const ownerId = ctx.actor.agent?.ownerId ?? null;
  await transact((e) => [
    e.suggestion
      .create({
        orgId: ctx.org.orgId,
        boardId: board.boardId,
        ticketId: ticket.ticketId,
        suggestionId,
        fromStatusId: ticket.statusId,
        toStatusId,
        ...(input.reason ? { reason: input.reason } : {}),
        suggestedById: ctx.actor.userId,
        suggestedByName: ctx.actor.name,
        state: 'PENDING',
        createdAt,
        updatedAt: createdAt,
      })
      .commit(),
    ...(ownerId
      ? [
          notificationPut(
            e,
            {
              orgId: ctx.org.orgId,
              userId: ownerId,
              type: 'AGENT_SUGGESTION_PENDING',
              data: { ticketId: ticket.ticketId, boardId: board.boardId, displayId: ticket.displayId, title: ticket.title, suggestionId, toStatusId },
            },
            now,
          ),
        ]
      : []),
  ]);
  return suggestionId;
}
