import { createHttpHandler } from '../lib/http/router.js';
import { organizationRoutes } from '../lib/organizations/http.js';

/** Exported so tests can hold this group to the route table. */
export const routes = organizationRoutes;

export const handler = createHttpHandler(routes);
