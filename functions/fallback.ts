import { createHttpHandler } from '../lib/http/router.js';
import { unmatchedRoutes } from '../lib/http/fallback.js';
import { functionGroups } from '../infra/route-table.js';

/** Exported so tests can hold this group to the route table. */
export const routes = unmatchedRoutes(functionGroups.flatMap((group) => (group.kind === 'http' ? group.routes : [])));

export const handler = createHttpHandler(routes);
