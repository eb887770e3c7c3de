import * as z from 'zod';
import { authenticated, type Routes, onFirstUse } from '../http/routes.js';
import { calendarDate, hexColor, idParam, optionalText, pageQuery, queryBoolean, requiredText } from '../http/validation.js';
import { STATUS_CATEGORIES } from '../db/entities/index.js';
import { ticketResult } from '../tickets/index.js';
import { createMilestone, deleteMilestone, getMilestone, listMilestoneTickets, listMilestones, updateMilestone } from './milestones.js';
import { milestoneResult } from './shapes.js';

const boardParams = z.object({ boardId: idParam });
const milestoneParams = z.object({ boardId: idParam, milestoneId: idParam });
const FEATURE = ['FEATURE_DISABLED'] as const;
const sortOrder = z.number().int().min(0).max(1_000_000);

/** Routes of the `milestones` group (docs/features.md, Milestones and releases); every route needs the board's Milestones & Releases feature. */
export const milestonesRoutes: Routes = {
  'GET /api/v1/boards/{boardId}/milestones': onFirstUse(() =>
    authenticated({
      scope: 'read',
      summary: "List a board's milestones",
      result: z.array(milestoneResult),
      errors: FEATURE,
      params: boardParams,
      query: z.strictObject({
        includeDeleted: queryBoolean.optional(),
        sortBy: z.enum(['dueDate', 'name', 'sortOrder', 'createdAt']).optional(),
        sortOrder: z.enum(['asc', 'desc']).optional(),
      }),
      handler: (ctx, { params, query }) => listMilestones(ctx, params.boardId, query),
    }),
  ),
  'POST /api/v1/boards/{boardId}/milestones': onFirstUse(() =>
    authenticated({
      scope: 'write',
      summary: 'Create a milestone',
      description: 'The name is unique among the board\'s live milestones, whatever its case (409 otherwise).',
      status: 201,
      result: milestoneResult,
      errors: FEATURE,
      params: boardParams,
      body: z.strictObject({
        name: requiredText(200),
        description: optionalText(5000).nullable().optional(),
        dueDate: calendarDate,
        color: hexColor.optional(),
        sortOrder: sortOrder.optional(),
      }),
      handler: (ctx, { params, body }) => createMilestone(ctx, params.boardId, body),
    }),
  ),
  'GET /api/v1/boards/{boardId}/milestones/{milestoneId}': onFirstUse(() =>
    authenticated({
      scope: 'read',
      summary: 'Get a milestone with its progress',
      result: milestoneResult,
      errors: FEATURE,
      params: milestoneParams,
      handler: (ctx, { params }) => getMilestone(ctx, params.boardId, params.milestoneId),
    }),
  ),
  'PATCH /api/v1/boards/{boardId}/milestones/{milestoneId}': onFirstUse(() =>
    authenticated({
      scope: 'write',
      summary: 'Change a milestone',
      result: milestoneResult,
      errors: FEATURE,
      params: milestoneParams,
      body: z.strictObject({
        name: requiredText(200).optional(),
        description: optionalText(5000).nullable().optional(),
        dueDate: calendarDate.optional(),
        color: hexColor.optional(),
        sortOrder: sortOrder.optional(),
      }),
      handler: (ctx, { params, body }) => updateMilestone(ctx, params.boardId, params.milestoneId, body),
    }),
  ),
  'DELETE /api/v1/boards/{boardId}/milestones/{milestoneId}': onFirstUse(() =>
    authenticated({
      scope: 'write',
      summary: 'Delete a milestone (soft); its tickets leave it',
      status: 204,
      errors: FEATURE,
      params: milestoneParams,
      handler: (ctx, { params }) => deleteMilestone(ctx, params.boardId, params.milestoneId),
    }),
  ),
  'GET /api/v1/boards/{boardId}/milestones/{milestoneId}/tickets': onFirstUse(() =>
    authenticated({
      scope: 'read',
      summary: "List a milestone's tickets",
      result: ticketResult,
      envelope: 'page',
      errors: FEATURE,
      params: milestoneParams,
      query: z.strictObject({ ...pageQuery(20, 100), status: z.enum(STATUS_CATEGORIES).optional().meta({ description: 'A status category' }) }),
      handler: (ctx, { params, query }) => listMilestoneTickets(ctx, params.boardId, params.milestoneId, query),
    }),
  ),
};
