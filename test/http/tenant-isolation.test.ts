import { beforeAll, describe, expect, it } from 'vitest';
import { httpGroups, routeKeysOf } from '../../infra/route-table.js';
import { api, useInProcess } from '../support/api.js';
import { buildOrgFixture, pathFor, writeBodyFor, type OrgFixture } from '../support/fixtures.js';

// A matrix: in process, through the same route table and handlers (test/support/api.ts).
useInProcess();

/** Routes outside an organization's data: no credential, or the platform operator's. */
const NOT_TENANT_SCOPED = new Set([
  '$default',
  'GET /healthz',
  'POST /api/v1/auth/signup',
  'POST /api/v1/auth/login',
  'PATCH /api/v1/platform/organizations/{slug}',
  'GET /api/v1/platform/organizations/{slug}/outbox',
  // Open by their nature (a forgotten password, a mailed link): test/http/invitations.test.ts
  // refuses one organization's link at another.
  'POST /api/v1/auth/password-reset',
  'POST /api/v1/auth/password-reset/confirm',
  'POST /api/v1/invitations/accept',
  // The API reference: the same for everyone, no credential needed.
  'GET /',
  'GET /api/v1/openapi.json',
  'GET /docs',
  'GET /docs/redoc.standalone.js',
  // The console: built files, the same for every organization, no credential (its data comes from the API).
  'GET /app',
  'GET /app/{page}',
  'GET /app/{page}/{id}',
  'GET /app/boards/{boardId}/tickets/{ticketId}',
  'GET /app/assets/{file}',
  // OAuth discovery: public metadata of the organization the Host names, no credential.
  'GET /.well-known/oauth-authorization-server',
  'GET /.well-known/oauth-protected-resource',
  'GET /.well-known/oauth-protected-resource/api/v1/mcp',
  'GET /.well-known/jwks.json',
  // The OAuth pages and endpoints authenticate with their own means (a sign-in form, a client's
  // secret, a code or token): test/http/oauth-attacks.test.ts refuses another organization's.
  'GET /api/v1/oauth/authorize',
  'POST /api/v1/oauth/authorize/sign-in',
  'POST /api/v1/oauth/authorize/sign-out',
  'POST /api/v1/oauth/authorize/consent',
  'POST /api/v1/oauth/token',
  'POST /api/v1/oauth/revoke',
]);

/**
 * Routes whose path parameter names no resource of an organization (`{provider}` is github or
 * gitlab): every organization has its own connection under the same path, which the caller's
 * credential selects (tested in integrations.test.ts: another organization's connection is 404).
 */
const NO_TENANT_IDS = new Set(['GET /api/v1/integrations/{provider}', 'PUT /api/v1/integrations/{provider}', 'DELETE /api/v1/integrations/{provider}']);

const tenantRoutes = () => httpGroups().flatMap(routeKeysOf).filter((route) => !NOT_TENANT_SCOPED.has(route));

describe('tenant isolation across two organizations, every endpoint', () => {
  let victim: OrgFixture;
  let intruder: OrgFixture;
  let victimIds: string[];

  beforeAll(async () => {
    [victim, intruder] = await Promise.all([buildOrgFixture(), buildOrgFixture()]);
    victimIds = [
      victim.orgId, victim.boardId, victim.teamId, victim.customerId, victim.statusId, victim.typeId, victim.groupId, victim.memberId,
      victim.tokenId, victim.labelId, victim.customFieldId, victim.ticketId, victim.subticketId, victim.commentId,
      victim.agentId, victim.agentTokenId, victim.suggestionId, victim.timerId, victim.entryId, victim.bookingItemId, victim.milestoneId,
      victim.releaseId, victim.spaceId, victim.folderId, victim.pageId, victim.versionId,
    ];
  }, 60_000);

  it.each(tenantRoutes().filter((route) => route.includes('{') && !NO_TENANT_IDS.has(route)))(
    '%s answers 404 for the other organization’s id',
    async (routeKey) => {
      const { method, path } = pathFor(routeKey, victim);
      const response = await intruder.call(method, path, { body: writeBodyFor(routeKey, intruder) });
      expect(response.status).toBe(404);
      expect(JSON.stringify(response.body)).not.toContain(victim.orgId);
    },
  );

  it.each(tenantRoutes().filter((route) => !route.includes('{') && route.startsWith('GET ')))(
    '%s shows nothing of the other organization',
    async (routeKey) => {
      const { path } = pathFor(routeKey, intruder);
      const response = await intruder.call('GET', path);
      expect(response.status).toBe(200);
      const text = JSON.stringify(response.body);
      for (const id of victimIds) expect(text).not.toContain(id);
    },
  );

  it.each(tenantRoutes())('%s refuses the other organization’s credential with 401', async (routeKey) => {
    const { method, path } = pathFor(routeKey, intruder);
    const response = await api(method, path, { token: victim.adminToken, org: intruder.slug, body: writeBodyFor(routeKey, intruder) });
    expect(response.status).toBe(401);
  });

  it.each([
    ['POST /api/v1/boards', () => ({ name: 'Probe', teamIds: [victim.teamId] }), 'teamIds.0'],
    ['POST /api/v1/boards', () => ({ name: 'Probe', customerIds: [victim.customerId] }), 'customerIds.0'],
    ['POST /api/v1/teams', () => ({ name: 'Probe', memberIds: [victim.memberId] }), 'memberIds.0'],
    ['POST /api/v1/users', () => ({ name: 'P', email: 'p@probe.test', password: 'probe password 1', role: 'TEAM_MEMBER', permissionGroupIds: [victim.groupId] }), 'permissionGroupIds.0'],
    ['POST /api/v1/users', () => ({ name: 'P', email: 'q@probe.test', password: 'probe password 1', role: 'CUSTOMER', customerId: victim.customerId }), 'customerId'],
    ['POST /api/v1/users/me/tokens', () => ({ name: 'P', allowedBoardIds: [victim.boardId] }), 'allowedBoardIds.0'],
  ])('%s refuses a reference to the other organization’s resource (%#)', async (routeKey, body, field) => {
    const [method, path] = routeKey.split(' ') as [string, string];
    const response = await intruder.call(method, path, { body: body() });
    expect(response.status).toBe(400);
    expect(response.body.error.details.issues.map((issue: { path: string }) => issue.path)).toContain(field);
  });

  it.each([
    ['POST /api/v1/boards/{boardId}/teams', () => ({ teamId: victim.teamId }), 'teamId'],
    ['POST /api/v1/boards/{boardId}/members', () => ({ userId: victim.memberId }), 'userId'],
    ['POST /api/v1/teams/{teamId}/members', () => ({ userId: victim.memberId }), 'userId'],
    ['POST /api/v1/boards/{boardId}/tickets', () => ({ title: 'P', labelIds: [victim.labelId] }), 'labelIds.0'],
    ['POST /api/v1/boards/{boardId}/tickets', () => ({ title: 'P', statusId: victim.statusId }), 'statusId'],
    ['POST /api/v1/boards/{boardId}/tickets', () => ({ title: 'P', assigneeId: victim.memberId }), 'assigneeId'],
    ['POST /api/v1/boards/{boardId}/tickets', () => ({ title: 'P', customerId: victim.customerId }), 'customerId'],
    ['PUT /api/v1/boards/{boardId}/tickets/{ticketId}/custom-fields', () => ({ values: [{ customFieldId: victim.customFieldId, value: 'x' }] }), 'values.0.customFieldId'],
    ['POST /api/v1/boards/{boardId}/releases', () => ({ name: 'P', milestoneIds: [victim.milestoneId] }), 'milestoneIds.0'],
    ['POST /api/v1/boards/{boardId}/releases/{releaseId}/milestones', () => ({ milestoneId: victim.milestoneId }), 'milestoneId'],
    ['POST /api/v1/boards/{boardId}/releases/{releaseId}/tickets', () => ({ ticketId: victim.ticketId }), 'ticketId'],
    ['POST /api/v1/wiki/spaces/{spaceId}/link-board', () => ({ boardId: victim.boardId }), 'boardId'],
    ['POST /api/v1/wiki/spaces/{spaceId}/members', () => ({ userId: victim.memberId, role: 'view' }), 'userId'],
    ['POST /api/v1/wiki/spaces/{spaceId}/pages', () => ({ title: 'P', folderId: victim.folderId }), 'folderId'],
    ['POST /api/v1/wiki/spaces/{spaceId}/folders', () => ({ name: 'P', parentId: victim.folderId }), 'parentId'],
  ])('%s refuses to attach the other organization’s resource to its own', async (routeKey, body, field) => {
    const { method, path } = pathFor(routeKey, intruder);
    const response = await intruder.call(method, path, { body: body() });
    expect(response.status).toBe(400);
    expect(response.body.error.details.issues.map((issue: { path: string }) => issue.path)).toContain(field);
  });

  it('refuses to move a ticket onto the other organization’s board, or under its ticket', async () => {
    const tickets = `/api/v1/boards/${intruder.boardId}/tickets/${intruder.ticketId}`;
    expect((await intruder.call('POST', `${tickets}/move`, { body: { targetBoardId: victim.boardId } })).status).toBe(404);
    const convert = await intruder.call('POST', `${tickets}/convert-to-subticket`, { body: { parentTicketId: victim.ticketId } });
    expect([400, 404]).toContain(convert.status);
    expect((await intruder.call('GET', tickets)).body.data.boardId).toBe(intruder.boardId);
  });

  it('leaves the victim’s resources exactly as they were', async () => {
    const board = await victim.call('GET', `/api/v1/boards/${victim.boardId}`);
    expect(board.body).toMatchObject({ name: 'Fixture board', isArchived: false });
    expect((await victim.call('GET', `/api/v1/teams/${victim.teamId}`)).body.name).toBe('Fixture team');
    expect((await victim.call('GET', `/api/v1/customers/${victim.customerId}`)).body).toMatchObject({ name: 'Fixture customer', isArchived: false });
    expect((await victim.call('GET', `/api/v1/statuses/${victim.statusId}`)).body.name).toBe('Fixture status');
    expect((await victim.call('GET', `/api/v1/ticket-types/${victim.typeId}`)).body.name).toBe('Fixture type');
    expect((await victim.call('GET', `/api/v1/permission-groups/${victim.groupId}`)).body.name).toBe('Fixture group');
    expect((await victim.call('GET', `/api/v1/users/${victim.memberId}`)).body).toMatchObject({ name: 'Fixture Member', isActive: true });
    expect((await victim.call('GET', '/api/v1/users/me/tokens')).body.tokens.map((token: { id: string }) => token.id)).toContain(victim.tokenId);
    expect((await victim.call('GET', '/api/v1/organization')).body.name).toBe(`Org ${victim.slug}`);
    const ticket = await victim.call('GET', `/api/v1/boards/${victim.boardId}/tickets/${victim.ticketId}`);
    expect(ticket.body.data).toMatchObject({ title: 'Fixture ticket', status: { id: expect.any(String) }, subticketIds: [victim.subticketId], commentCount: 1 });
    const comment = await victim.call('GET', `/api/v1/boards/${victim.boardId}/tickets/${victim.ticketId}/comments/${victim.commentId}`);
    expect(comment.body.data.content).toBe('Fixture comment');
    const release = await victim.call('GET', `/api/v1/boards/${victim.boardId}/releases/${victim.releaseId}`);
    expect(release.body).toMatchObject({ name: 'Fixture release', version: '1.0.0', ticketCount: 1, milestones: [{ id: victim.milestoneId, name: 'Fixture milestone' }] });
    const page = await victim.call('GET', `/api/v1/wiki/spaces/${victim.spaceId}/pages/${victim.pageId}`);
    expect(page.body).toMatchObject({ title: 'Fixture page', content: 'Fixture content', version: 1 });
    expect((await victim.call('GET', `/api/v1/wiki/spaces/${victim.spaceId}`)).body).toMatchObject({ name: 'Fixture space', boardId: victim.boardId });
  });
});
