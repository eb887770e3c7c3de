import * as z from 'zod';
import { authenticated, type Routes, onFirstUse } from '../http/routes.js';
import { hexColor, idParam, optionalText, requiredText } from '../http/validation.js';
import { createLabel, deleteLabel, listLabels, updateLabel } from './labels.js';
import { labelResult } from './shapes.js';

const labelParams = z.object({ labelId: idParam });
const labelName = requiredText(50);
const description = optionalText(500);

/** Routes of the `labels` group: the organization's label definitions. */
export const labelsRoutes: Routes = {
  'GET /api/v1/labels': onFirstUse(() =>
    authenticated({
      scope: 'read',
      summary: 'List labels',
      result: z.array(labelResult),
      envelope: 'data', handler: (ctx) => listLabels(ctx) }),
  ),
  'POST /api/v1/labels': onFirstUse(() =>
    authenticated({
      scope: 'write',
      summary: 'Create a label',
      result: labelResult,
      status: 201,
      body: z.strictObject({ name: labelName, color: hexColor, description: description.default('') }),
      handler: (ctx, { body }) => createLabel(ctx, body),
    }),
  ),
  'PATCH /api/v1/labels/{labelId}': onFirstUse(() =>
    authenticated({
      scope: 'write',
      summary: 'Update a label',
      result: labelResult,
      params: labelParams,
      body: z.strictObject({ name: labelName.optional(), color: hexColor.optional(), description: description.optional() }),
      handler: (ctx, { params, body }) => updateLabel(ctx, params.labelId, body),
    }),
  ),
  'DELETE /api/v1/labels/{labelId}': onFirstUse(() =>
    authenticated({
      scope: 'write',
      summary: 'Delete a label',
      status: 204,
      params: labelParams,
      handler: (ctx, { params }) => deleteLabel(ctx, params.labelId),
    }),
  ),
};
