import { createHttpHandler } from '../lib/http/router.js';
import { statusesRoutes } from '../lib/statuses/http.js';

/** Exported so tests can hold this group to the route table. */
export const routes = statusesRoutes;

export const handler = createHttpHandler(routes);
