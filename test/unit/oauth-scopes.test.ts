import { describe, expect, it } from 'vitest';
import { functionGroups } from '../../infra/route-table.js';
import { scopesOf, type AuthenticatedRoute, type Route } from '../../lib/http/routes.js';

/*
 * Every authenticated route declares the scope an OAuth access token needs (`scope` on the
 * route, lib/http/router.ts). The old rule, which inferred it from lists of path prefixes, lives
 * on here only as a check of the declarations: a new route under an administrative prefix that
 * declared less than `admin` fails this test.
 */
const ADMIN_ALWAYS = ['/api/v1/spend', '/api/v1/permission-groups', '/api/v1/organizations/{orgId}/agents', '/api/v1/webhook-endpoints', '/api/v1/integrations/{provider}', '/api/v1/time-tracking/sync-endpoint'];
const ADMIN_CHANGES = ['/api/v1/organization', '/api/v1/users', '/api/v1/invitations', '/api/v1/time-tracking/booking-items'];
const under = (path: string, prefix: string) => path === prefix || path.startsWith(`${prefix}/`);

/** The scopes the prefix lists implied for a route (the MCP endpoint's operations each check their own, so it counts as a read). */
function inferredScopes(routeKey: string, route: AuthenticatedRoute): string[] {
  const [method, path] = routeKey.split(' ') as [string, string];
  const reads = method === 'GET' || method === 'HEAD' || route.restrictionsCheckedByOperation === true;
  const administrative = ADMIN_ALWAYS.some((prefix) => under(path, prefix)) || (!reads && ADMIN_CHANGES.some((prefix) => under(path, prefix)) && !under(path, '/api/v1/users/me'));
  return [reads ? 'read' : 'write', ...(administrative ? ['admin'] : [])];
}

const authenticatedRoutes = (): [string, AuthenticatedRoute][] =>
  functionGroups.flatMap((group) => (group.kind === 'http' ? Object.entries(group.routes) : [])).filter((entry): entry is [string, AuthenticatedRoute] => (entry[1] as Route).auth === 'credential');

const routeOf = (routeKey: string): AuthenticatedRoute => authenticatedRoutes().find(([key]) => key === routeKey)![1];
const needed = (routeKey: string, route: AuthenticatedRoute) => scopesOf(route, route.restrictionsCheckedByOperation ? 'GET' : routeKey.split(' ')[0]!);

describe('the scopes a REST route needs from an OAuth access token', () => {
  it('is declared on every authenticated route, and agrees with the administrative prefixes', () => {
    const routes = authenticatedRoutes();
    expect(routes.length).toBeGreaterThan(190);
    for (const [routeKey, route] of routes) expect([routeKey, needed(routeKey, route)]).toEqual([routeKey, inferredScopes(routeKey, route)]);
  });

  it.each([
    ['GET', 'GET /api/v1/boards', ['read']],
    ['POST', 'POST /api/v1/boards/{boardId}/tickets', ['write']],
    ['DELETE', 'DELETE /api/v1/boards/{boardId}/tickets/{ticketId}/claim', ['write']],
    ['GET', 'GET /api/v1/users', ['read']],
    ['GET', 'GET /api/v1/organization', ['read']],
    ['PATCH', 'PATCH /api/v1/organization', ['write', 'admin']],
    ['POST', 'POST /api/v1/users', ['write', 'admin']],
    ['PATCH', 'PATCH /api/v1/users/{userId}', ['write', 'admin']],
    ['POST', 'POST /api/v1/users/me/tokens', ['write']],
    ['GET', 'GET /api/v1/permission-groups', ['read', 'admin']],
    ['GET', 'GET /api/v1/organizations/{orgId}/agents/overview', ['read', 'admin']],
    ['POST', 'POST /api/v1/webhook-endpoints', ['write', 'admin']],
    ['PUT', 'PUT /api/v1/integrations/{provider}', ['write', 'admin']],
    ['POST', 'POST /api/v1/time-tracking/entries', ['write']],
    ['POST', 'POST /api/v1/time-tracking/entries/{entryId}/approve', ['write']],
    ['GET', 'GET /api/v1/time-tracking/booking-items', ['read']],
    ['PATCH', 'PATCH /api/v1/time-tracking/booking-items/{bookingItemId}', ['write', 'admin']],
    ['GET', 'GET /api/v1/time-tracking/sync-endpoint', ['read', 'admin']],
  ])('%s %s', (method, routeKey, scopes) => {
    expect(scopesOf(routeOf(routeKey), method)).toEqual(scopes);
  });
});
