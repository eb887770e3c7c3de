import { createHttpHandler } from '../lib/http/router.js';
import { healthRoutes } from '../lib/health/http.js';

/** Exported so tests can hold this group to the route table. */
export const routes = healthRoutes;

export const handler = createHttpHandler(routes);
