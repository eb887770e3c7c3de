import { AppError, conflict, forbidden, notFound } from '../core/errors.js';
import type { DomainContext } from '../db/context.js';
import { db } from '../db/service.js';
import { guarded, isConditionFailure } from '../db/transact.js';
import type { SuggestionItem, SuggestionState } from '../db/entities/index.js';
import { pageOf } from '../core/pages.js';
import { requirePermission } from '../organizations/index.js';
import { loadTicketOnBoard, loadTicketOnBoardWith, loadTickets, onBoardsSeen } from './access.js';
import { loadOrgConfig, type OrgConfig } from './config.js';
import { updateTicket } from './update.js';
import { suggestionsOfTicket } from './approvals/record.js';

export { recordSuggestion } from './approvals/record.js';

export function presentSuggestion(suggestion: SuggestionItem, config: OrgConfig) {
  const statusRef = (statusId: string) => {
    const status = config.status(statusId);
    return { id: statusId, name: status?.name ?? null, key: status?.key ?? null };
  };
  return {
    id: suggestion.suggestionId,
    ticketId: suggestion.ticketId,
    boardId: suggestion.boardId,
    fromStatus: statusRef(suggestion.fromStatusId),
    toStatus: statusRef(suggestion.toStatusId),
    reason: suggestion.reason ?? null,
    suggestedBy: { id: suggestion.suggestedById, name: suggestion.suggestedByName },
    state: suggestion.state,
    decidedBy: suggestion.decidedById ? { id: suggestion.decidedById, name: suggestion.decidedByName ?? '' } : null,
    decidedAt: suggestion.decidedAt ?? null,
    decisionReason: suggestion.decisionReason ?? null,
    createdAt: suggestion.createdAt,
    updatedAt: suggestion.updatedAt,
  };
}

export interface ListSuggestionsQuery {
  state?: SuggestionState;
  page: number;
  limit: number;
}

/**
 * GET …/tickets/{ticketId}/suggestions: the ticket's suggestions, newest first, optionally of
 * one state; for the organization's people and agents who see the board (customer users: 403). The access check, the ticket's suggestion Query and the organization's statuses
 * are read in parallel; the suggestions are used only once the ticket proved visible.
 */
export async function listSuggestions(ctx: DomainContext, boardId: string, ticketId: string, query: ListSuggestionsQuery) {
  // Agents' proposals and their reasons are internal workflow, like secret comments.
  if (ctx.actor.role === 'CUSTOMER') throw forbidden('Customer users cannot read suggestions');
  const [, suggestions, config] = await Promise.all([
    loadTicketOnBoard(ctx, boardId, ticketId),
    suggestionsOfTicket(ctx, ticketId),
    loadOrgConfig(ctx.org.orgId),
  ]);
  const selected = suggestions.filter((suggestion) => !query.state || suggestion.state === query.state).reverse();
  return pageOf(
    selected.map((suggestion) => presentSuggestion(suggestion, config)),
    query.page,
    query.limit,
  );
}

/**
 * GET /api/v1/suggestions: the organization's suggestions still PENDING, newest first, on the
 * boards the caller sees, each with its ticket (display id and title): what waits for a person
 * (the console's inbox). One Query of the sparse pending index (it holds only undecided
 * suggestions, so it grows with what waits, not with the organization), then the tickets and
 * their boards in one BatchGetItem each. Customer users: 403, as for a ticket's suggestions.
 */
export async function listPendingSuggestions(ctx: DomainContext, query: { page: number; limit: number }) {
  if (ctx.actor.role === 'CUSTOMER') throw forbidden('Customer users cannot read suggestions');
  const [pending, config] = await Promise.all([
    db().entities.suggestion.query.byPendingOrg({ orgId: ctx.org.orgId, state: 'PENDING' }).go({ pages: 'all', order: 'desc' }),
    loadOrgConfig(ctx.org.orgId),
  ]);
  const tickets = new Map((await loadTickets(ctx, [...new Set(pending.data.map((s) => s.ticketId))])).map((ticket) => [ticket.ticketId, ticket]));
  const visible = new Set((await onBoardsSeen(ctx, [...tickets.values()])).map((ticket) => ticket.ticketId));
  const rows = pending.data
    .filter((suggestion) => visible.has(suggestion.ticketId))
    .map((suggestion) => {
      const ticket = tickets.get(suggestion.ticketId)!;
      return { ...presentSuggestion(suggestion, config), ticket: { id: ticket.ticketId, displayId: ticket.displayId, title: ticket.title, boardId: ticket.boardId } };
    });
  return pageOf(rows, query.page, query.limit);
}

export interface DecisionInput {
  reason?: string;
}

const notPending = (state: string): AppError => conflict(`The suggestion is already ${state.toLowerCase()}`, { state });

/** Only a person holding tickets:edit decides on suggestions (an agent may not approve its own kind). */
function requireHumanEditor(ctx: DomainContext): void {
  requirePermission(ctx, 'tickets:edit');
  if (ctx.actor.agent || ctx.actor.isAgent) throw forbidden('Only a person may accept or reject a suggestion');
}

/** The ticket (404 unless visible and live), the suggestion (404 unless it is this ticket's) and the configuration. */
async function loadSuggestion(ctx: DomainContext, boardId: string, ticketId: string, suggestionId: string) {
  const [loaded, config] = await Promise.all([
    loadTicketOnBoardWith(ctx, boardId, ticketId, [{ entity: db().entities.suggestion, key: { ticketId, suggestionId } }]),
    loadOrgConfig(ctx.org.orgId),
  ]);
  const suggestion = loaded.more[0] as SuggestionItem | undefined;
  if (!suggestion || suggestion.orgId !== ctx.org.orgId || suggestion.ticketId !== ticketId) throw notFound('Suggestion');
  return { board: loaded.board, ticket: loaded.ticket, config, suggestion };
}

/** After a lost condition or race: 409 naming the suggestion's state as it is now. */
async function explainLostDecision(ticketId: string, suggestionId: string, error: unknown): Promise<never> {
  if (!(error instanceof AppError) || error.status !== 409) throw error;
  const current = (await db().entities.suggestion.get({ ticketId, suggestionId }).go({ consistent: true })).data;
  if (current && current.state !== 'PENDING') throw notPending(current.state);
  throw error;
}

/** The attributes a decision sets on a suggestion. */
function decision(ctx: DomainContext, state: SuggestionState, reason: string | undefined) {
  const now = ctx.clock.now().toISOString();
  // orgId: the pending index's key, which ElectroDB recomputes (and here removes) with `state`.
  return { state, orgId: ctx.org.orgId, decidedById: ctx.actor.userId, decidedByName: ctx.actor.name, decidedAt: now, updatedAt: now, ...(reason ? { decisionReason: reason } : {}) };
}

/**
 * POST …/suggestions/{id}/accept: the ticket moves into the suggested status through
 * `updateTicket` (reference checks, timeline with the reason, ticket.status_changed) and the
 * suggestion becomes ACCEPTED in the same transaction, conditioned on it still being PENDING,
 * so of concurrent accepts exactly one wins (the others get 409). A ticket already in the
 * target status is not written; only the suggestion is marked.
 */
export async function acceptSuggestion(ctx: DomainContext, boardId: string, ticketId: string, suggestionId: string, input: DecisionInput = {}) {
  requireHumanEditor(ctx);
  const { board, ticket, config, suggestion } = await loadSuggestion(ctx, boardId, ticketId, suggestionId);
  if (suggestion.state !== 'PENDING') throw notPending(suggestion.state);
  const reason = input.reason?.trim() || undefined;
  const set = decision(ctx, 'ACCEPTED', reason);
  try {
    if (ticket.statusId === suggestion.toStatusId) {
      await db()
        .entities.suggestion.patch({ ticketId, suggestionId })
        .set(set)
        .where((attr, op) => op.eq(attr.state, 'PENDING'))
        .go({ response: 'none' });
    } else {
      await updateTicket(
        ctx,
        { board, ticket, config },
        { statusId: suggestion.toStatusId },
        {
          statusReason: reason ?? suggestion.reason,
          related: (e) => [
            guarded(
              e.suggestion
                .patch({ ticketId, suggestionId })
                .set(set)
                .where((attr, op) => op.eq(attr.state, 'PENDING'))
                .commit(),
              () => conflict('The suggestion was decided concurrently'),
            ),
          ],
        },
      );
    }
  } catch (error) {
    await explainLostDecision(ticketId, suggestionId, isConditionFailure(error) ? conflict('The suggestion was decided concurrently') : error);
  }
  return presentSuggestion({ ...suggestion, ...set }, config);
}

/** POST …/suggestions/{id}/reject: the suggestion becomes REJECTED (conditioned on PENDING); the ticket is untouched. */
export async function rejectSuggestion(ctx: DomainContext, boardId: string, ticketId: string, suggestionId: string, input: DecisionInput = {}) {
  requireHumanEditor(ctx);
  const { config, suggestion } = await loadSuggestion(ctx, boardId, ticketId, suggestionId);
  if (suggestion.state !== 'PENDING') throw notPending(suggestion.state);
  const set = decision(ctx, 'REJECTED', input.reason?.trim() || undefined);
  try {
    await db()
      .entities.suggestion.patch({ ticketId, suggestionId })
      .set(set)
      .where((attr, op) => op.eq(attr.state, 'PENDING'))
      .go({ response: 'none' });
  } catch (error) {
    await explainLostDecision(ticketId, suggestionId, isConditionFailure(error) ? conflict('The suggestion was decided concurrently') : error);
  }
  return presentSuggestion({ ...suggestion, ...set }, config);
}
