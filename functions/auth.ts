import { createHttpHandler } from '../lib/http/router.js';
import { authRoutes } from '../lib/identity/http.js';

/** Exported so tests can hold this group to the route table. */
export const routes = authRoutes;

export const handler = createHttpHandler(routes);
