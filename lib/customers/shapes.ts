import * as z from 'zod';
import { anId, timestamp } from '../core/shapes.js';

export const customerResult = z.lazy(() =>
  z
    .strictObject({ id: anId, name: z.string(), email: z.string().nullable(), phone: z.string().nullable(), isArchived: z.boolean(), createdAt: timestamp })
    .meta({ id: 'Customer' }),
);
