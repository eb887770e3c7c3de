import { createHttpHandler } from '../lib/http/router.js';
import { userRoutes } from '../lib/users/http.js';

/** Exported so tests can hold this group to the route table. */
export const routes = userRoutes;

export const handler = createHttpHandler(routes);
