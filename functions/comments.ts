import { createHttpHandler } from '../lib/http/router.js';
import { commentsRoutes } from '../lib/comments/http.js';

/** Exported so tests can hold this group to the route table. */
export const routes = commentsRoutes;

export const handler = createHttpHandler(routes);
