import { createHttpHandler } from '../lib/http/router.js';
import { agentRoutes } from '../lib/agents/http.js';

/** Exported so tests can hold this group to the route table. */
export const routes = agentRoutes;

export const handler = createHttpHandler(routes);
