import * as z from 'zod';
import { anId, timestamp } from '../core/shapes.js';
import { EVENT_TYPES } from './events.js';

/** A webhook endpoint (docs/webhooks.md); its secret is shown only when it is created. */
export const endpointResult = z.lazy(() =>
  z
    .strictObject({
      id: anId,
      name: z.string(),
      url: z.string(),
      events: z.array(z.enum(EVENT_TYPES)),
      isActive: z.boolean(),
      createdAt: timestamp,
      updatedAt: timestamp,
    })
    .meta({ id: 'WebhookEndpoint' }),
);

export const createdEndpointResult = z.lazy(() =>
  endpointResult
    .unwrap()
    .extend({ secret: z.string().meta({ description: 'The signing secret (`whsec_…`); shown once, store it now' }) })
    .meta({ id: 'CreatedWebhookEndpoint' }),
);

/** One delivery attempt (docs/webhooks.md "Delivery"), with how long the receiver took. */
export const deliveryResult = z.lazy(() =>
  z
    .strictObject({
      id: anId.meta({ description: 'The delivery id: `X-Service-Delivery` and `webhook-id` of the request, the same for every automatic retry' }),
      endpointId: anId,
      eventType: z.string().meta({ description: 'The event name, or `ping`' }),
      statusCode: z.number().int().meta({ description: "The receiver's HTTP status; 0 when there was no response" }),
      success: z.boolean().meta({ description: 'True for a 2xx response' }),
      attempt: z.number().int().min(1),
      error: z.string().nullable().meta({ description: 'Why the attempt failed, or null' }),
      durationMs: z.number().int().min(0),
      createdAt: timestamp,
    })
    .meta({ id: 'WebhookDelivery' }),
);

/** The shapes' types: presenters are typed against them. */
export type WebhookEndpoint = z.output<typeof endpointResult>;
