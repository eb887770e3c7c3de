import * as z from 'zod';
import { anId, timestamp } from '../core/shapes.js';

/** A comment on a ticket; a reply names its `parentId`. */
export const commentResult = z
  .strictObject({
    id: anId,
    content: z.string(),
    isSecret: z.boolean().meta({ description: 'Visible to the organization only, never to customer users' }),
    author: z.strictObject({ id: anId, name: z.string() }),
    parentId: anId.nullable(),
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .meta({ id: 'Comment' });
