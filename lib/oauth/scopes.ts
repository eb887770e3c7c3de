import type { OAuthScope } from './discovery.js';

/**
 * What an OAuth access token needs to call a REST route (spec §5.4.5): `read` for a GET,
 * `write` for a change, and `admin` as well on the administrative routes: permission groups,
 * agents, webhook endpoints, git provider connections and the time-booking sync endpoint
 * whatever the method, and changes to the organization's settings, to users and to booking
 * items. Reading the organization, the user directory and the booking items stays `read`:
 * every member needs them to work. This is the one list of
 * administrative routes; a new administrative domain adds its prefix here.
 */
const ADMIN_ALWAYS = [
  '/api/v1/permission-groups',
  '/api/v1/organizations/{orgId}/agents',
  '/api/v1/webhook-endpoints',
  '/api/v1/integrations/{provider}',
  '/api/v1/time-tracking/sync-endpoint',
];
const ADMIN_CHANGES = ['/api/v1/organization', '/api/v1/users', '/api/v1/time-tracking/booking-items'];

const under = (path: string, prefix: string) => path === prefix || path.startsWith(`${prefix}/`);

export function requiredScopes(method: string, routeKey: string): OAuthScope[] {
  const path = routeKey.slice(routeKey.indexOf(' ') + 1);
  const reads = method === 'GET' || method === 'HEAD';
  const administrative =
    ADMIN_ALWAYS.some((prefix) => under(path, prefix)) ||
    (!reads && ADMIN_CHANGES.some((prefix) => under(path, prefix)) && !under(path, '/api/v1/users/me'));
  return [reads ? 'read' : 'write', ...(administrative ? (['admin'] as const) : [])];
}
