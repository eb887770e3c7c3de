import * as z from 'zod';
import { anId, timestamp } from '../http/validation.js';
import { EVENT_TYPES } from './events.js';

/** A webhook endpoint (spec §2.20); its secret is shown only when it is created. */
export const endpointResult = z
  .strictObject({
    id: anId,
    name: z.string(),
    url: z.string(),
    events: z.array(z.enum(EVENT_TYPES)),
    isActive: z.boolean(),
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .meta({ id: 'WebhookEndpoint' });

export const createdEndpointResult = endpointResult
  .extend({ secret: z.string().meta({ description: 'The signing secret (`whsec_…`); shown once, store it now' }) })
  .meta({ id: 'CreatedWebhookEndpoint' });
