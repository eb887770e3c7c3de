import { describe, expect, it } from 'vitest';
import { requiredScopes } from '../../lib/oauth/scopes.js';

describe('the scopes a REST route needs from an OAuth access token', () => {
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
    expect(requiredScopes(method, routeKey)).toEqual(scopes);
  });
});
