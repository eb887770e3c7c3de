import { createHttpHandler } from '../lib/http/router.js';
import { labelsRoutes } from '../lib/labels/http.js';

/** Exported so tests can hold this group to the route table. */
export const routes = labelsRoutes;

export const handler = createHttpHandler(routes);
