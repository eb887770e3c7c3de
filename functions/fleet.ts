import { createHttpHandler } from '../lib/http/router.js';
import { fleetRoutes } from '../lib/tickets/http/fleet.js';

/** Exported so tests can hold this group to the route table. */
export const routes = fleetRoutes;

export const handler = createHttpHandler(routes);
