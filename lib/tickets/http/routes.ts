import * as z from 'zod';
import { authenticated, fromOperation, type Routes, onFirstUse } from '../../http/routes.js';
import { idParam } from '../../http/validation.js';
import { listBoardTickets } from '../lists/list.js';
import { listFilterQuery, toFilters } from './schemas.js';
import { createTicketOp, getTicketOp, updateTicketOp } from '../operations.js';
import { createBoardTicket, deleteTicket, getTicket, patchTicket } from '../tickets.js';
import { workflowRoutes } from './workflow.js';
import { structureRoutes } from './structure.js';
import { timelineRoutes } from './timeline.js';
import { suggestionsRoutes } from './suggestions.js';
import { withTicketRefs } from '../../http/ticket-refs.js';
import { fullTicketResult, ticketResult } from '../shapes.js';

const boardParams = z.object({ boardId: idParam });
const ticketParams = z.object({ boardId: idParam, ticketId: idParam });

/**
 * Routes of the `tickets` group (the API reference): the core here, the rest by theme in the files
 * imported above (claims, claim-next, handoffs and dependencies are the `fleet` group's,
 * fleet.ts). Every route takes a display id ("PLAT-12") wherever it takes a ticket id.
 */
export const ticketsRoutes: Routes = withTicketRefs({
  ...workflowRoutes,
  ...structureRoutes,
  ...timelineRoutes,
  ...suggestionsRoutes,
  'GET /api/v1/boards/{boardId}/tickets': onFirstUse(() =>
    authenticated({
      scope: 'read',
      summary: 'List a board\'s tickets',
      result: ticketResult,
      envelope: 'page',
      params: boardParams,
      query: z.lazy(() => z.strictObject(listFilterQuery())),
      handler: (ctx, { params, query }) => listBoardTickets(ctx, params.boardId, toFilters(query)),
    }),
  ),
  'POST /api/v1/boards/{boardId}/tickets': onFirstUse(() =>
    authenticated({
      ...fromOperation(createTicketOp, { body: true }),
      summary: 'Create a ticket',
      result: fullTicketResult,
      envelope: 'data',
      status: 201,
      params: boardParams,
      handler: (ctx, { params, body }) => createBoardTicket(ctx, params.boardId, body),
    }),
  ),
  'GET /api/v1/boards/{boardId}/tickets/{ticketId}': onFirstUse(() =>
    authenticated({
      ...fromOperation(getTicketOp),
      summary: 'Get a ticket',
      result: fullTicketResult,
      envelope: 'data',
      params: ticketParams,
      handler: (ctx, { params }) => getTicket(ctx, params.boardId, params.ticketId),
    }),
  ),
  'PATCH /api/v1/boards/{boardId}/tickets/{ticketId}': onFirstUse(() =>
    authenticated({
      ...fromOperation(updateTicketOp, { body: true }),
      summary: 'Update a ticket',
      result: fullTicketResult,
      envelope: 'data',
      params: ticketParams,
      handler: (ctx, { params, body }) => patchTicket(ctx, params.boardId, params.ticketId, body),
    }),
  ),
  'DELETE /api/v1/boards/{boardId}/tickets/{ticketId}': onFirstUse(() =>
    authenticated({
      scope: 'write',
      fence: true,
      ticketRefs: ['ticketId'],
      summary: 'Delete a ticket',
      status: 204,
      params: ticketParams,
      handler: (ctx, { params }) => deleteTicket(ctx, params.boardId, params.ticketId),
    }),
  ),
});
