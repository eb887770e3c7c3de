import * as z from 'zod';
import { anId, timestamp } from '../core/shapes.js';

export const labelResult = z.lazy(() =>
  z
    .strictObject({ id: anId, name: z.string(), color: z.string(), description: z.string(), createdAt: timestamp, updatedAt: timestamp })
    .meta({ id: 'Label' }),
);
