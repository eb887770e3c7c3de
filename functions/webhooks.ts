import { createHttpHandler } from '../lib/http/router.js';
import { webhooksRoutes } from '../lib/webhooks/http.js';

/** Exported so tests can hold this group to the route table. */
export const routes = webhooksRoutes;

export const handler = createHttpHandler(routes);
