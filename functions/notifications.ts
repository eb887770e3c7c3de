import { createHttpHandler } from '../lib/http/router.js';
import { notificationsRoutes } from '../lib/notifications/http.js';

/** Exported so tests can hold this group to the route table. */
export const routes = notificationsRoutes;

export const handler = createHttpHandler(routes);
