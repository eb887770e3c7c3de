import * as z from 'zod';
import { anId, timestamp } from '../core/shapes.js';

/** A ticket type (Bug, Feature …). */
export const ticketTypeResult = z.lazy(() =>
  z
    .strictObject({
      id: anId,
      name: z.string(),
      color: z.string(),
      description: z.string(),
      order: z.number(),
      isOrgDefault: z.boolean(),
      enabledByDefault: z.boolean(),
      createdAt: timestamp,
      updatedAt: timestamp,
    })
    .meta({ id: 'TicketType' }),
);
