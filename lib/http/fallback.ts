import { AppError } from '../core/errors.js';
import { open, type Routes } from './router.js';
import { allowedMethods, compileRoutes, malformedPath, pathSegments } from './route-match.js';

/**
 * The `$default` route: every request no route of the route table matches (API Gateway hands
 * them here, and so does the local runtime). A known path asked with another method is 405
 * with `Allow`; anything else 404; both in the error envelope like every other error.
 */
export function unmatchedRoutes(routeKeys: readonly string[]): Routes {
  const routes = compileRoutes(routeKeys);
  return {
    $default: open({
      handler: async (_ctx, { request }) => {
        const segments = pathSegments(request.path);
        if (!segments) throw malformedPath();
        const allowed = allowedMethods(routes, segments);
        if (allowed.length > 0) {
          throw new AppError(405, 'METHOD_NOT_ALLOWED', `${request.method} is not allowed on this path`, { allowed }, { Allow: allowed.join(', ') });
        }
        throw new AppError(404, 'NOT_FOUND', 'No such route');
      },
    }),
  };
}
