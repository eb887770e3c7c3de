import * as z from 'zod';
import { authenticated, fromOperation, type Routes, onFirstUse } from '../http/routes.js';
import { listStatusesOp } from './operations.js';
import { hexColor, idParam, requiredText } from '../http/validation.js';
import { STATUS_CATEGORIES } from '../db/entities/index.js';
import {
  MAX_STATUSES_PER_ORGANIZATION, createStatus, deleteStatus, getStatus, listStatuses, reorderStatuses, updateStatus,
} from './statuses.js';
import { statusResult } from './shapes.js';

const statusParams = z.object({ statusId: idParam });
const statusName = requiredText(50);
const order = z.number().int().min(0);

/** Routes of the `statuses` group (the API reference). */
export const statusesRoutes: Routes = {
  'GET /api/v1/statuses': onFirstUse(() =>
    authenticated({
      ...fromOperation(listStatusesOp),
      summary: 'List statuses',
      result: z.array(statusResult),
      envelope: 'data', handler: (ctx) => listStatuses(ctx) }),
  ),
  'POST /api/v1/statuses': onFirstUse(() =>
    authenticated({
      scope: 'write',
      summary: 'Create a status',
      result: statusResult,
      status: 201,
      body: z.strictObject({
        name: statusName,
        color: hexColor,
        category: z.enum(STATUS_CATEGORIES).default('ACTIVE'),
        order: order.optional(),
        isDefault: z.boolean().default(false),
        isFinal: z.boolean().optional(),
        isMandatory: z.boolean().default(false),
        enabledByDefault: z.boolean().default(true),
      }),
      handler: (ctx, { body }) => createStatus(ctx, body),
    }),
  ),
  'POST /api/v1/statuses/reorder': onFirstUse(() =>
    authenticated({
      scope: 'write',
      summary: 'Reorder statuses',
      result: z.array(statusResult),
      envelope: 'data',
      body: z.strictObject({ statusIds: z.array(idParam).min(1).max(MAX_STATUSES_PER_ORGANIZATION) }),
      handler: (ctx, { body }) => reorderStatuses(ctx, body.statusIds),
    }),
  ),
  'GET /api/v1/statuses/{statusId}': onFirstUse(() =>
    authenticated({
      scope: 'read',
      summary: 'Get a status',
      result: statusResult,
      params: statusParams,
      handler: (ctx, { params }) => getStatus(ctx, params.statusId),
    }),
  ),
  'PATCH /api/v1/statuses/{statusId}': onFirstUse(() =>
    authenticated({
      scope: 'write',
      summary: 'Update a status',
      result: statusResult,
      params: statusParams,
      body: z.strictObject({
        name: statusName.optional(),
        color: hexColor.optional(),
        category: z.enum(STATUS_CATEGORIES).optional(),
        order: order.optional(),
        isDefault: z.boolean().optional(),
      }),
      handler: (ctx, { params, body }) => updateStatus(ctx, params.statusId, body),
    }),
  ),
  'DELETE /api/v1/statuses/{statusId}': onFirstUse(() =>
    authenticated({
      scope: 'write',
      summary: 'Delete a status',
      status: 204,
      params: statusParams,
      handler: (ctx, { params }) => deleteStatus(ctx, params.statusId),
    }),
  ),
};
