import { createHttpHandler } from '../lib/http/router.js';
import { wikiRoutes } from '../lib/wiki/http.js';

/** Exported so tests can hold this group to the route table. */
export const routes = wikiRoutes;

export const handler = createHttpHandler(routes);
