import type { Route } from './routes.js';
import type { HttpResponse } from './respond.js';
import { errorBody, errorResponses, oauthErrorBody, successBody, successStatus } from './responses.js';

/**
 * Why a response is not one its route documents, or undefined when it is. Used in test runs
 * (VALIDATE_RESPONSES) by the router; never in production.
 */
export function nonConformance(routeKey: string, route: Route, response: HttpResponse): string | undefined {
  const status = response.statusCode;
  if (route.raw && (status < 400 || route.raw.statuses?.includes(status))) {
    const documented = route.raw.statuses ?? [successStatus(route)];
    return documented.includes(status) ? undefined : `status ${status}; the route documents ${documented.join(', ')}`;
  }
  const body = response.body === undefined ? undefined : (JSON.parse(response.body) as unknown);
  if (status < 400) {
    if (route.emptyStatus && status === route.emptyStatus) return body === undefined ? undefined : `a body; the route documents none (${status})`;
    if (status !== successStatus(route)) return `status ${status}; the route documents ${successStatus(route)}`;
    if (successStatus(route) === 204) return body === undefined ? undefined : 'a body; the route documents none (204)';
    const schema = successBody(route);
    if (!schema) return undefined;
    const parsed = schema.safeParse(body);
    return parsed.success ? undefined : parsed.error.issues.map((issue) => `${issue.path.join('.') || '(body)'}: ${issue.message}`).join('; ');
  }
  const parsed = route.errorFormat === 'oauth' ? oauthErrorBody.safeParse(body) : errorBody.safeParse(body);
  if (!parsed.success) return `not the error envelope: ${parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ')}`;
  const code = typeof parsed.data.error === 'string' ? parsed.data.error : parsed.data.error.code;
  const codes = errorResponses(routeKey, route).get(status);
  if (!codes) return `status ${status} (${code}) is not documented for this route`;
  if (!codes.has(code)) return `code ${code} is not documented for status ${status} of this route`;
  return undefined;
}
