import { createHttpHandler } from '../lib/http/router.js';
import { fallbackRoutes } from '../lib/http/fallback.js';

/** Exported so tests can hold this group to the route table. */
export const routes = fallbackRoutes;

export const handler = createHttpHandler(routes);
