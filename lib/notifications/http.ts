import * as z from 'zod';
import { authenticated, type Routes, onFirstUse } from '../http/routes.js';
import { idParam, pageQuery } from '../http/validation.js';
import { listNotifications, markNotificationRead } from './notifications.js';
import { notificationResult } from './shapes.js';

/** Routes of the `notifications` group (the API reference). */
export const notificationsRoutes: Routes = {
  'GET /api/v1/notifications': onFirstUse(() =>
    authenticated({
      scope: 'read',
      summary: 'List your notifications',
      result: notificationResult,
      envelope: 'page',
      query: z.strictObject(pageQuery(20, 100)),
      handler: (ctx, { query }) => listNotifications(ctx, query),
    }),
  ),
  'POST /api/v1/notifications/{notificationId}/read': onFirstUse(() =>
    authenticated({
      scope: 'write',
      summary: 'Mark a notification read',
      status: 204,
      params: z.object({ notificationId: idParam }),
      handler: (ctx, { params }) => markNotificationRead(ctx, params.notificationId),
    }),
  ),
};
