import { createHttpHandler } from '../lib/http/router.js';
import { timeRoutes } from '../lib/time/http.js';

/** Exported so tests can hold this group to the route table. */
export const routes = timeRoutes;

export const handler = createHttpHandler(routes);
