import { createHttpHandler } from '../lib/http/router.js';
import { docsRoutes } from '../lib/docs/http.js';

/** Exported so tests can hold this group to the route table. */
export const routes = docsRoutes;

export const handler = createHttpHandler(routes);
