import * as z from 'zod';
import { authenticated, type Routes, onFirstUse } from '../http/routes.js';
import { idParam, requiredText, storedUrl } from '../http/validation.js';
import { EVENT_CATALOGUE, EVENT_TYPES } from './events.js';
import { createEndpoint, deleteEndpoint, getEndpoint, listEndpoints, updateEndpoint } from './endpoints.js';
import { listDeliveries, MAX_DELIVERIES_PAGE, pingEndpoint, redeliver } from './deliveries.js';
import { createdEndpointResult, deliveryResult, endpointResult } from './shapes.js';

const endpointParams = z.object({ endpointId: idParam });
const deliveryParams = z.object({ endpointId: idParam, deliveryId: idParam });
const url = storedUrl(2000).meta({ description: 'HTTPS URL of a public address' });
const events = z.array(z.enum(EVENT_TYPES)).min(1, 'At least one event').max(EVENT_TYPES.length);
const PLAN = ['PLAN_FEATURE_REQUIRED'] as const;

/** Routes of the `webhooks` group (docs/webhooks.md; Pro plan and up, except the catalogue). */
export const webhooksRoutes: Routes = {
  'GET /api/v1/webhook-endpoints/events': onFirstUse(() =>
    authenticated({
      scope: 'admin',
      summary: 'List the event types an endpoint can subscribe to',
      result: z.array(z.enum(EVENT_TYPES)).meta({
        description: `Every subscribable event type: ${Object.entries(EVENT_CATALOGUE)
          .map(([type, when]) => `\`${type}\` (${when.charAt(0).toLowerCase()}${when.slice(1)})`)
          .join('; ')}.`,
      }),
      handler: async () => [...EVENT_TYPES],
    }),
  ),
  'GET /api/v1/webhook-endpoints': onFirstUse(() =>
    authenticated({
      scope: 'admin',
      summary: 'List webhook endpoints',
      result: z.array(endpointResult),
      errors: PLAN,
      handler: (ctx) => listEndpoints(ctx),
    }),
  ),
  'POST /api/v1/webhook-endpoints': onFirstUse(() =>
    authenticated({
      scope: 'admin',
      summary: 'Create a webhook endpoint (its secret is returned once)',
      status: 201,
      result: createdEndpointResult,
      errors: PLAN,
      body: z.strictObject({ name: requiredText(100), url, events }),
      handler: (ctx, { body }) => createEndpoint(ctx, body),
    }),
  ),
  'GET /api/v1/webhook-endpoints/{endpointId}': onFirstUse(() =>
    authenticated({
      scope: 'admin',
      summary: 'Get a webhook endpoint',
      result: endpointResult,
      errors: PLAN,
      params: endpointParams,
      handler: (ctx, { params }) => getEndpoint(ctx, params.endpointId),
    }),
  ),
  'PATCH /api/v1/webhook-endpoints/{endpointId}': onFirstUse(() =>
    authenticated({
      scope: 'admin',
      summary: 'Update a webhook endpoint',
      result: endpointResult,
      errors: PLAN,
      params: endpointParams,
      body: z.strictObject({ name: requiredText(100).optional(), url: url.optional(), events: events.optional(), isActive: z.boolean().optional() }),
      handler: (ctx, { params, body }) => updateEndpoint(ctx, params.endpointId, body),
    }),
  ),
  'DELETE /api/v1/webhook-endpoints/{endpointId}': onFirstUse(() =>
    authenticated({
      scope: 'admin',
      summary: 'Delete a webhook endpoint',
      status: 204,
      errors: PLAN,
      params: endpointParams,
      handler: (ctx, { params }) => deleteEndpoint(ctx, params.endpointId),
    }),
  ),
  'POST /api/v1/webhook-endpoints/{endpointId}/ping': onFirstUse(() =>
    authenticated({
      scope: 'admin',
      summary: 'Send a test ping to a webhook endpoint',
      description:
        'Queues one delivery of event `ping` with `data: {endpointId}`, signed like any other; it is sent even to an inactive endpoint, is tried once, and shows in the endpoint\'s deliveries.',
      status: 204,
      errors: PLAN,
      params: endpointParams,
      handler: (ctx, { params }) => pingEndpoint(ctx, params.endpointId),
    }),
  ),
  'GET /api/v1/webhook-endpoints/{endpointId}/deliveries': onFirstUse(() =>
    authenticated({
      scope: 'admin',
      summary: "List an endpoint's delivery attempts, newest first",
      description:
        'Each attempt of each delivery is one entry; the automatic retries of a delivery share its `id`. Kept 30 days. `limit` at a time: while more follow, the `Link` header names the next page (`<…?limit=…&before=…>; rel="next"`); `before` is opaque.',
      envelope: 'cursor',
      result: deliveryResult,
      errors: PLAN,
      params: endpointParams,
      query: z.strictObject({
        limit: z.coerce.number().int().min(1).max(MAX_DELIVERIES_PAGE).default(50),
        before: z.string().min(1).max(500).optional().meta({ description: 'Where the page starts: the cursor of the previous page\'s `Link` header' }),
      }),
      handler: (ctx, { params, query }) => listDeliveries(ctx, params.endpointId, query.limit, query.before),
    }),
  ),
  'POST /api/v1/webhook-endpoints/{endpointId}/deliveries/{deliveryId}/redeliver': onFirstUse(() =>
    authenticated({
      scope: 'admin',
      summary: 'Send a delivery again',
      description: 'Queues the same envelope (same event id) as a new delivery with a new id, tried once, even to an inactive endpoint.',
      status: 204,
      errors: PLAN,
      params: deliveryParams,
      handler: (ctx, { params }) => redeliver(ctx, params.endpointId, params.deliveryId),
    }),
  ),
};
