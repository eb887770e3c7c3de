import * as z from 'zod';
import { authenticated, type Routes } from '../http/router.js';
import { EVENT_CATALOGUE, EVENT_TYPES } from './events.js';

/** Routes of the `webhooks` group (spec §4.15). */
export const webhooksRoutes: Routes = {
  'GET /api/v1/webhook-endpoints/events': authenticated({
    summary: 'List the event types an endpoint can subscribe to',
    result: z.array(z.enum(EVENT_TYPES)).meta({
      description: `Every subscribable event type: ${Object.entries(EVENT_CATALOGUE)
        .map(([type, when]) => `\`${type}\` (${when.charAt(0).toLowerCase()}${when.slice(1)})`)
        .join('; ')}.`,
    }),
    handler: async () => [...EVENT_TYPES],
  }),
};
