import { createHttpHandler } from '../lib/http/router.js';
import { teamsRoutes } from '../lib/teams/http.js';

/** Exported so tests can hold this group to the route table. */
export const routes = teamsRoutes;

export const handler = createHttpHandler(routes);
