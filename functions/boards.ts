import { createHttpHandler } from '../lib/http/router.js';
import { boardsRoutes } from '../lib/boards/http.js';

/** Exported so tests can hold this group to the route table. */
export const routes = boardsRoutes;

export const handler = createHttpHandler(routes);
