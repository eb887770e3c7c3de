import { createHttpHandler } from '../lib/http/router.js';
import { integrationsRoutes } from '../lib/integrations/http.js';

/** Exported so tests can hold this group to the route table. */
export const routes = integrationsRoutes;

export const handler = createHttpHandler(routes);
