import { pullRequestResult } from '../../integrations/index.js';
import * as z from 'zod';
import { authenticated, type Routes, onFirstUse } from '../../http/routes.js';
import { idParam } from '../../http/validation.js';
import { getBlockerInfo, getCompletionCheck, listTicketPullRequests } from '../structure/checks.js';
import { MAX_TEXT_VALUE_LENGTH, MAX_VALUES_PER_REQUEST, setCustomFieldValues } from '../structure/custom-field-values.js';
import { description, title } from './schemas.js';
import { convertToSubticket, createSubticket, listSubtickets, promoteToStandalone, updateSubticketStatus } from '../structure/subtickets.js';
import { blockerResult, completionCheckResult, fullTicketResult, subticketsResult } from '../shapes.js';

const ticketParams = z.object({ boardId: idParam, ticketId: idParam });
const subticketParams = ticketParams.extend({ subticketId: idParam });

const customFieldValue = z.strictObject({
  customFieldId: idParam,
  value: z.string().max(MAX_TEXT_VALUE_LENGTH, `At most ${MAX_TEXT_VALUE_LENGTH} characters`).nullable(),
});

/** Ticket structure (the API reference): custom field values, completion and blocker checks, pull requests, subtickets. */
export const structureRoutes: Routes = {
  'PUT /api/v1/boards/{boardId}/tickets/{ticketId}/custom-fields': onFirstUse(() =>
    authenticated({
      scope: 'write',
      fence: true,
      ticketRefs: ['ticketId'],
      summary: 'Set a ticket\'s custom field values',
      result: fullTicketResult,
      envelope: 'data',
      params: ticketParams,
      body: z.strictObject({ values: z.array(customFieldValue).max(MAX_VALUES_PER_REQUEST, `At most ${MAX_VALUES_PER_REQUEST} values`) }),
      handler: (ctx, { params, body }) => setCustomFieldValues(ctx, params.boardId, params.ticketId, body.values),
    }),
  ),
  'GET /api/v1/boards/{boardId}/tickets/{ticketId}/completion-check': onFirstUse(() =>
    authenticated({
      scope: 'read',
      fence: false,
      ticketRefs: ['ticketId'],
      summary: 'Check whether a ticket may be completed',
      result: completionCheckResult,
      envelope: 'data',
      params: ticketParams,
      handler: (ctx, { params }) => getCompletionCheck(ctx, params.boardId, params.ticketId),
    }),
  ),
  'GET /api/v1/boards/{boardId}/tickets/{ticketId}/blocker': onFirstUse(() =>
    authenticated({
      scope: 'read',
      fence: false,
      ticketRefs: ['ticketId'],
      summary: 'Get what blocks a ticket',
      result: blockerResult,
      envelope: 'data',
      params: ticketParams,
      handler: (ctx, { params }) => getBlockerInfo(ctx, params.boardId, params.ticketId),
    }),
  ),
  'GET /api/v1/boards/{boardId}/tickets/{ticketId}/pull-requests': onFirstUse(() =>
    authenticated({
      scope: 'read',
      fence: false,
      ticketRefs: ['ticketId'],
      summary: 'List a ticket\'s pull requests',
      result: z.array(pullRequestResult).meta({ description: 'Pull requests whose branch name or title names the ticket, oldest first' }),
      envelope: 'data',
      params: ticketParams,
      handler: (ctx, { params }) => listTicketPullRequests(ctx, params.boardId, params.ticketId),
    }),
  ),
  'GET /api/v1/boards/{boardId}/tickets/{ticketId}/subtickets': onFirstUse(() =>
    authenticated({
      scope: 'read',
      fence: false,
      ticketRefs: ['ticketId'],
      summary: 'List a ticket\'s subtickets',
      result: subticketsResult,
      params: ticketParams,
      handler: (ctx, { params }) => listSubtickets(ctx, params.boardId, params.ticketId),
    }),
  ),
  'POST /api/v1/boards/{boardId}/tickets/{ticketId}/subtickets': onFirstUse(() =>
    authenticated({
      scope: 'write',
      fence: true,
      ticketRefs: ['ticketId'],
      summary: 'Create a subticket',
      result: fullTicketResult,
      errors: ['AGENT_APPROVAL_REQUIRED'],
      envelope: 'data',
      status: 201,
      params: ticketParams,
      body: z.strictObject({ title, description: description.optional(), assigneeId: idParam.nullable().optional() }),
      handler: (ctx, { params, body }) => createSubticket(ctx, params.boardId, params.ticketId, body),
    }),
  ),
  'PATCH /api/v1/boards/{boardId}/tickets/{ticketId}/subtickets/{subticketId}/status': onFirstUse(() =>
    authenticated({
      scope: 'write',
      fence: true,
      ticketRefs: ['ticketId', 'subticketId'],
      summary: 'Change a subticket\'s status',
      result: fullTicketResult,
      errors: ['AGENT_APPROVAL_REQUIRED'],
      envelope: 'data',
      params: subticketParams,
      body: z.strictObject({ statusId: idParam }),
      handler: (ctx, { params, body }) => updateSubticketStatus(ctx, params.boardId, params.ticketId, params.subticketId, body.statusId),
    }),
  ),
  'POST /api/v1/boards/{boardId}/tickets/{ticketId}/convert-to-subticket': onFirstUse(() =>
    authenticated({
      scope: 'write',
      fence: true,
      ticketRefs: ['ticketId', 'parentTicketId'],
      summary: 'Make a ticket a subticket of another',
      result: fullTicketResult,
      envelope: 'data',
      params: ticketParams,
      body: z.strictObject({ parentTicketId: idParam }),
      handler: (ctx, { params, body }) => convertToSubticket(ctx, params.boardId, params.ticketId, body.parentTicketId),
    }),
  ),
  'POST /api/v1/boards/{boardId}/tickets/{ticketId}/promote-to-standalone': onFirstUse(() =>
    authenticated({
      scope: 'write',
      fence: true,
      ticketRefs: ['ticketId'],
      summary: 'Make a subticket a standalone ticket',
      result: fullTicketResult,
      envelope: 'data',
      params: ticketParams,
      body: z.strictObject({}),
      handler: (ctx, { params }) => promoteToStandalone(ctx, params.boardId, params.ticketId),
    }),
  ),
};
