import { beforeAll, describe, expect, it } from 'vitest';
import { api, createMember, createToken, setPlan, signupOrg, type TestOrg, expectValidationError, useInProcess } from '../support/api.js';
import { createOrg } from '../support/factories.js';

// In process, through the same route table and handlers (test/support/api.ts).
useInProcess();

async function createTeam(org: TestOrg, body: Record<string, unknown> = {}) {
  const response = await org.call('POST', '/api/v1/teams', { body: { name: `Team ${Math.random().toString(36).slice(2, 8)}`, ...body } });
  if (response.status !== 201) throw new Error(`create team failed: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body as { id: string; name: string; color: string; memberCount: number; createdAt: string };
}

async function teamIdsOf(org: TestOrg, token: string): Promise<string[]> {
  const me = await api('GET', '/api/v1/users/me', { token, org: org.slug });
  expect(me.status).toBe(200);
  return me.body.teamIds;
}

/** Creates a user without signing them in (cheaper when only the id is needed). */
async function createUserId(org: TestOrg, role: 'TEAM_MEMBER' | 'ADMIN' = 'TEAM_MEMBER'): Promise<string> {
  const response = await org.call('POST', '/api/v1/users', {
    body: { name: `User ${Math.random().toString(36).slice(2, 8)}`, email: `u-${Math.random().toString(36).slice(2, 10)}@${org.slug}.test`, password: 'member password 1', role },
  });
  if (response.status !== 201) throw new Error(`create user failed: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body.id;
}

describe('creating teams', () => {
  let org: TestOrg;
  beforeAll(async () => {
    org = await createOrg({ plan: 'PRO' });
  });

  it('creates a team with its members in one transaction and returns the team shape', async () => {
    const first = await createMember(org, { name: 'Fay' });
    const second = await createMember(org, { name: 'Gus' });

    const response = await org.call('POST', '/api/v1/teams', { body: { name: 'Platform', color: '#112233', memberIds: [first.id, second.id] } });

    expect(response.status).toBe(201);
    expect(response.body).toEqual({ id: expect.stringMatching(/^team_/), name: 'Platform', color: '#112233', memberCount: 2, createdAt: expect.any(String) });
    expect(await teamIdsOf(org, first.token)).toEqual([response.body.id]);
    expect(await teamIdsOf(org, second.token)).toEqual([response.body.id]);
  });

  it('uses #607D8B when no color is given and starts with no members', async () => {
    const response = await org.call('POST', '/api/v1/teams', { body: { name: 'Plain' } });
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({ color: '#607D8B', memberCount: 0 });
  });

  it('counts a member id given twice once', async () => {
    const member = await createMember(org);
    const team = await createTeam(org, { memberIds: [member.id, member.id] });
    expect(team.memberCount).toBe(1);
    const detail = await org.call('GET', `/api/v1/teams/${team.id}`);
    expect(detail.body.members.map((m: any) => m.id)).toEqual([member.id]);
  });

  it('refuses an unknown member id as memberIds.N and writes nothing', async () => {
    const member = await createMember(org);

    const response = await org.call('POST', '/api/v1/teams', { body: { name: 'Ghosts unique-a', memberIds: [member.id, 'usr_01HXXXXXXXXXXXXXXXXXXXXXXX'] } });

    expectValidationError(response, 'memberIds.1');
    const list = await org.call('GET', '/api/v1/teams?search=ghosts unique-a');
    expect(list.body.total).toBe(0);
    expect(await teamIdsOf(org, member.token)).toEqual([]);
  });

  it('refuses a customer user, a deactivated user and another organization\'s user as members', async () => {
    const customer = await org.call('POST', '/api/v1/customers', { body: { name: 'Client' } });
    const customerUser = await createMember(org, { role: 'CUSTOMER', customerId: customer.body.id });
    const deactivated = await createUserId(org);
    expect((await org.call('PATCH', `/api/v1/users/${deactivated}`, { body: { isActive: false } })).status).toBe(200);
    const other = await signupOrg();

    for (const memberId of [customerUser.id, deactivated, other.adminId]) {
      const response = await org.call('POST', '/api/v1/teams', { body: { name: 'Refused', memberIds: [memberId] } });
      expectValidationError(response, 'memberIds.0');
    }
  });

  it.each([
    [{ color: '#123456' }, 'name'],
    [{ name: '' }, 'name'],
    [{ name: '   ' }, 'name'],
    [{ name: 'x'.repeat(101) }, 'name'],
    [{ name: 'Ok', color: 'red' }, 'color'],
    [{ name: 'Ok', color: '#12345' }, 'color'],
    [{ name: 'Ok', memberIds: 'usr_1' }, 'memberIds'],
    [{ name: 'Ok', memberIds: [42] }, 'memberIds.0'],
    [{ name: 'Ok', memberIds: Array.from({ length: 50 }, (_, i) => `usr_${i}`) }, 'memberIds'],
    [{ name: 'Ok', description: 'no such field' }, 'description'],
  ])('rejects %o with 400 naming %s', async (body, field) => {
    const response = await org.call('POST', '/api/v1/teams', { body });
    expectValidationError(response, field);
  });

  it('accepts a name of exactly 100 characters', async () => {
    const response = await org.call('POST', '/api/v1/teams', { body: { name: 'n'.repeat(100) } });
    expect(response.status).toBe(201);
  });
});

describe('listing and reading teams', () => {
  let org: TestOrg;
  let alpha: { id: string };
  let member: { id: string; token: string; email: string };
  beforeAll(async () => {
    org = await createOrg({ plan: 'PRO' });
    member = await createMember(org, { name: 'Ida Member' });
    alpha = await createTeam(org, { name: 'Alpha Squad', memberIds: [member.id, org.adminId] });
    await createTeam(org, { name: 'beta squad', color: '#00AA00' });
    await createTeam(org, { name: 'Gamma' });
  });

  it('lists teams sorted by name with the paginated envelope in two round trips', async () => {
    const response = await org.call('GET', '/api/v1/teams');
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ total: 3, page: 1, pageSize: 20, totalPages: 1 });
    expect(response.body.data.map((team: any) => team.name)).toEqual(['Alpha Squad', 'beta squad', 'Gamma']);
    expect(response.body.data[0]).toEqual({ id: alpha.id, name: 'Alpha Squad', color: '#607D8B', memberCount: 2, createdAt: expect.any(String) });
  });

  it('searches names case-insensitively', async () => {
    const response = await org.call('GET', '/api/v1/teams?search=SQUAD');
    expect(response.body.data.map((team: any) => team.name)).toEqual(['Alpha Squad', 'beta squad']);
    expect(response.body.total).toBe(2);
  });

  it('pages with page and limit and clamps limit to 100', async () => {
    const second = await org.call('GET', '/api/v1/teams?page=2&limit=2');
    expect(second.body).toMatchObject({ total: 3, page: 2, pageSize: 2, totalPages: 2 });
    expect(second.body.data.map((team: any) => team.name)).toEqual(['Gamma']);
    const clamped = await org.call('GET', '/api/v1/teams?limit=1000');
    expect(clamped.body.pageSize).toBe(100);
  });

  it.each([
    ['page=0', 'page'],
    ['limit=abc', 'limit'],
    [`search=${'x'.repeat(101)}`, 'search'],
    ['sort=name', 'sort'],
  ])('rejects the query %s with 400 naming %s', async (query, field) => {
    const response = await org.call('GET', `/api/v1/teams?${query}`);
    expectValidationError(response, field);
  });

  it('lets a member without team permissions read teams', async () => {
    const list = await api('GET', '/api/v1/teams', { token: member.token, org: org.slug });
    expect(list.status).toBe(200);
    expect(list.body.total).toBe(3);
    const detail = await api('GET', `/api/v1/teams/${alpha.id}`, { token: member.token, org: org.slug });
    expect(detail.status).toBe(200);
  });

  it('returns a team with its members sorted by name in three round trips', async () => {
    const response = await org.call('GET', `/api/v1/teams/${alpha.id}`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      id: alpha.id,
      name: 'Alpha Squad',
      color: '#607D8B',
      memberCount: 2,
      createdAt: expect.any(String),
      members: [
        { id: org.adminId, name: 'Ada Admin', email: `admin@${org.slug}.test` },
        { id: member.id, name: 'Ida Member', email: member.email },
      ],
    });
  });

  it('answers an unknown team id with 404', async () => {
    const response = await org.call('GET', '/api/v1/teams/team_01HXXXXXXXXXXXXXXXXXXXXXXX');
    expect(response.status).toBe(404);
    expect(response.body.error.code).toBe('NOT_FOUND');
  });

  it('refuses customer users with 403 on list and get', async () => {
    const customer = await org.call('POST', '/api/v1/customers', { body: { name: 'Reader Co' } });
    const customerUser = await createMember(org, { role: 'CUSTOMER', customerId: customer.body.id });
    const list = await api('GET', '/api/v1/teams', { token: customerUser.token, org: org.slug });
    const detail = await api('GET', `/api/v1/teams/${alpha.id}`, { token: customerUser.token, org: org.slug });
    expect(list.status).toBe(403);
    expect(detail.status).toBe(403);
    expect(list.body.error.code).toBe('FORBIDDEN');
  });
});

describe('updating and deleting teams', () => {
  let org: TestOrg;
  beforeAll(async () => {
    org = await createOrg({ plan: 'PRO' });
  });

  it('renames and recolors a team', async () => {
    const team = await createTeam(org, { name: 'Old name' });

    const response = await org.call('PATCH', `/api/v1/teams/${team.id}`, { body: { name: 'New name', color: '#ABCDEF' } });

    expect(response.status).toBe(200);
    expect(response.body).toEqual({ ...team, name: 'New name', color: '#ABCDEF' });
    const detail = await org.call('GET', `/api/v1/teams/${team.id}`);
    expect(detail.body).toMatchObject({ name: 'New name', color: '#ABCDEF' });
    const search = await org.call('GET', '/api/v1/teams?search=new NAME');
    expect(search.body.data.map((t: any) => t.id)).toContain(team.id);
  });

  it('changes only the given field and writes once when nothing visible to boards changes', async () => {
    const team = await createTeam(org, { name: 'Steady', color: '#101010' });
    const sameValues = await org.call('PATCH', `/api/v1/teams/${team.id}`, { body: { name: 'Steady' } });
    expect(sameValues.status).toBe(200);
    const colorOnly = await org.call('PATCH', `/api/v1/teams/${team.id}`, { body: { color: '#202020' } });
    expect(colorOnly.body).toMatchObject({ name: 'Steady', color: '#202020' });
    const empty = await org.call('PATCH', `/api/v1/teams/${team.id}`, { body: {} });
    expect(empty.status).toBe(200);
    expect(empty.body).toMatchObject({ name: 'Steady', color: '#202020' });
  });

  it.each([
    [{ name: '' }, 'name'],
    [{ name: 'x'.repeat(101) }, 'name'],
    [{ color: '#GGGGGG' }, 'color'],
    [{ memberCount: 3 }, 'memberCount'],
  ])('rejects the update %o with 400 naming %s', async (body, field) => {
    const team = await createTeam(org);
    const response = await org.call('PATCH', `/api/v1/teams/${team.id}`, { body });
    expectValidationError(response, field);
  });

  it('answers an update of an unknown team with 404', async () => {
    const response = await org.call('PATCH', '/api/v1/teams/team_01HXXXXXXXXXXXXXXXXXXXXXXX', { body: { name: 'x' } });
    expect(response.status).toBe(404);
  });

  it('deletes a team permanently and takes it out of every member\'s teamIds', async () => {
    const member = await createMember(org);
    const team = await createTeam(org, { memberIds: [member.id, org.adminId] });
    const kept = await createTeam(org, { memberIds: [member.id] });

    const response = await org.call('DELETE', `/api/v1/teams/${team.id}`);

    expect(response.status).toBe(204);
    expect(response.body).toBeUndefined();
    expect((await org.call('GET', `/api/v1/teams/${team.id}`)).status).toBe(404);
    expect(await teamIdsOf(org, member.token)).toEqual([kept.id]);
    expect(await teamIdsOf(org, org.adminToken)).toEqual([]);
    expect((await org.call('DELETE', `/api/v1/teams/${team.id}`)).status).toBe(404);
  });

  it('deletes a team with more members than one transaction holds', async () => {
    const userIds = await Promise.all(Array.from({ length: 51 }, () => createUserId(org)));
    const team = await createTeam(org, { memberIds: userIds.slice(0, 49) });
    for (const userId of userIds.slice(49)) {
      expect((await org.call('POST', `/api/v1/teams/${team.id}/members`, { body: { userId } })).status).toBe(200);
    }
    const detail = await org.call('GET', `/api/v1/teams/${team.id}`);
    expect(detail.body.memberCount).toBe(51);
    expect(detail.body.members).toHaveLength(51);

    const response = await org.call('DELETE', `/api/v1/teams/${team.id}`);

    expect(response.status).toBe(204);
    expect((await org.call('GET', `/api/v1/teams/${team.id}`)).status).toBe(404);
    const users = await org.call('GET', '/api/v1/users?limit=100');
    const stillMembers = users.body.data.filter((user: any) => user.teamIds.includes(team.id));
    expect(stillMembers).toEqual([]);
  });

  it('answers a delete of an unknown team with 404', async () => {
    const response = await org.call('DELETE', '/api/v1/teams/team_01HXXXXXXXXXXXXXXXXXXXXXXX');
    expect(response.status).toBe(404);
    expect(response.body.error.code).toBe('NOT_FOUND');
  });
});

describe('boards that carry the team', () => {
  let org: TestOrg;
  beforeAll(async () => {
    org = await createOrg({ plan: 'PRO' });
  });

  async function boardWithTeam(teamId: string): Promise<string> {
    const board = await org.call('POST', '/api/v1/boards', { body: { name: `Board ${Math.random().toString(36).slice(2, 8)}`, description: 'Team work', teamIds: [teamId] } });
    expect(board.status, JSON.stringify(board.body)).toBe(201);
    return board.body.id;
  }

  it('shows a renamed and recolored team on the boards it is assigned to', async () => {
    const team = await createTeam(org, { name: 'Before', color: '#111111' });
    const boardId = await boardWithTeam(team.id);

    const response = await org.call('PATCH', `/api/v1/teams/${team.id}`, { body: { name: 'After', color: '#222222' } });

    expect(response.status).toBe(200);
    const board = await org.call('GET', `/api/v1/boards/${boardId}`);
    expect(board.body.teams).toEqual([{ id: team.id, name: 'After', color: '#222222' }]);
  });

  it('takes a deleted team off the boards it was assigned to', async () => {
    const member = await createMember(org);
    const team = await createTeam(org, { memberIds: [member.id] });
    const boardId = await boardWithTeam(team.id);
    expect((await api('GET', `/api/v1/boards/${boardId}`, { token: member.token, org: org.slug })).status).toBe(200);

    expect((await org.call('DELETE', `/api/v1/teams/${team.id}`)).status).toBe(204);

    const board = await org.call('GET', `/api/v1/boards/${boardId}`);
    expect(board.body.teams).toEqual([]);
    expect((await api('GET', `/api/v1/boards/${boardId}`, { token: member.token, org: org.slug })).status).toBe(404);
  });

  it('gives a new member access to the team\'s boards and takes it away when they leave', async () => {
    const member = await createMember(org);
    const team = await createTeam(org);
    const boardId = await boardWithTeam(team.id);
    const asMember = { token: member.token, org: org.slug };
    expect((await api('GET', `/api/v1/boards/${boardId}`, asMember)).status).toBe(404);

    await org.call('POST', `/api/v1/teams/${team.id}/members`, { body: { userId: member.id } });
    expect((await api('GET', `/api/v1/boards/${boardId}`, asMember)).status).toBe(200);

    await org.call('DELETE', `/api/v1/teams/${team.id}/members/${member.id}`);
    expect((await api('GET', `/api/v1/boards/${boardId}`, asMember)).status).toBe(404);
  });
});

describe('team members', () => {
  let org: TestOrg;
  beforeAll(async () => {
    org = await createOrg({ plan: 'PRO' });
  });

  it('adds a member, returns the team with members and grants the team in the member\'s teamIds', async () => {
    const member = await createMember(org, { name: 'Joy' });
    const team = await createTeam(org);

    const response = await org.call('POST', `/api/v1/teams/${team.id}/members`, { body: { userId: member.id } });

    expect(response.status).toBe(200);
    expect(response.body).toEqual({ ...team, memberCount: 1, members: [{ id: member.id, name: 'Joy', email: member.email }] });
    expect(await teamIdsOf(org, member.token)).toEqual([team.id]);
  });

  it('refuses to add a member twice with 409 CONFLICT and keeps the count', async () => {
    const member = await createMember(org);
    const team = await createTeam(org, { memberIds: [member.id] });

    const response = await org.call('POST', `/api/v1/teams/${team.id}/members`, { body: { userId: member.id } });

    expect(response.status).toBe(409);
    expect(response.body.error.code).toBe('CONFLICT');
    expect(response.body.error.message).toMatch(/already a member/);
    expect((await org.call('GET', `/api/v1/teams/${team.id}`)).body.memberCount).toBe(1);
  });

  it('refuses unknown, customer and deactivated users as userId and writes nothing', async () => {
    const team = await createTeam(org);
    const customer = await org.call('POST', '/api/v1/customers', { body: { name: 'Outsider' } });
    const customerUser = await createMember(org, { role: 'CUSTOMER', customerId: customer.body.id });
    const deactivated = await createUserId(org);
    await org.call('PATCH', `/api/v1/users/${deactivated}`, { body: { isActive: false } });

    for (const userId of ['usr_01HXXXXXXXXXXXXXXXXXXXXXXX', customerUser.id, deactivated]) {
      const response = await org.call('POST', `/api/v1/teams/${team.id}/members`, { body: { userId } });
      expectValidationError(response, 'userId');
    }
    expect((await org.call('GET', `/api/v1/teams/${team.id}`)).body).toMatchObject({ memberCount: 0, members: [] });
  });

  it.each([
    [{}, 'userId'],
    [{ userId: '' }, 'userId'],
    [{ userId: 'usr_1', role: 'lead' }, 'role'],
  ])('rejects the member body %o with 400 naming %s', async (body, field) => {
    const team = await createTeam(org);
    const response = await org.call('POST', `/api/v1/teams/${team.id}/members`, { body });
    expectValidationError(response, field);
  });

  it('answers adding to an unknown team with 404 and leaves the user untouched', async () => {
    const member = await createMember(org);
    const response = await org.call('POST', '/api/v1/teams/team_01HXXXXXXXXXXXXXXXXXXXXXXX/members', { body: { userId: member.id } });
    expect(response.status).toBe(404);
    expect(await teamIdsOf(org, member.token)).toEqual([]);
  });

  it('removes a member in one transaction and takes the team out of their teamIds', async () => {
    const member = await createMember(org);
    const other = await createMember(org);
    const team = await createTeam(org, { memberIds: [member.id, other.id] });

    const response = await org.call('DELETE', `/api/v1/teams/${team.id}/members/${member.id}`);

    expect(response.status).toBe(204);
    expect(await teamIdsOf(org, member.token)).toEqual([]);
    expect(await teamIdsOf(org, other.token)).toEqual([team.id]);
    const detail = await org.call('GET', `/api/v1/teams/${team.id}`);
    expect(detail.body.memberCount).toBe(1);
    expect(detail.body.members.map((m: any) => m.id)).toEqual([other.id]);
  });

  it('answers removing a non-member or from an unknown team with 404', async () => {
    const member = await createMember(org);
    const team = await createTeam(org);
    const notMember = await org.call('DELETE', `/api/v1/teams/${team.id}/members/${member.id}`);
    expect(notMember.status).toBe(404);
    expect(notMember.body.error.code).toBe('NOT_FOUND');
    const unknownTeam = await org.call('DELETE', `/api/v1/teams/team_01HXXXXXXXXXXXXXXXXXXXXXXX/members/${member.id}`);
    expect(unknownTeam.status).toBe(404);
    expect((await org.call('GET', `/api/v1/teams/${team.id}`)).body.memberCount).toBe(0);
  });
});

describe('plan gating', () => {
  it('requires the PRO plan to create, update and delete teams but not to read or manage members', async () => {
    const org = await signupOrg();
    const member = await createMember(org);

    const refused = await org.call('POST', '/api/v1/teams', { body: { name: 'Free team' } });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('PLAN_FEATURE_REQUIRED');

    await setPlan(org.slug, 'PRO');
    const team = await createTeam(org, { name: 'Paid team' });
    await setPlan(org.slug, 'FREE');

    const update = await org.call('PATCH', `/api/v1/teams/${team.id}`, { body: { name: 'Renamed' } });
    const remove = await org.call('DELETE', `/api/v1/teams/${team.id}`);
    expect(update.status).toBe(403);
    expect(update.body.error.code).toBe('PLAN_FEATURE_REQUIRED');
    expect(remove.status).toBe(403);
    expect(remove.body.error.code).toBe('PLAN_FEATURE_REQUIRED');

    expect((await org.call('GET', '/api/v1/teams')).body.total).toBe(1);
    expect((await org.call('GET', `/api/v1/teams/${team.id}`)).status).toBe(200);
    expect((await org.call('POST', `/api/v1/teams/${team.id}/members`, { body: { userId: member.id } })).status).toBe(200);
    expect((await org.call('DELETE', `/api/v1/teams/${team.id}/members/${member.id}`)).status).toBe(204);
  });
});

describe('permissions and credentials', () => {
  let org: TestOrg;
  let member: { id: string; token: string };
  let team: { id: string };
  beforeAll(async () => {
    org = await createOrg({ plan: 'PRO' });
    member = await createMember(org);
    team = await createTeam(org, { memberIds: [member.id] });
  });

  it.each([
    ['POST', '/api/v1/teams', { name: 'Mine' }, 'teams:create'],
    ['PATCH', '/api/v1/teams/{teamId}', { name: 'Mine' }, 'teams:edit'],
    ['DELETE', '/api/v1/teams/{teamId}', undefined, 'teams:delete'],
    ['POST', '/api/v1/teams/{teamId}/members', { userId: '{userId}' }, 'teams:manage-members'],
    ['DELETE', '/api/v1/teams/{teamId}/members/{userId}', undefined, 'teams:manage-members'],
  ])('refuses %s %s to a member without %s with 403', async (method, path, body, permission) => {
    const fill = (text: string) => text.replace('{teamId}', team.id).replace('{userId}', member.id);
    const response = await api(method, fill(path), {
      token: member.token,
      org: org.slug,
      body: body ? JSON.parse(fill(JSON.stringify(body))) : undefined,
    });
    expect(response.status).toBe(403);
    expect(response.body.error.code).toBe('FORBIDDEN');
    expect(response.body.error.details).toEqual({ permission });
  });

  it('leaves the team unchanged after refused requests', async () => {
    const detail = await org.call('GET', `/api/v1/teams/${team.id}`);
    expect(detail.body.memberCount).toBe(1);
    expect(await teamIdsOf(org, member.token)).toEqual([team.id]);
  });

  it('refuses writes through a read-only token', async () => {
    const readOnly = await createToken(org, org.adminToken, { readOnly: true });
    const response = await api('POST', '/api/v1/teams', { token: readOnly.token, org: org.slug, body: { name: 'Nope' } });
    expect(response.status).toBe(403);
    const read = await api('GET', '/api/v1/teams', { token: readOnly.token, org: org.slug });
    expect(read.status).toBe(200);
  });
});

describe('tenant isolation', () => {
  it('answers every team route with 404 for another organization\'s team and hides it from lists', async () => {
    const owner = await createOrg({ plan: 'PRO' });
    const intruder = await createOrg({ plan: 'PRO' });
    const member = await createMember(owner);
    const team = await createTeam(owner, { name: 'Secret team', memberIds: [member.id] });

    const attempts = [
      await intruder.call('GET', `/api/v1/teams/${team.id}`),
      await intruder.call('PATCH', `/api/v1/teams/${team.id}`, { body: { name: 'Taken' } }),
      await intruder.call('POST', `/api/v1/teams/${team.id}/members`, { body: { userId: intruder.adminId } }),
      await intruder.call('DELETE', `/api/v1/teams/${team.id}/members/${member.id}`),
      await intruder.call('DELETE', `/api/v1/teams/${team.id}`),
    ];

    expect(attempts.map((response) => response.status)).toEqual([404, 404, 404, 404, 404]);
    expect((await intruder.call('GET', '/api/v1/teams')).body.total).toBe(0);
    const intact = await owner.call('GET', `/api/v1/teams/${team.id}`);
    expect(intact.body).toMatchObject({ name: 'Secret team', memberCount: 1 });
    expect(await teamIdsOf(owner, member.token)).toEqual([team.id]);
    expect(await teamIdsOf(intruder, intruder.adminToken)).toEqual([]);
  });
});
