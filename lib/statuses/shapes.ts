import * as z from 'zod';
import { STATUS_CATEGORIES } from '../db/entities/index.js';
import { anId, timestamp } from '../core/shapes.js';

/** A status of the organization's workflow. */
export const statusResult = z.lazy(() =>
  z
    .strictObject({
      id: anId,
      key: z.string().meta({ description: 'Stable upper-case key, e.g. `IN_PROGRESS`' }),
      name: z.string(),
      color: z.string(),
      category: z.enum(STATUS_CATEGORIES).meta({ description: 'PLANNING (not started), ACTIVE (in work) or FINAL (finished)' }),
      order: z.number(),
      isDefault: z.boolean().meta({ description: 'New tickets start here unless told otherwise' }),
      isFinal: z.boolean(),
      isMandatory: z.boolean(),
      enabledByDefault: z.boolean(),
      createdAt: timestamp,
      updatedAt: timestamp,
    })
    .meta({ id: 'Status' }),
);
