import { AppError, NotFound } from '../core/errors.js';
import { embedded } from '../core/embedded.js';
import { open, type Routes } from './routes.js';
import { allowedMethods, compileRoutes, malformedPath, pathSegments, type CompiledRoute } from './route-match.js';

/**
 * The `$default` route: every request no route of the route table matches (API Gateway hands
 * them here, and so does the local runtime). A known path asked with another method is 405
 * with `Allow`; anything else 404; both in the error envelope like every other error.
 */
export const fallbackRoutes: Routes = {
  $default: open({
    errors: ['NOT_FOUND', 'METHOD_NOT_ALLOWED'],
    handler: async (_ctx, { request }) => {
      const segments = pathSegments(request.path);
      if (!segments) throw malformedPath();
      const allowed = allowedMethods(knownRoutes(), segments);
      if (allowed.length > 0) {
        throw new AppError('METHOD_NOT_ALLOWED', `${request.method} is not allowed on this path`, { allowed }, { Allow: allowed.join(', ') });
      }
      throw new NotFound('No such route');
    },
  }),
};

let compiled: CompiledRoute[] | undefined;

/** Every route key of the route table (embedded at synth: lib/core/embedded.ts), compiled once. */
function knownRoutes(): CompiledRoute[] {
  compiled ??= compileRoutes(JSON.parse(embedded('ROUTE_KEYS')) as string[]);
  return compiled;
}
