import * as z from 'zod';
import { anId, timestamp } from '../core/shapes.js';

/** A comment's text as written (no trimming: leading indentation may matter), but never blank; at most 10,000 characters. The REST routes and the MCP tool read it alike. */
export const commentContent = z
  .string()
  .max(10_000, 'At most 10,000 characters')
  .refine((value) => value.trim().length > 0, 'Must not be empty');

/** A comment on a ticket; a reply names its `parentId`. */
export const commentResult = z.lazy(() =>
  z
    .strictObject({
      id: anId,
      content: z.string(),
      isSecret: z.boolean().meta({ description: 'Visible to the organization only, never to customer users' }),
      author: z.strictObject({ id: anId, name: z.string() }),
      parentId: anId.nullable(),
      createdAt: timestamp,
      updatedAt: timestamp,
    })
    .meta({ id: 'Comment' }),
);
