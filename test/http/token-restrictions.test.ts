import { beforeAll, describe, expect, it } from 'vitest';
import { httpGroups, routeKeysOf } from '../../infra/route-table.js';
import { api, createToken, useInProcess } from '../support/api.js';
import { buildOrgFixture, pathFor, writeBodyFor, type OrgFixture } from '../support/fixtures.js';

// A matrix: in process, through the same route table and handlers (test/support/api.ts).
useInProcess();

/**
 * Token restrictions (docs/agents.md) on every ticket route (the tickets, comments and issues groups of the route
 * table): readOnly, denyDelete and allowedBoardIds, for agent tokens and personal tokens.
 */
const ticketRoutes = () => httpGroups().filter((group) => ['tickets', 'fleet', 'comments', 'issues'].includes(group.name)).flatMap(routeKeysOf);
const CLAIM_RELEASE = 'DELETE /api/v1/boards/{boardId}/tickets/{ticketId}/claim';

let fixture: OrgFixture;
let agentId: string;
/** Tokens of an agent that holds every permission (Administrators group) and is a member of the fixture board. */
const agentTokens: Record<'readOnly' | 'denyDelete' | 'otherBoard' | 'plain', string> = { readOnly: '', denyDelete: '', otherBoard: '', plain: '' };
let personalOtherBoard: string;
let otherBoardId: string;

async function ok(response: Promise<{ status: number; body: any }>, what: string) {
  const result = await response;
  if (result.status >= 300) throw new Error(`${what}: ${result.status} ${JSON.stringify(result.body)}`);
  return result.body;
}

/** What a sweep must leave untouched: the fixture ticket, its subticket, comments and timeline. */
async function snapshot() {
  const base = `/api/v1/boards/${fixture.boardId}/tickets`;
  const [ticket, subticket, comments, timeline] = await Promise.all([
    fixture.call('GET', `${base}/${fixture.ticketId}`),
    fixture.call('GET', `${base}/${fixture.subticketId}`),
    fixture.call('GET', `${base}/${fixture.ticketId}/comments`),
    fixture.call('GET', `${base}/${fixture.ticketId}/timeline`),
  ]);
  return JSON.stringify([ticket.body.data, subticket.body.data, comments.body, timeline.body]);
}

beforeAll(async () => {
  fixture = await buildOrgFixture();
  const groups = (await fixture.call('GET', '/api/v1/permission-groups')).body.data as any[];
  const administrators = groups.find((group) => group.name === 'Administrators');
  const agents = `/api/v1/organizations/${fixture.orgId}/agents`;
  agentId = (await ok(fixture.call('POST', agents, { body: { name: 'Restricted agent', permissionGroupId: administrators.id } }), 'agent')).id;
  await ok(fixture.call('POST', `/api/v1/boards/${fixture.boardId}/members`, { body: { userId: agentId } }), 'member');
  otherBoardId = (await ok(fixture.call('POST', '/api/v1/boards', { body: { name: 'Other board' } }), 'board')).id;
  await ok(fixture.call('POST', `/api/v1/boards/${otherBoardId}/members`, { body: { userId: agentId } }), 'member');
  const mint = async (body: Record<string, unknown>) => (await ok(fixture.call('POST', `${agents}/${agentId}/tokens`, { body: { name: 'restricted', ...body } }), 'mint')).token as string;
  agentTokens.readOnly = await mint({ readOnly: true, denyDelete: false });
  agentTokens.denyDelete = await mint({ denyDelete: true });
  agentTokens.otherBoard = await mint({ allowedBoardIds: [otherBoardId], denyDelete: false });
  agentTokens.plain = await mint({ denyDelete: false });
  personalOtherBoard = (await createToken(fixture, fixture.adminToken, { name: 'restricted', allowedBoardIds: [otherBoardId] })).token;
}, 60_000);

describe('readOnly tokens on every ticket route', () => {
  let before: string;
  beforeAll(async () => {
    before = await snapshot();
  });

  it.each(ticketRoutes().filter((route) => !route.startsWith('GET ')))('%s refuses a read-only agent token with 403 PAT_READ_ONLY', async (routeKey) => {
    const { method, path } = pathFor(routeKey, fixture);
    const response = await api(method, path, { token: agentTokens.readOnly, org: fixture.slug, body: writeBodyFor(routeKey, fixture) });
    expect(response.status).toBe(403);
    expect(response.body.error.code).toBe('PAT_READ_ONLY');
  });

  it.each(ticketRoutes().filter((route) => route.startsWith('GET ')))('%s answers a read-only agent token', async (routeKey) => {
    const { path } = pathFor(routeKey, fixture);
    const response = await api('GET', path, { token: agentTokens.readOnly, org: fixture.slug });
    expect(response.status).toBe(200);
  });

  it('changed nothing while refusing the writes', async () => {
    expect(await snapshot()).toBe(before);
  });
});

describe('denyDelete tokens on every ticket route', () => {
  it.each(ticketRoutes().filter((route) => route.startsWith('DELETE ') && route !== CLAIM_RELEASE))(
    '%s refuses a denyDelete agent token with 403 PAT_DENY_DELETE',
    async (routeKey) => {
      const { method, path } = pathFor(routeKey, fixture);
      const response = await api(method, path, { token: agentTokens.denyDelete, org: fixture.slug });
      expect(response.status).toBe(403);
      expect(response.body.error.code).toBe('PAT_DENY_DELETE');
    },
  );

  it(`${CLAIM_RELEASE} lets a denyDelete token release its own claim and refuses another actor's`, async () => {
    const { path } = pathFor(CLAIM_RELEASE, fixture);
    const asDenyDelete = (method: string) => api(method, path, { token: agentTokens.denyDelete, org: fixture.slug, body: {} });
    expect((await asDenyDelete('POST')).status).toBe(201);
    expect((await asDenyDelete('DELETE')).status).toBe(200);

    expect((await fixture.call('POST', path, { body: {} })).status).toBe(201);
    const refused = await asDenyDelete('DELETE');
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('PAT_DENY_DELETE');
    expect((await fixture.call('DELETE', path)).status).toBe(200);
  });

  it('still lets a denyDelete token write without deleting', async () => {
    const { path } = pathFor('PATCH /api/v1/boards/{boardId}/tickets/{ticketId}', fixture);
    const response = await api('PATCH', path, { token: agentTokens.denyDelete, org: fixture.slug, body: { description: 'Edited by a denyDelete token' } });
    expect(response.status).toBe(200);
  });
});

describe('allowedBoardIds on every ticket route', () => {
  let before: string;
  beforeAll(async () => {
    before = await snapshot();
  });

  const boardRoutes = () => ticketRoutes().filter((route) => route.includes('{boardId}'));

  /** A valid body; a move targets the allowed board, so only the path's board can fail. */
  const bodyFor = (routeKey: string) => (routeKey.endsWith('/move') ? { targetBoardId: otherBoardId } : writeBodyFor(routeKey, fixture));
  /** Deciding a suggestion is for people: an agent is refused (403) before anything is looked up. */
  const decidesSuggestion = (routeKey: string) => /\/suggestions\/\{suggestionId\}\/(accept|reject)$/.test(routeKey);

  it.each(boardRoutes())('%s answers 404 on a board outside an agent token\'s allowedBoardIds, membership notwithstanding', async (routeKey) => {
    const { method, path } = pathFor(routeKey, fixture);
    const response = await api(method, path, { token: agentTokens.otherBoard, org: fixture.slug, body: bodyFor(routeKey) });
    expect(response.status).toBe(decidesSuggestion(routeKey) ? 403 : 404);
  });

  it.each(boardRoutes())('%s answers 404 on a board outside a personal token\'s allowedBoardIds', async (routeKey) => {
    const { method, path } = pathFor(routeKey, fixture);
    const response = await api(method, path, { token: personalOtherBoard, org: fixture.slug, body: bodyFor(routeKey) });
    expect(response.status).toBe(404);
  });

  it('changed nothing while refusing', async () => {
    expect(await snapshot()).toBe(before);
  });

  it('GET /api/v1/issues shows only the allowed boards, and an unrestricted token of the same agent sees both', async () => {
    const created = await ok(fixture.call('POST', `/api/v1/boards/${otherBoardId}/tickets`, { body: { title: 'On the allowed board' } }), 'ticket');
    const restricted = await api('GET', '/api/v1/issues?includePlanning=true', { token: agentTokens.otherBoard, org: fixture.slug });
    expect(restricted.status).toBe(200);
    expect(restricted.body.data.map((ticket: any) => ticket.id)).toEqual([created.data.id]);
    const plain = await api('GET', '/api/v1/issues?includePlanning=true', { token: agentTokens.plain, org: fixture.slug });
    const boards = new Set(plain.body.data.map((ticket: any) => ticket.boardId));
    expect(boards).toEqual(new Set([fixture.boardId, otherBoardId]));
  });
});
