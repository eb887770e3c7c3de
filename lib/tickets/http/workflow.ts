import * as z from 'zod';
import { authenticated, fromOperation, type Routes, onFirstUse } from '../../http/routes.js';
import { idParam, pageQuery, requiredText } from '../../http/validation.js';
import { description, reason, timestamp, title } from './schemas.js';
import {
  approveTicket, assignTicket, changeTicketStatus, inlineUpdateTicket, listTicketsNeedingReassignment, moveTicket,
  reorderTicket, transitionTicket,
} from '../workflow.js';
import { MAX_POSITION } from '../../db/entities/index.js';
import { fullTicketResult, movedTicketResult, ticketResult } from '../shapes.js';
import { changeStatusOp } from '../operations.js';

const boardParams = z.object({ boardId: idParam });
const ticketParams = z.object({ boardId: idParam, ticketId: idParam });

// Built on first use (lib/core/shapes.ts says why).
const inlineBody = z.lazy(() =>
  z
    .strictObject({
      title: title.optional(),
      description: description.optional(),
      statusId: idParam.optional(),
      assigneeId: idParam.nullable().optional(),
      dueDate: timestamp.nullable().optional(),
      expectedUpdatedAt: z.iso.datetime({ offset: true, error: 'Must be an ISO 8601 timestamp' }).optional(),
    })
    .refine((body) => Object.keys(body).some((field) => field !== 'expectedUpdatedAt'), { error: 'Give at least one field to change' }),
);

/** Workflow routes of the `tickets` group (the API reference): status, assign, move, transition, approve, reassignment, reorder, inline edit. */
export const workflowRoutes: Routes = {
  'PATCH /api/v1/boards/{boardId}/tickets/{ticketId}/status': onFirstUse(() =>
    authenticated({
      ...fromOperation(changeStatusOp, { body: true }),
      summary: 'Change a ticket\'s status',
      result: fullTicketResult,
      envelope: 'data',
      params: ticketParams,
      handler: (ctx, { params, body }) => changeTicketStatus(ctx, params.boardId, params.ticketId, body),
    }),
  ),
  'PATCH /api/v1/boards/{boardId}/tickets/{ticketId}/assign': onFirstUse(() =>
    authenticated({
      scope: 'write',
      fence: true,
      ticketRefs: ['ticketId'],
      summary: 'Assign a ticket',
      result: fullTicketResult,
      envelope: 'data',
      params: ticketParams,
      body: z.strictObject({ assigneeId: idParam.nullable() }),
      handler: (ctx, { params, body }) => assignTicket(ctx, params.boardId, params.ticketId, body.assigneeId),
    }),
  ),
  'POST /api/v1/boards/{boardId}/tickets/{ticketId}/move': onFirstUse(() =>
    authenticated({
      scope: 'write',
      fence: true,
      ticketRefs: ['ticketId'],
      summary: 'Move a ticket to another board',
      result: movedTicketResult,
      errors: ['AGENT_APPROVAL_REQUIRED'],
      envelope: 'data',
      params: ticketParams,
      body: z.strictObject({ targetBoardId: idParam }),
      handler: (ctx, { params, body }) => moveTicket(ctx, params.boardId, params.ticketId, body.targetBoardId),
    }),
  ),
  'POST /api/v1/boards/{boardId}/tickets/{ticketId}/transition': onFirstUse(() =>
    authenticated({
      scope: 'write',
      fence: true,
      ticketRefs: ['ticketId'],
      summary: 'Move a ticket to a status, with a reason',
      result: fullTicketResult,
      errors: ['AGENT_APPROVAL_REQUIRED'],
      envelope: 'data',
      params: ticketParams,
      body: z.strictObject({
        toStatusId: idParam,
        reason: reason.optional(),
        blockerInfo: z.strictObject({ reason: requiredText(500), blockedBy: idParam.optional() }).optional(),
      }),
      handler: (ctx, { params, body }) => transitionTicket(ctx, params.boardId, params.ticketId, body),
    }),
  ),
  'POST /api/v1/boards/{boardId}/tickets/{ticketId}/approve': onFirstUse(() =>
    authenticated({
      scope: 'write',
      fence: true,
      ticketRefs: ['ticketId'],
      summary: 'Approve a planned ticket into the active workflow',
      result: fullTicketResult,
      errors: ['AGENT_APPROVAL_REQUIRED'],
      envelope: 'data',
      params: ticketParams,
      handler: (ctx, { params }) => approveTicket(ctx, params.boardId, params.ticketId),
    }),
  ),
  'GET /api/v1/boards/{boardId}/tickets/needing-reassignment': onFirstUse(() =>
    authenticated({
      scope: 'read',
      summary: 'List tickets whose assignee lost access',
      result: ticketResult,
      envelope: 'page',
      params: boardParams,
      query: z.strictObject(pageQuery(20, 100)),
      handler: (ctx, { params, query }) => listTicketsNeedingReassignment(ctx, params.boardId, query),
    }),
  ),
  'PATCH /api/v1/boards/{boardId}/tickets/reorder': onFirstUse(() =>
    authenticated({
      scope: 'write',
      ticketRefs: ['ticketId'],
      summary: 'Reorder a ticket within or across columns',
      result: fullTicketResult,
      errors: ['AGENT_APPROVAL_REQUIRED'],
      envelope: 'data',
      params: boardParams,
      body: z.strictObject({
        ticketId: idParam,
        // The byBoard key encodes positions as fixed-width strings (positionKeyOf): 0 ≤ position < 1e15.
        position: z
          .number({ error: 'Must be a number' })
          .min(0, { error: 'Must be at least 0' })
          .lt(MAX_POSITION, { error: 'Must be less than 1e15' }),
        statusId: idParam.optional(),
      }),
      handler: (ctx, { params, body }) => reorderTicket(ctx, params.boardId, body),
    }),
  ),
  'PATCH /api/v1/boards/{boardId}/tickets/{ticketId}/inline': onFirstUse(() =>
    authenticated({
      scope: 'write',
      fence: true,
      ticketRefs: ['ticketId'],
      summary: 'Edit one field of a ticket (guarded by updatedAt)',
      result: fullTicketResult,
      errors: ['AGENT_APPROVAL_REQUIRED', 'STALE_UPDATE'],
      envelope: 'data',
      params: ticketParams,
      body: inlineBody,
      handler: (ctx, { params, body }) => inlineUpdateTicket(ctx, params.boardId, params.ticketId, body),
    }),
  ),
};
