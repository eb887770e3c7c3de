import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createMember, createToken, setPlan, signupOrg, type TestOrg, useInProcess } from '../support/api.js';
import { createMemberWith, createBoard } from '../support/factories.js';

// In process, through the same route table and handlers (test/support/api.ts).
useInProcess();

const unique = () => randomBytes(3).toString('hex');

async function newTeam(org: TestOrg, body: Record<string, unknown> = {}) {
  const response = await org.call('POST', '/api/v1/teams', { body: { name: `Team ${unique()}`, ...body } });
  if (response.status !== 201) throw new Error(`create team failed: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body;
}

async function newCustomer(org: TestOrg) {
  const response = await org.call('POST', '/api/v1/customers', { body: { name: `Customer ${unique()}` } });
  if (response.status !== 201) throw new Error(`create customer failed: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body;
}

const issuePaths = (response: { body: any }): string[] => response.body.error.details.issues.map((issue: any) => issue.path);

describe('creating boards', () => {
  let org: TestOrg;
  beforeAll(async () => {
    org = await signupOrg();
  });

  it('creates a board with the given upper-cased prefix in one transaction and returns it', async () => {
    const response = await org.call('POST', '/api/v1/boards', { body: { name: 'Platform', prefix: 'plat1', description: 'Core services' } });

    expect(response.status).toBe(201);
    expect(response.body).toEqual({
      id: expect.stringMatching(/^brd_/),
      name: 'Platform',
      prefix: 'PLAT1',
      description: 'Core services',
      isArchived: false,
      createdAt: expect.any(String),
      updatedAt: response.body.createdAt,
      teams: [],
      features: { milestonesAndReleases: false, explainableStatus: false },
      memberIds: [],
      customerIds: [],
      dispatchPaused: false,
      monthlyBudgetMicros: null,
    });
    const read = await org.call('GET', `/api/v1/boards/${response.body.id}`);
    expect(read.body).toEqual(response.body);
  });

  it('derives the prefix from the initials of a multi-word name', async () => {
    const board = await createBoard(org, { name: 'Quarterly Revenue Xray' });
    expect(board.prefix).toBe('QRX');
  });

  it('derives the prefix from the first three letters of a one-word name', async () => {
    const board = await createBoard(org, { name: 'Zephyr' });
    expect(board.prefix).toBe('ZEP');
  });

  it('falls back to BRD when the name has too few letters or digits', async () => {
    const board = await createBoard(await signupOrg(), { name: '!!' });
    expect(board.prefix).toBe('BRD');
  });

  it('appends a digit to a generated prefix that is already taken', async () => {
    const first = await createBoard(org, { name: 'Wide Widget' });
    const second = await org.call('POST', '/api/v1/boards', { body: { name: 'Wild Wolf' } });
    const third = await createBoard(org, { name: 'Wet Walrus' });

    expect(first.prefix).toBe('WW');
    expect(second.status).toBe(201);
    expect(second.body.prefix).toBe('WW2');
    expect(third.prefix).toBe('WW3');
  });

  it('refuses a prefix another board holds, whatever its case, with 409 naming the prefix', async () => {
    await createBoard(org, { prefix: 'DUP' });
    const before = await org.call('GET', '/api/v1/boards?limit=100');

    const response = await org.call('POST', '/api/v1/boards', { body: { name: 'Second', prefix: 'dup' } });

    expect(response.status).toBe(409);
    expect(response.body.error.code).toBe('CONFLICT');
    expect(response.body.error.message).toContain('DUP');
    expect(response.body.error.details).toMatchObject({ field: 'prefix', prefix: 'DUP' });
    const after = await org.call('GET', '/api/v1/boards?limit=100');
    expect(after.body.total).toBe(before.body.total);
  });

  it('lets two organizations use the same prefix', async () => {
    const other = await signupOrg();
    await createBoard(org, { prefix: 'SHARED' });
    const response = await other.call('POST', '/api/v1/boards', { body: { name: 'Shared', prefix: 'SHARED' } });
    expect(response.status).toBe(201);
  });

  it.each([
    ['a name over 100 characters', 'name', { name: 'x'.repeat(101) }],
    ['an empty name', 'name', { name: '' }],
    ['a missing name', 'name', { name: undefined }],
    ['a one-character prefix', 'prefix', { prefix: 'A' }],
    ['a prefix with a dash', 'prefix', { prefix: 'TOO-LONG-PREFIX' }],
    ['an 11-character prefix', 'prefix', { prefix: 'ABCDEFGHIJK' }],
    ['a prefix with a symbol', 'prefix', { prefix: 'ab$' }],
    ['teamIds that are not a list', 'teamIds', { teamIds: 'team_1' }],
    ['a customer id that is not a string', 'customerIds.0', { customerIds: [42] }],
    ['a description over 10,000 characters', 'description', { description: 'x'.repeat(10_001) }],
    ['an unknown field', 'color', { color: '#FFFFFF' }],
  ])('rejects %s with 400 naming %s', async (_case, field, override) => {
    const response = await org.call('POST', '/api/v1/boards', { body: { name: 'Valid', ...override } });
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('VALIDATION_ERROR');
    expect(issuePaths(response)).toContain(field);
  });

  it('rejects an unknown customer with 400 naming customerIds.N and writes nothing', async () => {
    const customer = await newCustomer(org);

    const response = await org.call('POST', '/api/v1/boards', {
      body: { name: 'With customers', prefix: 'CUSTX', customerIds: [customer.id, 'cst_unknown'] },
    });

    expect(response.status).toBe(400);
    expect(issuePaths(response)).toEqual(['customerIds.1']);
    const retry = await org.call('POST', '/api/v1/boards', { body: { name: 'With customers', prefix: 'CUSTX', customerIds: [customer.id] } });
    expect(retry.status).toBe(201);
    expect(retry.body.customerIds).toEqual([customer.id]);
  });

  it('makes a creator who is not an administrator a direct member, and no administrator', async () => {
    const member = await createMember(org);

    const byMember = await createBoard(org, {}, { token: member.token });
    const byAdmin = await createBoard(org);

    expect(byMember.memberIds).toEqual([member.id]);
    expect(byAdmin.memberIds).toEqual([]);
    const read = await api('GET', `/api/v1/boards/${byMember.id}`, { token: member.token, org: org.slug });
    expect(read.status).toBe(200);
  });

  it('refuses a member without boards:create with 403', async () => {
    const member = await createMemberWith(org, ['tickets:create']);
    const response = await api('POST', '/api/v1/boards', { token: member.token, org: org.slug, body: { name: 'Nope' } });
    expect(response.status).toBe(403);
    expect(response.body.error.code).toBe('FORBIDDEN');
  });
});

describe('creating boards with teams', () => {
  let org: TestOrg;
  beforeAll(async () => {
    org = await signupOrg();
    await setPlan(org.slug, 'PRO');
  });

  it('assigns the given teams and customers, reading the teams once', async () => {
    const team = await newTeam(org, { name: 'Alpha', color: '#AA0000' });
    const customer = await newCustomer(org);

    const response = await org.call('POST', '/api/v1/boards', { body: { name: 'Assigned', teamIds: [team.id, team.id], customerIds: [customer.id] } });

    expect(response.status).toBe(201);
    expect(response.body.teams).toEqual([{ id: team.id, name: 'Alpha', color: '#AA0000' }]);
    expect(response.body.customerIds).toEqual([customer.id]);
  });

  it('rejects an unknown team with 400 naming teamIds.N', async () => {
    const team = await newTeam(org);
    const response = await org.call('POST', '/api/v1/boards', { body: { name: 'Bad team', teamIds: [team.id, 'team_unknown'] } });
    expect(response.status).toBe(400);
    expect(issuePaths(response)).toEqual(['teamIds.1']);
  });

  it("rejects another organization's team as unknown", async () => {
    const other = await signupOrg();
    await setPlan(other.slug, 'PRO');
    const foreign = await newTeam(other);
    const response = await org.call('POST', '/api/v1/boards', { body: { name: 'Foreign team', teamIds: [foreign.id] } });
    expect(response.status).toBe(400);
    expect(issuePaths(response)).toEqual(['teamIds.0']);
  });
});

describe('listing boards', () => {
  let org: TestOrg;
  let names: string[];
  beforeAll(async () => {
    org = await signupOrg();
    names = ['Delta', 'alpha', 'Charlie', 'bravo', 'Echo Archive'];
    for (const name of names) await createBoard(org, { name });
    const archived = (await org.call('GET', '/api/v1/boards?search=echo')).body.data[0];
    await org.call('POST', `/api/v1/boards/${archived.id}/archive`);
  });

  it('lists the active boards sorted by name, paginated with an exact total', async () => {
    const response = await org.call('GET', '/api/v1/boards?page=2&limit=2');

    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ total: 4, page: 2, pageSize: 2, totalPages: 2 });
    expect(response.body.data.map((board: any) => board.name)).toEqual(['Charlie', 'Delta']);
  });

  it('uses 20 as the default page size and clamps the limit to 100', async () => {
    const byDefault = await org.call('GET', '/api/v1/boards');
    const clamped = await org.call('GET', '/api/v1/boards?limit=500');
    expect(byDefault.body.pageSize).toBe(20);
    expect(clamped.body.pageSize).toBe(100);
  });

  it('searches names case-insensitively', async () => {
    const response = await org.call('GET', '/api/v1/boards?search=ALP');
    expect(response.body.data.map((board: any) => board.name)).toEqual(['alpha']);
  });

  it('includes archived boards with includeArchived and lists only them with archivedOnly', async () => {
    const included = await org.call('GET', '/api/v1/boards?includeArchived=true');
    const only = await org.call('GET', '/api/v1/boards?archivedOnly=true');
    expect(included.body.total).toBe(5);
    expect(only.body.data.map((board: any) => board.name)).toEqual(['Echo Archive']);
    expect(only.body.data[0].isArchived).toBe(true);
  });

  it.each([['includeArchived=yes'], ['archivedOnly=1'], ['page=0'], ['sort=name']])('rejects the query %s with 400', async (query) => {
    const response = await org.call('GET', `/api/v1/boards?${query}`);
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('VALIDATION_ERROR');
  });
});

describe('reading and changing a board', () => {
  let org: TestOrg;
  beforeAll(async () => {
    org = await signupOrg();
  });

  it('reads a board in two round trips', async () => {
    const board = await createBoard(org);
    const response = await org.call('GET', `/api/v1/boards/${board.id}`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual(board);
  });

  it('answers an unknown board id with 404', async () => {
    const response = await org.call('GET', '/api/v1/boards/brd_unknown');
    expect(response.status).toBe(404);
    expect(response.body.error.code).toBe('NOT_FOUND');
  });

  it('changes name, description and features, and finds the board by its new name', async () => {
    const board = await createBoard(org, { name: 'Before', prefix: 'KEEP' });

    const response = await org.call('PATCH', `/api/v1/boards/${board.id}`, {
      body: { name: 'After Rename', description: 'New text', features: { milestonesAndReleases: true } },
    });

    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      name: 'After Rename',
      prefix: 'KEEP',
      description: 'New text',
      features: { milestonesAndReleases: true, explainableStatus: false },
    });
    expect(response.body.updatedAt >= board.updatedAt).toBe(true);
    const second = await org.call('PATCH', `/api/v1/boards/${board.id}`, { body: { features: { explainableStatus: true } } });
    expect(second.body.features).toEqual({ milestonesAndReleases: true, explainableStatus: true });
    const found = await org.call('GET', '/api/v1/boards?search=after%20ren');
    expect(found.body.data.map((item: any) => item.id)).toEqual([board.id]);
  });

  it('archives and restores a board through PATCH isArchived', async () => {
    const board = await createBoard(org);
    const archived = await org.call('PATCH', `/api/v1/boards/${board.id}`, { body: { isArchived: true } });
    const restored = await org.call('PATCH', `/api/v1/boards/${board.id}`, { body: { isArchived: false } });
    expect(archived.body.isArchived).toBe(true);
    expect(restored.body.isArchived).toBe(false);
  });

  it.each([
    ['a prefix change', 'prefix', { prefix: 'NEW' }],
    ['an empty name', 'name', { name: '' }],
    ['a name over 100 characters', 'name', { name: 'x'.repeat(101) }],
    ['a non-boolean isArchived', 'isArchived', { isArchived: 'yes' }],
    ['an unknown feature', 'wiki', { features: { wiki: true } }],
    ['a non-boolean feature', 'features.explainableStatus', { features: { explainableStatus: 1 } }],
  ])('rejects %s with 400 naming %s', async (_case, field, body) => {
    const board = await createBoard(org);
    const response = await org.call('PATCH', `/api/v1/boards/${board.id}`, { body });
    expect(response.status).toBe(400);
    expect(issuePaths(response)).toContain(field);
  });

  it('archives a board, hides it from the default list and still reads it by id', async () => {
    const board = await createBoard(org, { name: `Archivable ${unique()}` });

    const archived = await org.call('POST', `/api/v1/boards/${board.id}/archive`);

    expect(archived.status).toBe(200);
    expect(archived.body).toMatchObject({ id: board.id, isArchived: true });
    const listed = await org.call('GET', `/api/v1/boards?search=${encodeURIComponent(board.name)}`);
    expect(listed.body.total).toBe(0);
    const read = await org.call('GET', `/api/v1/boards/${board.id}`);
    expect(read.body.isArchived).toBe(true);
  });

  it('unarchives a board and lists it again', async () => {
    const board = await createBoard(org, { name: `Restorable ${unique()}` });
    await org.call('POST', `/api/v1/boards/${board.id}/archive`);

    const restored = await org.call('POST', `/api/v1/boards/${board.id}/unarchive`);

    expect(restored.status).toBe(200);
    expect(restored.body.isArchived).toBe(false);
    const listed = await org.call('GET', `/api/v1/boards?search=${encodeURIComponent(board.name)}`);
    expect(listed.body.total).toBe(1);
  });
});

describe('deleting a board', () => {
  let org: TestOrg;
  beforeAll(async () => {
    org = await signupOrg();
  });

  it('soft-deletes: 204, then 404 everywhere, not listed, and its prefix stays reserved', async () => {
    const board = await createBoard(org, { prefix: 'GONE' });

    const response = await org.call('DELETE', `/api/v1/boards/${board.id}`);

    expect(response.status).toBe(204);
    expect(response.body).toBeUndefined();
    for (const [method, path] of boardRoutes(board.id)) {
      const after = await org.call(method, path, { body: bodyFor(method, path) });
      expect([method, path, after.status]).toEqual([method, path, 404]);
    }
    const listed = await org.call('GET', '/api/v1/boards?includeArchived=true');
    expect(listed.body.data.map((item: any) => item.id)).not.toContain(board.id);
    const reuse = await org.call('POST', '/api/v1/boards', { body: { name: 'Reuse', prefix: 'GONE' } });
    expect(reuse.status).toBe(409);
  });

  it('refuses a member without boards:delete with 403 and keeps the board', async () => {
    const member = await createMember(org);
    const board = await createBoard(org, {}, { token: member.token });
    const response = await api('DELETE', `/api/v1/boards/${board.id}`, { token: member.token, org: org.slug });
    expect(response.status).toBe(403);
    expect((await org.call('GET', `/api/v1/boards/${board.id}`)).status).toBe(200);
  });
});

/** Every board route with a board id in its path (plus a plausible body). */
function boardRoutes(boardId: string): [string, string][] {
  return [
    ['GET', `/api/v1/boards/${boardId}`],
    ['PATCH', `/api/v1/boards/${boardId}`],
    ['DELETE', `/api/v1/boards/${boardId}`],
    ['POST', `/api/v1/boards/${boardId}/archive`],
    ['POST', `/api/v1/boards/${boardId}/unarchive`],
    ['POST', `/api/v1/boards/${boardId}/teams`],
    ['DELETE', `/api/v1/boards/${boardId}/teams/team_x`],
    ['POST', `/api/v1/boards/${boardId}/members`],
    ['DELETE', `/api/v1/boards/${boardId}/members/usr_x`],
    ['GET', `/api/v1/boards/${boardId}/statuses`],
    ['PUT', `/api/v1/boards/${boardId}/statuses`],
    ['GET', `/api/v1/boards/${boardId}/transitions`],
    ['PUT', `/api/v1/boards/${boardId}/transitions`],
  ];
}

function bodyFor(method: string, path: string): unknown {
  if (method === 'PATCH') return { name: 'Renamed' };
  if (path.endsWith('/teams') && method === 'POST') return { teamId: 'team_x' };
  if (path.endsWith('/members') && method === 'POST') return { userId: 'usr_x' };
  if (path.endsWith('/statuses') && method === 'PUT') return { statusIds: ['sts_x'] };
  if (path.endsWith('/transitions') && method === 'PUT') return { rules: [] };
  return undefined;
}

describe('board access', () => {
  let org: TestOrg;
  beforeAll(async () => {
    org = await signupOrg();
  });

  it('shows a team member only the boards they were added to directly', async () => {
    const member = await createMember(org);
    const mine = await createBoard(org);
    const hidden = await createBoard(org);
    await org.call('POST', `/api/v1/boards/${mine.id}/members`, { body: { userId: member.id } });

    const listed = await api('GET', '/api/v1/boards', { token: member.token, org: org.slug });
    const readHidden = await api('GET', `/api/v1/boards/${hidden.id}`, { token: member.token, org: org.slug });

    expect(listed.body.data.map((board: any) => board.id)).toEqual([mine.id]);
    expect(listed.body.total).toBe(1);
    expect(readHidden.status).toBe(404);
  });

  it('answers every route of a board the member cannot see with 404', async () => {
    const member = await createMember(org);
    const hidden = await createBoard(org);
    for (const [method, path] of boardRoutes(hidden.id).filter(([method]) => method === 'GET')) {
      const response = await api(method, path, { token: member.token, org: org.slug });
      expect([path, response.status]).toEqual([path, 404]);
    }
  });

  it('limits a token with allowedBoardIds to those boards in the list and by id', async () => {
    const allowed = await createBoard(org);
    const other = await createBoard(org);
    const token = await createToken(org, org.adminToken, { allowedBoardIds: [allowed.id] });

    const listed = await api('GET', '/api/v1/boards?limit=100', { token: token.token, org: org.slug });
    const readAllowed = await api('GET', `/api/v1/boards/${allowed.id}`, { token: token.token, org: org.slug });
    const readOther = await api('GET', `/api/v1/boards/${other.id}`, { token: token.token, org: org.slug });

    expect(listed.body.data.map((board: any) => board.id)).toEqual([allowed.id]);
    expect(readAllowed.status).toBe(200);
    expect(readOther.status).toBe(404);
  });

  it("shows a customer user only its customer's boards, without internal assignments", async () => {
    const customer = await newCustomer(org);
    const otherCustomer = await newCustomer(org);
    const colleague = await createMember(org);
    const shared = await createBoard(org, { customerIds: [customer.id, otherCustomer.id] });
    await org.call('POST', `/api/v1/boards/${shared.id}/members`, { body: { userId: colleague.id } });
    await createBoard(org, { customerIds: [otherCustomer.id] });
    const customerUser = await createMember(org, { role: 'CUSTOMER', customerId: customer.id });

    const listed = await api('GET', '/api/v1/boards', { token: customerUser.token, org: org.slug });

    expect(listed.body.data).toHaveLength(1);
    expect(listed.body.data[0]).toMatchObject({ id: shared.id, customerIds: [customer.id], memberIds: [], teams: [] });
  });

  it("answers another organization's board with 404 on every board route", async () => {
    const other = await signupOrg();
    const foreign = await createBoard(other);
    for (const [method, path] of boardRoutes(foreign.id)) {
      const response = await org.call(method, path, { body: bodyFor(method, path) });
      expect([method, path, response.status]).toEqual([method, path, 404]);
    }
    expect((await other.call('GET', `/api/v1/boards/${foreign.id}`)).body.name).toBe(foreign.name);
  });

  it('refuses board management to a member without the permissions with 403', async () => {
    const member = await createMember(org);
    const board = await createBoard(org, {}, { token: member.token });
    const attempts: [string, string, unknown][] = [
      ['PATCH', `/api/v1/boards/${board.id}`, { name: 'x' }],
      ['POST', `/api/v1/boards/${board.id}/archive`, undefined],
      ['POST', `/api/v1/boards/${board.id}/unarchive`, undefined],
      ['POST', `/api/v1/boards/${board.id}/members`, { userId: org.adminId }],
      ['DELETE', `/api/v1/boards/${board.id}/members/${member.id}`, undefined],
      ['POST', `/api/v1/boards/${board.id}/teams`, { teamId: 'team_x' }],
      ['DELETE', `/api/v1/boards/${board.id}/teams/team_x`, undefined],
      ['PUT', `/api/v1/boards/${board.id}/statuses`, { statusIds: ['sts_x'] }],
      ['PUT', `/api/v1/boards/${board.id}/transitions`, { rules: [] }],
    ];
    for (const [method, path, body] of attempts) {
      const response = await api(method, path, { token: member.token, org: org.slug, body });
      expect([method, path, response.status]).toEqual([method, path, 403]);
    }
  });
});

describe('direct board members', () => {
  let org: TestOrg;
  beforeAll(async () => {
    org = await signupOrg();
  });

  it('adds a member in three round trips, and adding them again changes nothing', async () => {
    const member = await createMember(org);
    const board = await createBoard(org);

    const added = await org.call('POST', `/api/v1/boards/${board.id}/members`, { body: { userId: member.id } });
    const again = await org.call('POST', `/api/v1/boards/${board.id}/members`, { body: { userId: member.id } });

    expect(added.status).toBe(200);
    expect(added.body.memberIds).toEqual([member.id]);
    expect(again.status).toBe(200);
    expect(again.body.memberIds).toEqual([member.id]);
  });

  it('keeps every member when several are added at the same time', async () => {
    const members = await Promise.all([createMember(org), createMember(org), createMember(org)]);
    const board = await createBoard(org);

    await Promise.all(members.map((member) => org.call('POST', `/api/v1/boards/${board.id}/members`, { body: { userId: member.id } })));

    const read = await org.call('GET', `/api/v1/boards/${board.id}`);
    expect(read.body.memberIds).toEqual(members.map((member) => member.id).sort());
  });

  it('refuses unknown, deactivated, customer and foreign users with 400 naming userId', async () => {
    const board = await createBoard(org);
    const deactivated = await createMember(org);
    await org.call('PATCH', `/api/v1/users/${deactivated.id}`, { body: { isActive: false } });
    const customer = await newCustomer(org);
    const customerUser = await createMember(org, { role: 'CUSTOMER', customerId: customer.id });
    const foreign = await createMember(await signupOrg());

    for (const userId of ['usr_unknown', deactivated.id, customerUser.id, foreign.id]) {
      const response = await org.call('POST', `/api/v1/boards/${board.id}/members`, { body: { userId } });
      expect([userId, response.status]).toEqual([userId, 400]);
      expect(issuePaths(response)).toEqual(['userId']);
    }
  });

  it('rejects a body without userId or with unknown fields', async () => {
    const board = await createBoard(org);
    const missing = await org.call('POST', `/api/v1/boards/${board.id}/members`, { body: {} });
    const extra = await org.call('POST', `/api/v1/boards/${board.id}/members`, { body: { userId: org.adminId, role: 'x' } });
    expect(issuePaths(missing)).toEqual(['userId']);
    expect(issuePaths(extra)).toEqual(['role']);
  });

  it('removes a member with 204, after which they no longer see the board', async () => {
    const member = await createMember(org);
    const board = await createBoard(org);
    await org.call('POST', `/api/v1/boards/${board.id}/members`, { body: { userId: member.id } });

    const removed = await org.call('DELETE', `/api/v1/boards/${board.id}/members/${member.id}`);

    expect(removed.status).toBe(204);
    const read = await api('GET', `/api/v1/boards/${board.id}`, { token: member.token, org: org.slug });
    expect(read.status).toBe(404);
    const again = await org.call('DELETE', `/api/v1/boards/${board.id}/members/${member.id}`);
    expect(again.status).toBe(404);
  });
});

describe('board statuses', () => {
  let org: TestOrg;
  beforeAll(async () => {
    org = await signupOrg();
  });

  it('shows every organization status in order, the default ones enabled', async () => {
    const board = await createBoard(org);

    const response = await org.call('GET', `/api/v1/boards/${board.id}/statuses`);

    expect(response.status).toBe(200);
    expect(response.body.data.map((status: any) => status.key)).toEqual(['BACKLOG', 'TODO', 'IN_PROGRESS', 'IN_REVIEW', 'BLOCKED', 'DONE']);
    expect(response.body.data.every((status: any) => status.enabled)).toBe(true);
    expect(response.body.data[5]).toEqual({
      id: expect.stringMatching(/^sts_/),
      name: 'Done',
      color: expect.stringMatching(/^#/),
      category: 'FINAL',
      order: expect.any(Number),
      isDefault: false,
      isFinal: true,
      isMandatory: true,
      key: 'DONE',
      enabledByDefault: true,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      enabled: true,
    });
  });

  it('chooses the statuses a board shows', async () => {
    const board = await createBoard(org);
    const statuses = (await org.call('GET', `/api/v1/boards/${board.id}/statuses`)).body.data;
    const idOf = (key: string) => statuses.find((status: any) => status.key === key).id;

    const response = await org.call('PUT', `/api/v1/boards/${board.id}/statuses`, {
      body: { statusIds: [idOf('DONE'), idOf('IN_PROGRESS'), idOf('BACKLOG')] },
    });

    expect(response.status).toBe(200);
    const enabled = response.body.data.filter((status: any) => status.enabled).map((status: any) => status.key);
    expect(enabled).toEqual(['BACKLOG', 'IN_PROGRESS', 'DONE']);
    const read = await org.call('GET', `/api/v1/boards/${board.id}/statuses`);
    expect(read.body).toEqual(response.body);
    const otherBoard = await createBoard(org);
    const untouched = await org.call('GET', `/api/v1/boards/${otherBoard.id}/statuses`);
    expect(untouched.body.data.every((status: any) => status.enabled)).toBe(true);
  });

  it('refuses to disable a mandatory status', async () => {
    const board = await createBoard(org);
    const statuses = (await org.call('GET', `/api/v1/boards/${board.id}/statuses`)).body.data;
    const backlog = statuses.find((status: any) => status.key === 'BACKLOG').id;

    const response = await org.call('PUT', `/api/v1/boards/${board.id}/statuses`, { body: { statusIds: [backlog] } });

    expect(response.status).toBe(400);
    expect(issuePaths(response)).toEqual(['statusIds']);
    expect(response.body.error.message).toContain('Done');
  });

  it("rejects unknown and other organizations' status ids with 400 naming statusIds.N", async () => {
    const board = await createBoard(org);
    const done = (await org.call('GET', `/api/v1/boards/${board.id}/statuses`)).body.data.find((status: any) => status.key === 'DONE').id;
    const other = await signupOrg();
    const foreignBoard = await createBoard(other);
    const foreignStatus = (await other.call('GET', `/api/v1/boards/${foreignBoard.id}/statuses`)).body.data[0].id;

    const unknown = await org.call('PUT', `/api/v1/boards/${board.id}/statuses`, { body: { statusIds: [done, 'sts_unknown'] } });
    const foreign = await org.call('PUT', `/api/v1/boards/${board.id}/statuses`, { body: { statusIds: [foreignStatus, done] } });
    const empty = await org.call('PUT', `/api/v1/boards/${board.id}/statuses`, { body: { statusIds: [] } });

    expect(issuePaths(unknown)).toEqual(['statusIds.1']);
    expect(issuePaths(foreign)).toEqual(['statusIds.0']);
    expect(empty.status).toBe(400);
    expect(issuePaths(empty)).toEqual(['statusIds']);
  });
});

describe('board transitions', () => {
  let org: TestOrg;
  let board: any;
  let ids: Record<string, string>;
  beforeAll(async () => {
    org = await signupOrg();
    board = await createBoard(org);
    const statuses = (await org.call('GET', `/api/v1/boards/${board.id}/statuses`)).body.data;
    ids = Object.fromEntries(statuses.map((status: any) => [status.key, status.id]));
  });

  it('has no rules at first (any move is allowed)', async () => {
    const fresh = await createBoard(org);
    const response = await org.call('GET', `/api/v1/boards/${fresh.id}/transitions`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ rules: [] });
  });

  it('stores rules and returns them', async () => {
    const rules = [
      { fromStatusId: ids.BACKLOG, toStatusIds: [ids.TODO] },
      { fromStatusId: ids.TODO, toStatusIds: [ids.IN_PROGRESS, ids.BLOCKED, ids.IN_PROGRESS] },
    ];

    const response = await org.call('PUT', `/api/v1/boards/${board.id}/transitions`, { body: { rules } });

    expect(response.status).toBe(200);
    const expected = { rules: [rules[0], { fromStatusId: ids.TODO, toStatusIds: [ids.IN_PROGRESS, ids.BLOCKED] }] };
    expect(response.body).toEqual(expected);
    expect((await org.call('GET', `/api/v1/boards/${board.id}/transitions`)).body).toEqual(expected);
    const cleared = await org.call('PUT', `/api/v1/boards/${board.id}/transitions`, { body: { rules: [] } });
    expect(cleared.body).toEqual({ rules: [] });
  });

  it('rejects unknown statuses and a second rule from the same status, naming the field', async () => {
    const put = (rules: unknown) => org.call('PUT', `/api/v1/boards/${board.id}/transitions`, { body: { rules } });

    const unknownFrom = await put([{ fromStatusId: 'sts_unknown', toStatusIds: [ids.TODO] }]);
    const unknownTo = await put([{ fromStatusId: ids.TODO, toStatusIds: [ids.DONE, 'sts_unknown'] }]);
    const duplicate = await put([
      { fromStatusId: ids.TODO, toStatusIds: [ids.DONE] },
      { fromStatusId: ids.TODO, toStatusIds: [ids.BLOCKED] },
    ]);
    const malformed = await put([{ fromStatusId: ids.TODO, toStatusIds: [ids.DONE], extra: true }]);

    expect(issuePaths(unknownFrom)).toEqual(['rules.0.fromStatusId']);
    expect(issuePaths(unknownTo)).toEqual(['rules.0.toStatusIds.1']);
    expect(issuePaths(duplicate)).toEqual(['rules.1.fromStatusId']);
    expect(malformed.status).toBe(400);
    expect((await org.call('GET', `/api/v1/boards/${board.id}/transitions`)).body).toEqual({ rules: [] });
  });
});

describe('teams on boards', () => {
  let org: TestOrg;
  beforeAll(async () => {
    org = await signupOrg();
    await setPlan(org.slug, 'PRO');
  });

  it('assigns a team in three round trips; assigning it again changes nothing', async () => {
    const team = await newTeam(org, { name: 'Builders', color: '#00AA00' });
    const board = await createBoard(org);

    const assigned = await org.call('POST', `/api/v1/boards/${board.id}/teams`, { body: { teamId: team.id } });
    const again = await org.call('POST', `/api/v1/boards/${board.id}/teams`, { body: { teamId: team.id } });

    expect(assigned.status).toBe(200);
    expect(assigned.body.teams).toEqual([{ id: team.id, name: 'Builders', color: '#00AA00' }]);
    expect(again.status).toBe(200);
    expect(again.body.teams).toHaveLength(1);
    expect((await org.call('GET', `/api/v1/boards/${board.id}`)).body.teams).toEqual(assigned.body.teams);
  });

  it('keeps every team when several are assigned at the same time', async () => {
    const teams = await Promise.all([newTeam(org), newTeam(org), newTeam(org)]);
    const board = await createBoard(org);

    const responses = await Promise.all(
      teams.map((team) => org.call('POST', `/api/v1/boards/${board.id}/teams`, { body: { teamId: team.id } })),
    );

    expect(responses.map((response) => response.status)).toEqual([200, 200, 200]);
    const read = await org.call('GET', `/api/v1/boards/${board.id}`);
    expect(read.body.teams.map((team: any) => team.id).sort()).toEqual(teams.map((team) => team.id).sort());
  });

  it("rejects an unknown or another organization's team with 400 naming teamId", async () => {
    const board = await createBoard(org);
    const other = await signupOrg();
    await setPlan(other.slug, 'PRO');
    const foreign = await newTeam(other);
    for (const teamId of ['team_unknown', foreign.id]) {
      const response = await org.call('POST', `/api/v1/boards/${board.id}/teams`, { body: { teamId } });
      expect(response.status).toBe(400);
      expect(issuePaths(response)).toEqual(['teamId']);
    }
  });

  it('gives team members access, and takes it away when the team is removed', async () => {
    const member = await createMember(org);
    const team = await newTeam(org, { memberIds: [member.id] });
    const board = await createBoard(org);
    const unrelated = await createBoard(org);
    const memberToken = await api('POST', '/api/v1/auth/login', { org: org.slug, body: { email: member.email, password: 'member password 1' } });
    const asMember = (path: string) => api('GET', path, { token: memberToken.body.token, org: org.slug });
    await org.call('POST', `/api/v1/boards/${board.id}/teams`, { body: { teamId: team.id } });

    const listed = await asMember('/api/v1/boards');
    expect(listed.body.data.map((item: any) => item.id)).toEqual([board.id]);
    expect((await asMember(`/api/v1/boards/${unrelated.id}`)).status).toBe(404);

    const removed = await org.call('DELETE', `/api/v1/boards/${board.id}/teams/${team.id}`);

    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({ flaggedTicketCount: 0 });
    expect((await asMember(`/api/v1/boards/${board.id}`)).status).toBe(404);
    expect((await org.call('GET', `/api/v1/boards/${board.id}`)).body.teams).toEqual([]);
  });

  it('answers removing a team that is not assigned with 404', async () => {
    const team = await newTeam(org);
    const board = await createBoard(org);
    const response = await org.call('DELETE', `/api/v1/boards/${board.id}/teams/${team.id}`);
    expect(response.status).toBe(404);
  });

  it('shows a renamed team under its new name and drops a deleted team from its boards', async () => {
    const renamed = await newTeam(org, { name: 'Old Name', color: '#111111' });
    const deleted = await newTeam(org);
    const board = await createBoard(org, { teamIds: [renamed.id, deleted.id] });

    await org.call('PATCH', `/api/v1/teams/${renamed.id}`, { body: { name: 'New Name', color: '#222222' } });
    await org.call('DELETE', `/api/v1/teams/${deleted.id}`);

    const read = await org.call('GET', `/api/v1/boards/${board.id}`);
    expect(read.body.teams).toEqual([{ id: renamed.id, name: 'New Name', color: '#222222' }]);
  });

  it('drops a deleted customer from its boards', async () => {
    const customer = await newCustomer(org);
    const board = await createBoard(org, { customerIds: [customer.id] });

    await org.call('DELETE', `/api/v1/customers/${customer.id}`);

    expect((await org.call('GET', `/api/v1/boards/${board.id}`)).body.customerIds).toEqual([]);
  });
});

describe('changing a board’s customers', () => {
  it('replaces the customers with PATCH customerIds, which gives their customer users access', async () => {
    const org = await signupOrg();
    const customer = await newCustomer(org);
    const board = await createBoard(org);
    const customerUser = await createMember(org, { role: 'CUSTOMER', customerId: customer.id });
    expect((await api('GET', `/api/v1/boards/${board.id}`, { token: customerUser.token, org: org.slug })).status).toBe(404);

    const patched = await org.call('PATCH', `/api/v1/boards/${board.id}`, { body: { customerIds: [customer.id] } });
    expect(patched.status).toBe(200);
    expect(patched.body.customerIds).toEqual([customer.id]);
    expect((await api('GET', `/api/v1/boards/${board.id}`, { token: customerUser.token, org: org.slug })).status).toBe(200);

    const cleared = await org.call('PATCH', `/api/v1/boards/${board.id}`, { body: { customerIds: [] } });
    expect(cleared.body.customerIds).toEqual([]);
    expect((await api('GET', `/api/v1/boards/${board.id}`, { token: customerUser.token, org: org.slug })).status).toBe(404);
  });

  it('refuses an unknown customer with 400 naming it and changes nothing', async () => {
    const org = await signupOrg();
    const customer = await newCustomer(org);
    const board = await createBoard(org, { customerIds: [customer.id] });
    const response = await org.call('PATCH', `/api/v1/boards/${board.id}`, { body: { name: 'Renamed', customerIds: [customer.id, 'cst_unknown'] } });
    expect(response.status).toBe(400);
    expect(issuePaths(response)).toEqual(['customerIds.1']);
    const after = await org.call('GET', `/api/v1/boards/${board.id}`);
    expect(after.body).toMatchObject({ name: board.name, customerIds: [customer.id] });
  });
});
