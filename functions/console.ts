import { createHttpHandler } from '../lib/http/router.js';
import { consoleRoutes } from '../lib/console/http.js';

/** Exported so tests can hold this group to the route table. */
export const routes = consoleRoutes;

export const handler = createHttpHandler(routes);
