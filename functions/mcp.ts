import { createHttpHandler } from '../lib/http/router.js';
import { mcpRoutes } from '../lib/mcp/http.js';

/** Exported so tests can hold this group to the route table. */
export const routes = mcpRoutes;

export const handler = createHttpHandler(routes);
