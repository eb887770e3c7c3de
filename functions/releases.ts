import { createHttpHandler } from '../lib/http/router.js';
import { releasesRoutes } from '../lib/releases/http.js';

/** Exported so tests can hold this group to the route table. */
export const routes = releasesRoutes;

export const handler = createHttpHandler(routes);
