import { createHttpHandler } from '../lib/http/router.js';
import { ticketsRoutes } from '../lib/tickets/http/routes.js';

/** Exported so tests can hold this group to the route table. */
export const routes = ticketsRoutes;

export const handler = createHttpHandler(routes);
