import { createHttpHandler } from '../lib/http/router.js';
import { milestonesRoutes } from '../lib/milestones/http.js';

/** Exported so tests can hold this group to the route table. */
export const routes = milestonesRoutes;

export const handler = createHttpHandler(routes);
