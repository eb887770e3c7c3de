import * as z from 'zod';
import { anId, timestamp } from '../core/shapes.js';

export const releaseResult = z.lazy(() =>
  z
    .strictObject({
      id: anId,
      boardId: anId,
      name: z.string(),
      version: z.string().nullable().meta({ description: 'Free text, such as a dotted version' }),
      description: z.string().nullable(),
      releaseDate: timestamp.nullable(),
      milestones: z
        .array(z.strictObject({ id: anId, name: z.string() }))
        .meta({ description: "The attached milestones that are live, by their current name, in name order" }),
      ticketCount: z.number().int().min(0).meta({ description: 'Live tickets attached to the release' }),
      createdAt: timestamp,
      updatedAt: timestamp,
    })
    .meta({ id: 'Release' }),
);
