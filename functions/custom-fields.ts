import { createHttpHandler } from '../lib/http/router.js';
import { customFieldsRoutes } from '../lib/custom-fields/http.js';

/** Exported so tests can hold this group to the route table. */
export const routes = customFieldsRoutes;

export const handler = createHttpHandler(routes);
