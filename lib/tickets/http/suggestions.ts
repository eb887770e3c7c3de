import * as z from 'zod';
import { authenticated, fromOperation, type Routes, onFirstUse } from '../../http/routes.js';
import { idParam, pageQuery } from '../../http/validation.js';
import { SUGGESTION_STATES } from '../../db/entities/index.js';
import { acceptSuggestion, listPendingSuggestions, listSuggestions, rejectSuggestion } from '../suggestions.js';
import { pendingSuggestionResult, suggestionResult } from '../shapes.js';
import { decideSuggestionOp, pendingSuggestionsOp } from '../operations.js';

const ticketParams = z.object({ boardId: idParam, ticketId: idParam });
const suggestionParams = z.object({ boardId: idParam, ticketId: idParam, suggestionId: idParam });

/** Suggestion routes of the `tickets` group (docs/agents.md: agent moves awaiting approval). */
export const suggestionsRoutes: Routes = {
  'GET /api/v1/suggestions': onFirstUse(() =>
    authenticated({
      ...fromOperation(pendingSuggestionsOp),
      summary: 'List the suggestions waiting for a person',
      description:
        "Agents' suggested moves still `PENDING`, newest first, on the boards the caller sees, each with its ticket's display id and title: what a person accepts or rejects (`POST …/suggestions/{suggestionId}/accept` or `/reject`). Customer users: 403.",
      result: pendingSuggestionResult,
      envelope: 'page',
      query: z.strictObject(pageQuery(50, 100)),
      handler: (ctx, { query }) => listPendingSuggestions(ctx, query),
    }),
  ),
  'GET /api/v1/boards/{boardId}/tickets/{ticketId}/suggestions': onFirstUse(() =>
    authenticated({
      scope: 'read',
      fence: false,
      ticketRefs: ['ticketId'],
      summary: 'List an agent\'s suggested moves of a ticket',
      result: suggestionResult,
      envelope: 'page',
      params: ticketParams,
      query: z.strictObject({ ...pageQuery(50, 100), state: z.enum(SUGGESTION_STATES).optional() }),
      handler: (ctx, { params, query }) => listSuggestions(ctx, params.boardId, params.ticketId, query),
    }),
  ),
  'POST /api/v1/boards/{boardId}/tickets/{ticketId}/suggestions/{suggestionId}/accept': onFirstUse(() =>
    authenticated({
      ...fromOperation(decideSuggestionOp, { body: true }),
      summary: 'Accept a suggested move',
      result: suggestionResult,
      envelope: 'data',
      params: suggestionParams,
      handler: (ctx, { params, body }) => acceptSuggestion(ctx, params.boardId, params.ticketId, params.suggestionId, body),
    }),
  ),
  'POST /api/v1/boards/{boardId}/tickets/{ticketId}/suggestions/{suggestionId}/reject': onFirstUse(() =>
    authenticated({
      ...fromOperation(decideSuggestionOp, { body: true }),
      summary: 'Reject a suggested move',
      result: suggestionResult,
      envelope: 'data',
      params: suggestionParams,
      handler: (ctx, { params, body }) => rejectSuggestion(ctx, params.boardId, params.ticketId, params.suggestionId, body),
    }),
  ),
};
