import * as z from 'zod';
import { authenticated, type Routes, onFirstUse } from '../http/routes.js';
import { hexColor, idParam, optionalText, requiredText } from '../http/validation.js';
import {
  MAX_TYPE_ORDER, createTicketType, deleteTicketType, getDefaultTicketType, getTicketType, getTicketTypeCount,
  listTicketTypes, updateTicketType,
} from './ticket-types.js';
import { ticketTypeResult } from './shapes.js';

const typeParams = z.object({ typeId: idParam });
const typeName = requiredText(50);
const description = optionalText(500);
const order = z.number().int().min(0).max(MAX_TYPE_ORDER);

/** Routes of the `ticket-types` group (the API reference). */
export const ticketTypesRoutes: Routes = {
  'GET /api/v1/ticket-types': onFirstUse(() =>
    authenticated({
      scope: 'read',
      summary: 'List ticket types',
      result: z.array(ticketTypeResult),
      envelope: 'data', handler: (ctx) => listTicketTypes(ctx) }),
  ),
  'GET /api/v1/ticket-types/default': authenticated({ scope: 'read', summary: 'Get the default ticket type', result: ticketTypeResult, handler: (ctx) => getDefaultTicketType(ctx) }),
  'POST /api/v1/ticket-types': onFirstUse(() =>
    authenticated({
      scope: 'write',
      summary: 'Create a ticket type',
      result: ticketTypeResult,
      status: 201,
      body: z.strictObject({
        name: typeName,
        color: hexColor,
        description: description.default(''),
        order: order.optional(),
        isOrgDefault: z.boolean().default(false),
        enabledByDefault: z.boolean().default(true),
      }),
      handler: (ctx, { body }) => createTicketType(ctx, body),
    }),
  ),
  'GET /api/v1/ticket-types/{typeId}': onFirstUse(() =>
    authenticated({
      scope: 'read',
      summary: 'Get a ticket type',
      result: ticketTypeResult,
      params: typeParams,
      handler: (ctx, { params }) => getTicketType(ctx, params.typeId),
    }),
  ),
  'PATCH /api/v1/ticket-types/{typeId}': onFirstUse(() =>
    authenticated({
      scope: 'write',
      summary: 'Update a ticket type',
      result: ticketTypeResult,
      params: typeParams,
      body: z.strictObject({
        name: typeName.optional(),
        color: hexColor.optional(),
        description: description.optional(),
        order: order.optional(),
        isOrgDefault: z.boolean().optional(),
      }),
      handler: (ctx, { params, body }) => updateTicketType(ctx, params.typeId, body),
    }),
  ),
  'GET /api/v1/ticket-types/{typeId}/ticket-count': onFirstUse(() =>
    authenticated({
      scope: 'read',
      summary: 'Count the tickets of a type',
      result: z.strictObject({ count: z.number().int().min(0) }),
      envelope: 'data',
      params: typeParams,
      handler: (ctx, { params }) => getTicketTypeCount(ctx, params.typeId),
    }),
  ),
  'DELETE /api/v1/ticket-types/{typeId}': onFirstUse(() =>
    authenticated({
      scope: 'write',
      summary: 'Delete a ticket type',
      status: 204,
      params: typeParams,
      query: z.strictObject({ replacementTypeId: idParam.optional() }),
      handler: (ctx, { params, query }) => deleteTicketType(ctx, params.typeId, query.replacementTypeId),
    }),
  ),
};
