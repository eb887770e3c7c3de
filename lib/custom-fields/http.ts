import * as z from 'zod';
import { authenticated, type Routes, onFirstUse } from '../http/routes.js';
import { idParam, optionalText, requiredText } from '../http/validation.js';
import { CUSTOM_FIELD_TYPES } from '../db/entities/index.js';
import { MAX_OPTIONS_PER_FIELD, createCustomField, deleteCustomField, listCustomFields, updateCustomField } from './custom-fields.js';
import { customFieldResult } from './shapes.js';

const fieldParams = z.object({ customFieldId: idParam });
const fieldName = requiredText(100);
const description = optionalText(500);
const options = z.array(requiredText(100)).max(MAX_OPTIONS_PER_FIELD, `At most ${MAX_OPTIONS_PER_FIELD} options`);
const order = z.number().int().min(0).max(10_000);

/** Routes of the `custom-fields` group: the organization's custom field definitions. */
export const customFieldsRoutes: Routes = {
  'GET /api/v1/custom-fields': onFirstUse(() =>
    authenticated({
      scope: 'read',
      summary: 'List custom fields',
      result: z.array(customFieldResult),
      envelope: 'data', handler: (ctx) => listCustomFields(ctx) }),
  ),
  'POST /api/v1/custom-fields': onFirstUse(() =>
    authenticated({
      scope: 'write',
      summary: 'Create a custom field',
      result: customFieldResult,
      status: 201,
      body: z.strictObject({
        name: fieldName,
        type: z.enum(CUSTOM_FIELD_TYPES),
        description: description.default(''),
        options: options.optional(),
        isRequired: z.boolean().default(false),
        order: order.optional(),
      }),
      handler: (ctx, { body }) => createCustomField(ctx, body),
    }),
  ),
  'PATCH /api/v1/custom-fields/{customFieldId}': onFirstUse(() =>
    authenticated({
      scope: 'write',
      summary: 'Update a custom field',
      result: customFieldResult,
      params: fieldParams,
      body: z.strictObject({
        name: fieldName.optional(),
        description: description.optional(),
        options: options.optional(),
        isRequired: z.boolean().optional(),
        order: order.optional(),
      }),
      handler: (ctx, { params, body }) => updateCustomField(ctx, params.customFieldId, body),
    }),
  ),
  'DELETE /api/v1/custom-fields/{customFieldId}': onFirstUse(() =>
    authenticated({
      scope: 'write',
      summary: 'Delete a custom field',
      status: 204,
      params: fieldParams,
      handler: (ctx, { params }) => deleteCustomField(ctx, params.customFieldId),
    }),
  ),
};
