import { createHttpHandler } from '../lib/http/router.js';
import { ticketTypesRoutes } from '../lib/ticket-types/http.js';

/** Exported so tests can hold this group to the route table. */
export const routes = ticketTypesRoutes;

export const handler = createHttpHandler(routes);
