import { createHttpHandler } from '../lib/http/router.js';
import { oauthRoutes } from '../lib/oauth/http.js';

/** Exported so tests can hold this group to the route table. */
export const routes = oauthRoutes;

export const handler = createHttpHandler(routes);
