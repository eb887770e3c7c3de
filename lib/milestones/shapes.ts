import * as z from 'zod';
import { anId, timestamp } from '../core/shapes.js';

export const milestoneResult = z.lazy(() =>
  z
    .strictObject({
      id: anId,
      boardId: anId,
      name: z.string(),
      description: z.string().nullable(),
      dueDate: z.iso.date(),
      color: z.string(),
      sortOrder: z.number(),
      progress: z
        .strictObject({ total: z.number().int(), completed: z.number().int(), percentage: z.number().int() })
        .meta({ description: 'Live tickets of the milestone, those in a FINAL status, and their share in whole percent' }),
      isDeleted: z.boolean(),
      createdAt: timestamp,
      updatedAt: timestamp,
    })
    .meta({ id: 'Milestone' }),
);
