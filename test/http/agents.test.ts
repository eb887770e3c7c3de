import { describe, expect, it } from 'vitest';
import { api, createMember, createToken, expectValidationError, setPlan, signupOrg, type TestOrg, useInProcess } from '../support/api.js';
import { systemClock } from '../../lib/core/clock.js';
import type { DomainContext } from '../../lib/db/context.js';
import { createAccessToken, listAccessTokens } from '../../lib/identity/personal-tokens.js';
import { createOrg } from '../support/factories.js';

// In process, through the same route table and handlers (test/support/api.ts).
useInProcess();

const base = (org: TestOrg) => `/api/v1/organizations/${org.orgId}/agents`;

async function createAgent(org: TestOrg, body: Record<string, unknown> = {}, token?: string) {
  const response = await org.call('POST', base(org), { body: { name: 'Builder', ...body }, ...(token ? { token } : {}) });
  if (response.status !== 201) throw new Error(`create agent failed: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body;
}

async function mint(org: TestOrg, agentId: string, body: Record<string, unknown> = {}, token?: string) {
  return org.call('POST', `${base(org)}/${agentId}/tokens`, { body: { name: 'ci', ...body }, ...(token ? { token } : {}) });
}

/** A member holding agents:manage through a custom group (and nothing else unless given). */
async function agentManager(org: TestOrg, permissions: string[] = ['agents:manage']) {
  const group = await org.call('POST', '/api/v1/permission-groups', { body: { name: `Managers ${permissions.length}`, color: '#123456', permissions } });
  expect(group.status).toBe(201);
  return createMember(org, { permissionGroupIds: [group.body.id] });
}

describe('agents: create', () => {
  it('creates an agent in the Agents group with a synthetic e-mail and the caller as owner', async () => {
    const org = await createOrg({ plan: 'PRO' });
    const response = await org.call('POST', base(org), { body: { name: 'Builder', description: 'Builds things' } });
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({
      name: 'Builder',
      description: 'Builds things',
      isActive: true,
      owner: { id: org.adminId, name: 'Ada Admin' },
      timeFactor: null,
      weeklyHoursCap: null,
      maxConcurrentClaims: null,
      gitIdentity: null,
      tokenCount: 0,
      lastSeenAt: null,
      permissionGroups: [{ name: 'Agents', color: '#7B1FA2' }],
    });
    expect(response.body.id).toMatch(/^usr_/);
    expect(response.body.email).toMatch(/^agent-[0-9a-z]+@agents\.invalid$/);
    expect(typeof response.body.createdAt).toBe('string');

    const user = await org.call('GET', `/api/v1/users/${response.body.id}`);
    expect(user.body).toMatchObject({ role: 'TEAM_MEMBER', isAgent: true });
  });

  it('puts the agent in a given INTERNAL group and refuses unknown or CUSTOMER groups', async () => {
    const org = await createOrg({ plan: 'PRO' });
    const internal = await org.call('POST', '/api/v1/permission-groups', { body: { name: 'Bots', color: '#111111', permissions: ['tickets:create'] } });
    const customer = await org.call('POST', '/api/v1/permission-groups', { body: { name: 'Clients', color: '#222222', type: 'CUSTOMER', permissions: [] } });
    const agent = await createAgent(org, { permissionGroupId: internal.body.id });
    expect(agent.permissionGroups).toEqual([{ id: internal.body.id, name: 'Bots', color: '#111111' }]);
    expectValidationError(await org.call('POST', base(org), { body: { name: 'X', permissionGroupId: customer.body.id } }), 'permissionGroupId');
    expectValidationError(await org.call('POST', base(org), { body: { name: 'X', permissionGroupId: 'grp_unknown' } }), 'permissionGroupId');
  });

  it('accepts another active member as owner and refuses agents, inactive and unknown owners', async () => {
    const org = await createOrg({ plan: 'PRO' });
    const member = await createMember(org, { name: 'Owner Olga' });
    const agent = await createAgent(org, { ownerId: member.id });
    expect(agent.owner).toEqual({ id: member.id, name: 'Owner Olga', email: member.email });

    expectValidationError(await org.call('POST', base(org), { body: { name: 'X', ownerId: agent.id } }), 'ownerId');
    expectValidationError(await org.call('POST', base(org), { body: { name: 'X', ownerId: 'usr_unknown' } }), 'ownerId');
    const inactive = await createMember(org);
    await org.call('PATCH', `/api/v1/users/${inactive.id}`, { body: { isActive: false } });
    expectValidationError(await org.call('POST', base(org), { body: { name: 'X', ownerId: inactive.id } }), 'ownerId');
  });

  it('validates the body', async () => {
    const org = await createOrg({ plan: 'PRO' });
    expectValidationError(await org.call('POST', base(org), { body: {} }), 'name');
    expectValidationError(await org.call('POST', base(org), { body: { name: 'x'.repeat(101) } }), 'name');
    expectValidationError(await org.call('POST', base(org), { body: { name: 'A', description: 'x'.repeat(2001) } }), 'description');
    expect((await org.call('POST', base(org), { body: { name: 'A', role: 'ADMIN' } })).status).toBe(400);
    const list = await org.call('GET', base(org));
    expect(list.body).toEqual([]);
  });

  it('needs the AGENT_USERS plan feature and agents:manage', async () => {
    const free = await signupOrg();
    const refused = await free.call('POST', base(free), { body: { name: 'A' } });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('PLAN_FEATURE_REQUIRED');

    const org = await createOrg({ plan: 'PRO' });
    const member = await createMember(org);
    const forbidden = await org.call('POST', base(org), { body: { name: 'A' }, token: member.token });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.error.code).toBe('FORBIDDEN');
  });

  it('refuses the 26th live agent with AGENT_LIMIT_REACHED and counts deleted agents out', async () => {
    const org = await createOrg({ plan: 'PRO' });
    const agents = [];
    for (let index = 0; index < 25; index += 1) agents.push(await createAgent(org, { name: `Agent ${index}` }));
    const refused = await org.call('POST', base(org), { body: { name: 'One too many' } });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('AGENT_LIMIT_REACHED');

    expect((await org.call('DELETE', `${base(org)}/${agents[0].id}`)).status).toBe(204);
    expect((await org.call('POST', base(org), { body: { name: 'Replacement' } })).status).toBe(201);
  });
});

// The limit under simultaneous creates: test/http/count-limits.test.ts.

describe('agents: read', () => {
  it('lists every agent for agents:manage and only owned agents for others, as a bare array', async () => {
    const org = await createOrg({ plan: 'PRO' });
    const member = await createMember(org);
    const mine = await createAgent(org, { name: 'B owned by member', ownerId: member.id });
    const other = await createAgent(org, { name: 'A owned by admin' });
    await mint(org, other.id);

    const all = await org.call('GET', base(org));
    expect(all.status).toBe(200);
    expect(all.body.map((agent: { id: string }) => agent.id)).toEqual([other.id, mine.id]);
    expect(all.body[0].tokenCount).toBe(1);

    const owned = await org.call('GET', base(org), { token: member.token });
    expect(owned.status).toBe(200);
    expect(owned.body.map((agent: { id: string }) => agent.id)).toEqual([mine.id]);
  });

  it('gets one agent for its owner or agents:manage, 403 for others, 404 for non-agents and other organizations', async () => {
    const org = await createOrg({ plan: 'PRO' });
    const owner = await createMember(org);
    const stranger = await createMember(org);
    const agent = await createAgent(org, { ownerId: owner.id });

    const got = await org.call('GET', `${base(org)}/${agent.id}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(agent);
    expect((await org.call('GET', `${base(org)}/${agent.id}`, { token: owner.token })).status).toBe(200);
    expect((await org.call('GET', `${base(org)}/${agent.id}`, { token: stranger.token })).status).toBe(403);

    expect((await org.call('GET', `${base(org)}/${owner.id}`)).status).toBe(404);
    expect((await org.call('GET', `${base(org)}/usr_unknown`)).status).toBe(404);

    const other = await createOrg({ plan: 'PRO' });
    expect((await other.call('GET', `${base(other)}/${agent.id}`)).status).toBe(404);
    // The path's organization must be the caller's.
    expect((await other.call('GET', `${base(org)}/${agent.id}`)).status).toBe(404);
    expect((await other.call('GET', base(org))).status).toBe(404);
  });

  it('refuses access tokens on every management endpoint', async () => {
    const org = await createOrg({ plan: 'PRO' });
    const agent = await createAgent(org);
    const { token } = await createToken(org, org.adminToken);
    const calls = [
      ['GET', base(org)],
      ['POST', base(org), { name: 'X' }],
      ['GET', `${base(org)}/${agent.id}`],
      ['PATCH', `${base(org)}/${agent.id}`, { name: 'Y' }],
      ['GET', `${base(org)}/${agent.id}/tokens`],
      ['POST', `${base(org)}/${agent.id}/tokens`, { name: 't' }],
      ['GET', `${base(org)}/policies`],
      ['PATCH', `${base(org)}/policies`, { prsRequireHumanReview: true }],
      ['DELETE', `${base(org)}/${agent.id}`],
    ] as const;
    for (const [method, path, body] of calls) {
      const response = await api(method, path, { token, org: org.slug, body });
      expect(response.status, `${method} ${path}`).toBe(403);
    }
  });
});

describe('agents: update', () => {
  it('updates the limits and clears them with null', async () => {
    const org = await createOrg({ plan: 'PRO' });
    const agent = await createAgent(org);
    const patched = await org.call('PATCH', `${base(org)}/${agent.id}`, {
      body: { name: 'Renamed', description: 'New', timeFactor: 2.5, weeklyHoursCap: 40, maxConcurrentClaims: 5, gitIdentity: 'bot@example.com' },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ name: 'Renamed', description: 'New', timeFactor: 2.5, weeklyHoursCap: 40, maxConcurrentClaims: 5, gitIdentity: 'bot@example.com' });

    const cleared = await org.call('PATCH', `${base(org)}/${agent.id}`, {
      body: { description: null, timeFactor: null, weeklyHoursCap: null, maxConcurrentClaims: null, gitIdentity: null },
    });
    expect(cleared.body).toMatchObject({ description: null, timeFactor: null, weeklyHoursCap: null, maxConcurrentClaims: null, gitIdentity: null });
    expect((await org.call('GET', `${base(org)}/${agent.id}`)).body).toEqual(cleared.body);
  });

  it('rejects out-of-range values naming the field', async () => {
    const org = await createOrg({ plan: 'PRO' });
    const agent = await createAgent(org);
    const path = `${base(org)}/${agent.id}`;
    for (const [field, value] of [
      ['timeFactor', 0.9], ['timeFactor', 10.1], ['weeklyHoursCap', 0], ['weeklyHoursCap', 169],
      ['maxConcurrentClaims', 0], ['maxConcurrentClaims', 51], ['maxConcurrentClaims', 2.5],
      ['name', 'x'.repeat(101)], ['name', ''], ['description', 'x'.repeat(2001)], ['isActive', 'no'],
    ] as const) {
      expectValidationError(await org.call('PATCH', path, { body: { [field]: value } }), field);
    }
    expect((await org.call('PATCH', path, { body: { role: 'ADMIN' } })).status).toBe(400);
    expect((await org.call('GET', path)).body).toEqual(agent);
  });

  it('lets the owner edit but not hand the agent over; agents:manage changes the owner', async () => {
    const org = await createOrg({ plan: 'PRO' });
    const owner = await createMember(org);
    const next = await createMember(org, { name: 'Next Owner' });
    const stranger = await createMember(org);
    const agent = await createAgent(org, { ownerId: owner.id });
    const path = `${base(org)}/${agent.id}`;

    expect((await org.call('PATCH', path, { body: { name: 'By owner' }, token: owner.token })).status).toBe(200);
    expect((await org.call('PATCH', path, { body: { name: 'By stranger' }, token: stranger.token })).status).toBe(403);
    expect((await org.call('PATCH', path, { body: { ownerId: next.id }, token: owner.token })).status).toBe(403);

    const moved = await org.call('PATCH', path, { body: { ownerId: next.id } });
    expect(moved.status).toBe(200);
    expect(moved.body.owner).toEqual({ id: next.id, name: 'Next Owner', email: next.email });

    const otherAgent = await createAgent(org);
    expectValidationError(await org.call('PATCH', path, { body: { ownerId: otherAgent.id } }), 'ownerId');
    const customer = await org.call('POST', '/api/v1/customers', { body: { name: 'Client' } });
    const customerUser = await createMember(org, { role: 'CUSTOMER', customerId: customer.body.id });
    expectValidationError(await org.call('PATCH', path, { body: { ownerId: customerUser.id } }), 'ownerId');
    expect((await org.call('GET', path)).body.owner.id).toBe(next.id);
    expectValidationError(await org.call('PATCH', path, { body: { ownerId: 'usr_unknown' } }), 'ownerId');
  });

  it('deactivation stops the agent tokens and reactivation restores them', async () => {
    const org = await createOrg({ plan: 'PRO' });
    const agent = await createAgent(org);
    const minted = await mint(org, agent.id);
    const me = () => api('GET', '/api/v1/users/me', { token: minted.body.token, org: org.slug });
    const ok = await me();
    expect(ok.status).toBe(200);
    expect(ok.body.id).toBe(agent.id);

    expect((await org.call('PATCH', `${base(org)}/${agent.id}`, { body: { isActive: false } })).body.isActive).toBe(false);
    expect((await me()).status).toBe(401);
    expect((await org.call('GET', `${base(org)}/${agent.id}/tokens`)).body.tokens).toHaveLength(1);

    await org.call('PATCH', `${base(org)}/${agent.id}`, { body: { isActive: true } });
    expect((await me()).status).toBe(200);
    const seen = await org.call('GET', `${base(org)}/${agent.id}`);
    expect(seen.body.lastSeenAt).not.toBeNull();
  });
});

describe('agents: delete', () => {
  it('deletes an agent holding 150 tokens: every token gone, none left able to sign in', async () => {
    const org = await createOrg({ plan: 'PRO' });
    const agent = await createAgent(org);
    const real = await mint(org, agent.id);
    // Minting is limited to 20 an hour through the API; the other 149 are stored by the same domain function.
    const ctx = { org: { orgId: org.orgId }, clock: systemClock } as unknown as DomainContext;
    for (let index = 0; index < 149; index += 1) await createAccessToken(ctx, 'AGENT', agent.id, { name: `bulk ${index}` }, { denyDelete: true });
    expect(await listAccessTokens(org.orgId, agent.id, 'AGENT')).toHaveLength(150);

    const deleted = await org.call('DELETE', `${base(org)}/${agent.id}`);
    expect(deleted.status).toBe(204);
    expect(await listAccessTokens(org.orgId, agent.id, 'AGENT')).toHaveLength(0);
    expect((await api('GET', '/api/v1/users/me', { token: real.body.token, org: org.slug })).status).toBe(401);
    expect((await org.call('GET', base(org))).body).toEqual([]);
  });

  it('soft-deletes the agent, deletes its tokens and cuts them off', async () => {
    const org = await createOrg({ plan: 'PRO' });
    const agent = await createAgent(org);
    const first = await mint(org, agent.id);
    await mint(org, agent.id, { name: 'second' });
    expect((await api('GET', '/api/v1/users/me', { token: first.body.token, org: org.slug })).status).toBe(200);

    const deleted = await org.call('DELETE', `${base(org)}/${agent.id}`);
    expect(deleted.status).toBe(204);
    expect((await api('GET', '/api/v1/users/me', { token: first.body.token, org: org.slug })).status).toBe(401);
    expect((await org.call('GET', `${base(org)}/${agent.id}`)).status).toBe(404);
    expect((await org.call('GET', base(org))).body).toEqual([]);
    expect((await org.call('DELETE', `${base(org)}/${agent.id}`)).status).toBe(404);
    // The record stays for history.
    const user = await org.call('GET', `/api/v1/users/${agent.id}`);
    expect(user.body).toMatchObject({ isAgent: true, isActive: false });
  });

  it('lets the owner delete and refuses others', async () => {
    const org = await createOrg({ plan: 'PRO' });
    const owner = await createMember(org);
    const stranger = await createMember(org);
    const agent = await createAgent(org, { ownerId: owner.id });
    expect((await org.call('DELETE', `${base(org)}/${agent.id}`, { token: stranger.token })).status).toBe(403);
    expect((await org.call('DELETE', `${base(org)}/${agent.id}`, { token: owner.token })).status).toBe(204);
  });
});

describe('agent tokens', () => {
  it('mints a token with restrictions, returns the secret once and lists it without', async () => {
    const org = await createOrg({ plan: 'PRO' });
    const board = await org.call('POST', '/api/v1/boards', { body: { name: 'Main' } });
    const agent = await createAgent(org);
    const minted = await mint(org, agent.id, { name: 'runner', expiresInDays: 7, allowedBoardIds: [board.body.id], readOnly: true, clientLabel: 'Claude' });
    expect(minted.status).toBe(201);
    expect(minted.body.token).toMatch(/^wma_/);
    expect(minted.body).toMatchObject({ name: 'runner', allowedBoardIds: [board.body.id], readOnly: true, denyDelete: true, clientLabel: 'Claude', lastUsedAt: null });
    expect(Date.parse(minted.body.expiresAt) - Date.parse(minted.body.createdAt)).toBe(7 * 86400 * 1000);

    const noExpiry = await mint(org, agent.id, { expiresInDays: null, denyDelete: false });
    expect(noExpiry.body).toMatchObject({ expiresAt: null, denyDelete: false, readOnly: false, allowedBoardIds: [], clientLabel: null });

    const list = await org.call('GET', `${base(org)}/${agent.id}/tokens`);
    expect(list.status).toBe(200);
    expect(list.body.tokens.map((token: { id: string }) => token.id).sort()).toEqual([minted.body.id, noExpiry.body.id].sort());
    expect(Object.keys(list.body.tokens[0]).sort()).toEqual(
      ['allowedBoardIds', 'clientLabel', 'createdAt', 'denyDelete', 'expiresAt', 'id', 'lastUsedAt', 'name', 'readOnly', 'tokenPrefix'].sort(),
    );
    expect(JSON.stringify(list.body)).not.toContain(minted.body.token);
    expect((await org.call('GET', `${base(org)}/${agent.id}`)).body.tokenCount).toBe(2);
  });

  it('validates the mint body', async () => {
    const org = await createOrg({ plan: 'PRO' });
    const agent = await createAgent(org);
    expectValidationError(await mint(org, agent.id, { name: '' }), 'name');
    expectValidationError(await mint(org, agent.id, { name: 'x'.repeat(201) }), 'name');
    expectValidationError(await mint(org, agent.id, { expiresInDays: 0 }), 'expiresInDays');
    expectValidationError(await mint(org, agent.id, { expiresInDays: 3651 }), 'expiresInDays');
    expectValidationError(await mint(org, agent.id, { allowedBoardIds: Array.from({ length: 101 }, (_, index) => `brd_${index}`) }), 'allowedBoardIds');
    expectValidationError(await mint(org, agent.id, { allowedBoardIds: ['brd_unknown'] }), 'allowedBoardIds.0');
    expectValidationError(await mint(org, agent.id, { clientLabel: 'x'.repeat(201) }), 'clientLabel');
    expect((await mint(org, 'usr_unknown')).status).toBe(404);
    expect((await org.call('GET', `${base(org)}/${agent.id}/tokens`)).body.tokens).toEqual([]);
  });

  it('refuses minting for an agent holding permissions the caller lacks', async () => {
    const org = await createOrg({ plan: 'PRO' });
    const manager = await agentManager(org);
    const agent = await createAgent(org);
    const refused = await mint(org, agent.id, {}, manager.token);
    expect(refused.status).toBe(403);
    expect(refused.body.error.details.missing).toContain('tickets:edit');

    const strong = await agentManager(org, ['agents:manage', 'tickets:create', 'tickets:edit', 'milestones:view', 'releases:view', 'time-tracking:view', 'time-tracking:manage', 'wiki:view']);
    expect((await mint(org, agent.id, {}, strong.token)).status).toBe(201);
  });

  it('lets the owner list and revoke but not mint without agents:manage', async () => {
    const org = await createOrg({ plan: 'PRO' });
    const owner = await createMember(org);
    const stranger = await createMember(org);
    const agent = await createAgent(org, { ownerId: owner.id });
    const minted = await mint(org, agent.id);
    expect((await mint(org, agent.id, {}, owner.token)).status).toBe(403);
    expect((await org.call('GET', `${base(org)}/${agent.id}/tokens`, { token: stranger.token })).status).toBe(403);
    expect((await org.call('DELETE', `${base(org)}/${agent.id}/tokens/${minted.body.id}`, { token: stranger.token })).status).toBe(403);
    expect((await org.call('GET', `${base(org)}/${agent.id}/tokens`, { token: owner.token })).body.tokens).toHaveLength(1);
    const revoked = await org.call('DELETE', `${base(org)}/${agent.id}/tokens/${minted.body.id}`, { token: owner.token });
    expect(revoked.status).toBe(204);
    expect((await api('GET', '/api/v1/users/me', { token: minted.body.token, org: org.slug })).status).toBe(401);
    expect((await org.call('DELETE', `${base(org)}/${agent.id}/tokens/${minted.body.id}`)).status).toBe(404);
  });

  it('keeps listing and revoking open on the FREE plan while minting is refused', async () => {
    const org = await createOrg({ plan: 'PRO' });
    const agent = await createAgent(org);
    const minted = await mint(org, agent.id);
    await setPlan(org.slug, 'FREE');
    const refused = await mint(org, agent.id);
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('PLAN_FEATURE_REQUIRED');
    expect((await org.call('GET', base(org))).status).toBe(200);
    expect((await org.call('GET', `${base(org)}/${agent.id}/tokens`)).body.tokens).toHaveLength(1);
    expect((await org.call('PATCH', `${base(org)}/${agent.id}`, { body: { isActive: false } })).status).toBe(200);
    expect((await org.call('DELETE', `${base(org)}/${agent.id}/tokens/${minted.body.id}`)).status).toBe(204);
    expect((await org.call('DELETE', `${base(org)}/${agent.id}`)).status).toBe(204);
  });

  it('allows 20 mints per hour per agent, then 429 with Retry-After', async () => {
    const org = await createOrg({ plan: 'PRO' });
    const agent = await createAgent(org);
    const other = await createAgent(org, { name: 'Other' });
    for (let index = 0; index < 20; index += 1) expect((await mint(org, agent.id)).status).toBe(201);
    const limited = await mint(org, agent.id);
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe('RATE_LIMITED');
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    expect((await org.call('GET', `${base(org)}/${agent.id}/tokens`)).body.tokens).toHaveLength(20);
    expect((await mint(org, other.id)).status).toBe(201);
  });
  // The mint limit under simultaneous requests: test/http/count-limits.test.ts.
});

describe('agent policies', () => {
  it('returns the defaults and the gateable keys', async () => {
    const org = await signupOrg();
    const response = await org.call('GET', `${base(org)}/policies`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      statusTransitionsRequireApproval: ['DONE'],
      prsRequireHumanReview: false,
      quarantineAfterLapses: 3,
      gateableStatusKeys: ['BLOCKED', 'DONE', 'IN_PROGRESS', 'IN_REVIEW', 'TODO'],
    });
  });

  it('updates the policies and refuses BACKLOG and unknown keys', async () => {
    const org = await signupOrg();
    const patched = await org.call('PATCH', `${base(org)}/policies`, { body: { statusTransitionsRequireApproval: ['IN_REVIEW', 'DONE'], prsRequireHumanReview: true } });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ statusTransitionsRequireApproval: ['IN_REVIEW', 'DONE'], prsRequireHumanReview: true });

    expectValidationError(await org.call('PATCH', `${base(org)}/policies`, { body: { statusTransitionsRequireApproval: ['DONE', 'BACKLOG'] } }), 'statusTransitionsRequireApproval.1');
    expectValidationError(await org.call('PATCH', `${base(org)}/policies`, { body: { statusTransitionsRequireApproval: ['NOPE'] } }), 'statusTransitionsRequireApproval.0');
    expectValidationError(await org.call('PATCH', `${base(org)}/policies`, { body: { prsRequireHumanReview: 'yes' } }), 'prsRequireHumanReview');
    expect((await org.call('PATCH', `${base(org)}/policies`, { body: { other: 1 } })).status).toBe(400);

    const partial = await org.call('PATCH', `${base(org)}/policies`, { body: { prsRequireHumanReview: false } });
    expect(partial.body.statusTransitionsRequireApproval).toEqual(['IN_REVIEW', 'DONE']);
    expect((await org.call('GET', `${base(org)}/policies`)).body).toMatchObject({ statusTransitionsRequireApproval: ['IN_REVIEW', 'DONE'], prsRequireHumanReview: false });
  });

  it('lets agent owners read but not change the policies; others get 403', async () => {
    const org = await createOrg({ plan: 'PRO' });
    const owner = await createMember(org);
    const stranger = await createMember(org);
    await createAgent(org, { ownerId: owner.id });
    expect((await org.call('GET', `${base(org)}/policies`, { token: owner.token })).status).toBe(200);
    expect((await org.call('GET', `${base(org)}/policies`, { token: stranger.token })).status).toBe(403);
    expect((await org.call('PATCH', `${base(org)}/policies`, { body: { prsRequireHumanReview: true }, token: owner.token })).status).toBe(403);
    const other = await signupOrg();
    expect((await other.call('GET', `${base(org)}/policies`)).status).toBe(404);
  });
});
