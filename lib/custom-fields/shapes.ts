import * as z from 'zod';
import { CUSTOM_FIELD_TYPES } from '../db/entities/index.js';
import { anId, timestamp } from '../core/shapes.js';

/** The definition of a custom field tickets can carry a value for. */
export const customFieldResult = z.lazy(() =>
  z
    .strictObject({
      id: anId,
      name: z.string(),
      type: z.enum(CUSTOM_FIELD_TYPES),
      description: z.string(),
      options: z.array(z.string()).meta({ description: 'The choices of a SELECT field; empty otherwise' }),
      isRequired: z.boolean(),
      order: z.number(),
      createdAt: timestamp,
      updatedAt: timestamp,
    })
    .meta({ id: 'CustomField' }),
);
