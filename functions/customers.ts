import { createHttpHandler } from '../lib/http/router.js';
import { customersRoutes } from '../lib/customers/http.js';

/** Exported so tests can hold this group to the route table. */
export const routes = customersRoutes;

export const handler = createHttpHandler(routes);
