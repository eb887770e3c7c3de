import * as z from 'zod';
import { NOTIFICATION_TYPES } from '../db/entities/index.js';
import { anId, timestamp } from '../core/shapes.js';

export const notificationResult = z.lazy(() =>
  z
    .strictObject({
      id: anId,
      type: z.enum(NOTIFICATION_TYPES),
      data: z.record(z.string(), z.unknown()).meta({ description: 'What the notification is about (ticket, suggestion …)' }),
      readAt: timestamp.nullable(),
      createdAt: timestamp,
    })
    .meta({ id: 'Notification' }),
);
