import * as z from 'zod';
import { authenticated, fromOperation, type Routes, onFirstUse } from '../http/routes.js';
import { listBoardsOp } from './operations.js';
import { idParam, optionalText, pageQuery, queryBoolean, requiredText } from '../http/validation.js';
import { createBoard, deleteBoard, getBoard, listBoards, setBoardArchived, updateBoard } from './boards.js';
import { addBoardMember, assignTeamToBoard, removeBoardMember, removeTeamFromBoard } from './membership.js';
import { countTicketsOfAssignees } from '../tickets/index.js';
import { getBoardStatuses, getTransitionRules, setBoardStatuses, setTransitionRules } from './workflow.js';
import { PREFIX_PATTERN } from './prefix.js';
import { boardResult, boardStatusResult, transitionRulesResult } from './shapes.js';

/** Board descriptions have no limit in the spec; this keeps items far below DynamoDB's 400 KB. */
const MAX_DESCRIPTION = 10_000;
/** One create is one transaction (at most 100 items): board, prefix, a check per team and customer. */
const MAX_TEAMS_ON_CREATE = 25;
const MAX_CUSTOMERS_ON_CREATE = 50;
const MAX_STATUS_IDS = 100;

const boardParams = z.object({ boardId: idParam });

const boardFields = {
  name: requiredText(100),
  description: optionalText(MAX_DESCRIPTION),
};

/** Routes of the `boards` group (the API reference, boards). */
export const boardsRoutes: Routes = {
  'GET /api/v1/boards': onFirstUse(() =>
    authenticated({
      ...fromOperation(listBoardsOp),
      summary: 'List boards',
      result: boardResult,
      envelope: 'page',
      query: z.strictObject({
        ...pageQuery(20, 100),
        ...listBoardsOp.input().shape,
        includeArchived: queryBoolean.optional(),
        archivedOnly: queryBoolean.optional(),
      }),
      handler: (ctx, { query }) => listBoards(ctx, query),
    }),
  ),
  'POST /api/v1/boards': onFirstUse(() =>
    authenticated({
      scope: 'write',
      summary: 'Create a board',
      result: boardResult,
      status: 201,
      body: z.strictObject({
        name: boardFields.name,
        description: boardFields.description.optional(),
        prefix: z.string().regex(PREFIX_PATTERN, 'Must be 2-10 letters or digits').optional(),
        teamIds: z.array(idParam).max(MAX_TEAMS_ON_CREATE, `At most ${MAX_TEAMS_ON_CREATE} teams`).optional(),
        customerIds: z.array(idParam).max(MAX_CUSTOMERS_ON_CREATE, `At most ${MAX_CUSTOMERS_ON_CREATE} customers`).optional(),
      }),
      handler: (ctx, { body }) => createBoard(ctx, body),
    }),
  ),
  'GET /api/v1/boards/{boardId}': onFirstUse(() =>
    authenticated({
      scope: 'read',
      summary: 'Get a board',
      result: boardResult,
      params: boardParams,
      handler: (ctx, { params }) => getBoard(ctx, params.boardId),
    }),
  ),
  'PATCH /api/v1/boards/{boardId}': onFirstUse(() =>
    authenticated({
      scope: 'write',
      summary: 'Update a board',
      result: boardResult,
      params: boardParams,
      body: z.strictObject({
        name: boardFields.name.optional(),
        description: boardFields.description.optional(),
        isArchived: z.boolean().optional(),
        features: z.strictObject({ milestonesAndReleases: z.boolean().optional(), explainableStatus: z.boolean().optional() }).optional(),
        customerIds: z.array(idParam).max(MAX_CUSTOMERS_ON_CREATE, `At most ${MAX_CUSTOMERS_ON_CREATE} customers`).optional(),
        dispatchPaused: z.boolean().optional().meta({ description: "Pause dispatch on this board: claim-next passes its tickets over; leases held go on" }),
        monthlyBudgetMicros: z.number().int().min(0).max(1e15).nullable().optional().meta({ description: 'Spend allowed per calendar month, US dollars × 10⁶; null: none' }),
      }),
      handler: (ctx, { params, body }) => updateBoard(ctx, params.boardId, body),
    }),
  ),
  'DELETE /api/v1/boards/{boardId}': onFirstUse(() =>
    authenticated({
      scope: 'write',
      summary: 'Delete a board',
      status: 204,
      params: boardParams,
      handler: (ctx, { params }) => deleteBoard(ctx, params.boardId),
    }),
  ),
  'POST /api/v1/boards/{boardId}/archive': onFirstUse(() =>
    authenticated({
      scope: 'write',
      summary: 'Archive a board',
      result: boardResult,
      params: boardParams,
      handler: (ctx, { params }) => setBoardArchived(ctx, params.boardId, true),
    }),
  ),
  'POST /api/v1/boards/{boardId}/unarchive': onFirstUse(() =>
    authenticated({
      scope: 'write',
      summary: 'Unarchive a board',
      result: boardResult,
      params: boardParams,
      handler: (ctx, { params }) => setBoardArchived(ctx, params.boardId, false),
    }),
  ),
  'POST /api/v1/boards/{boardId}/teams': onFirstUse(() =>
    authenticated({
      scope: 'write',
      summary: 'Assign a team to a board',
      result: boardResult,
      params: boardParams,
      body: z.strictObject({ teamId: idParam }),
      handler: (ctx, { params, body }) => assignTeamToBoard(ctx, params.boardId, body.teamId),
    }),
  ),
  'DELETE /api/v1/boards/{boardId}/teams/{teamId}': onFirstUse(() =>
    authenticated({
      scope: 'write',
      summary: 'Remove a team from a board',
      result: z.strictObject({ flaggedTicketCount: z.number().int().min(0).meta({ description: 'Tickets whose assignee lost access and now need reassignment' }) }),
      params: z.object({ boardId: idParam, teamId: idParam }),
      handler: (ctx, { params }) => removeTeamFromBoard(ctx, params.boardId, params.teamId, countTicketsOfAssignees),
    }),
  ),
  'POST /api/v1/boards/{boardId}/members': onFirstUse(() =>
    authenticated({
      scope: 'write',
      summary: 'Add a direct member to a board',
      result: boardResult,
      params: boardParams,
      body: z.strictObject({ userId: idParam }),
      handler: (ctx, { params, body }) => addBoardMember(ctx, params.boardId, body.userId),
    }),
  ),
  'DELETE /api/v1/boards/{boardId}/members/{userId}': onFirstUse(() =>
    authenticated({
      scope: 'write',
      summary: 'Remove a direct member from a board',
      status: 204,
      params: z.object({ boardId: idParam, userId: idParam }),
      handler: (ctx, { params }) => removeBoardMember(ctx, params.boardId, params.userId),
    }),
  ),
  'GET /api/v1/boards/{boardId}/statuses': onFirstUse(() =>
    authenticated({
      scope: 'read',
      summary: 'List the statuses a board shows',
      result: z.array(boardStatusResult),
      envelope: 'data',
      params: boardParams,
      handler: (ctx, { params }) => getBoardStatuses(ctx, params.boardId),
    }),
  ),
  'PUT /api/v1/boards/{boardId}/statuses': onFirstUse(() =>
    authenticated({
      scope: 'write',
      summary: 'Choose the statuses a board shows',
      result: z.array(boardStatusResult),
      envelope: 'data',
      params: boardParams,
      body: z.strictObject({ statusIds: z.array(idParam).min(1, 'At least one status').max(MAX_STATUS_IDS) }),
      handler: (ctx, { params, body }) => setBoardStatuses(ctx, params.boardId, body.statusIds),
    }),
  ),
  'GET /api/v1/boards/{boardId}/transitions': onFirstUse(() =>
    authenticated({
      scope: 'read',
      summary: 'Get a board\'s transition rules',
      result: transitionRulesResult,
      params: boardParams,
      handler: (ctx, { params }) => getTransitionRules(ctx, params.boardId),
    }),
  ),
  'PUT /api/v1/boards/{boardId}/transitions': onFirstUse(() =>
    authenticated({
      scope: 'write',
      summary: 'Replace a board\'s transition rules',
      result: transitionRulesResult,
      params: boardParams,
      body: z.strictObject({
        rules: z
          .array(z.strictObject({ fromStatusId: idParam, toStatusIds: z.array(idParam).max(MAX_STATUS_IDS) }))
          .max(MAX_STATUS_IDS),
      }),
      handler: (ctx, { params, body }) => setTransitionRules(ctx, params.boardId, body.rules),
    }),
  ),
};
