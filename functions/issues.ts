import { createHttpHandler } from '../lib/http/router.js';
import { issuesRoutes } from '../lib/tickets/http/issues.js';

/** Exported so tests can hold this group to the route table. */
export const routes = issuesRoutes;

export const handler = createHttpHandler(routes);
