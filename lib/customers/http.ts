import * as z from 'zod';
import { authenticated, type Routes, onFirstUse } from '../http/routes.js';
import { idParam, pageQuery, queryBoolean, requiredText } from '../http/validation.js';
import { archiveCustomer, createCustomer, deleteCustomer, getCustomer, listCustomers, updateCustomer } from './customers.js';
import { customerResult } from './shapes.js';

const customerPath = z.object({ customerId: idParam });

const email = z.string().trim().toLowerCase().pipe(z.email('Must be an e-mail address')).pipe(z.string().max(254, 'At most 254 characters'));
const phone = z.string().trim().min(1, 'Must not be empty').max(50, 'At most 50 characters');

/** Routes of the `customers` group (the API reference). */
export const customersRoutes: Routes = {
  'GET /api/v1/customers': onFirstUse(() =>
    authenticated({
      scope: 'read',
      summary: 'List customers',
      result: customerResult,
      envelope: 'page',
      query: z.strictObject({
        ...pageQuery(20, 100),
        search: z.string().max(200, 'At most 200 characters').optional(),
        includeArchived: queryBoolean.optional(),
      }),
      handler: (ctx, { query }) => listCustomers(ctx, query),
    }),
  ),
  'POST /api/v1/customers': onFirstUse(() =>
    authenticated({
      scope: 'write',
      summary: 'Create a customer',
      result: customerResult,
      status: 201,
      body: z.strictObject({ name: requiredText(200), email: email.nullable().optional(), phone: phone.nullable().optional() }),
      handler: (ctx, { body }) => createCustomer(ctx, body),
    }),
  ),
  'GET /api/v1/customers/{customerId}': onFirstUse(() =>
    authenticated({
      scope: 'read',
      summary: 'Get a customer',
      result: customerResult,
      params: customerPath,
      handler: (ctx, { params }) => getCustomer(ctx, params.customerId),
    }),
  ),
  'PATCH /api/v1/customers/{customerId}': onFirstUse(() =>
    authenticated({
      scope: 'write',
      summary: 'Update a customer',
      result: customerResult,
      params: customerPath,
      body: z.strictObject({ name: requiredText(200).optional(), email: email.nullable().optional(), phone: phone.nullable().optional() }),
      handler: (ctx, { params, body }) => updateCustomer(ctx, params.customerId, body),
    }),
  ),
  'POST /api/v1/customers/{customerId}/archive': onFirstUse(() =>
    authenticated({
      scope: 'write',
      summary: 'Archive a customer',
      result: customerResult,
      params: customerPath,
      handler: (ctx, { params }) => archiveCustomer(ctx, params.customerId),
    }),
  ),
  'DELETE /api/v1/customers/{customerId}': onFirstUse(() =>
    authenticated({
      scope: 'write',
      summary: 'Delete a customer',
      status: 204,
      params: customerPath,
      handler: (ctx, { params }) => deleteCustomer(ctx, params.customerId),
    }),
  ),
};
