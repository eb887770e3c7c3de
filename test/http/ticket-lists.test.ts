import { beforeAll, describe, expect, it } from 'vitest';
import { api, createMember, createToken, expectValidationError, setPlan, signupOrg, type ApiResponse, type TestOrg, useInProcess } from '../support/api.js';
import { db } from '../../lib/db/service.js';
import { createTicket, createLabel } from '../support/factories.js';

// In process, through the same route table and handlers (test/support/api.ts).
useInProcess();

/*
 * The ticket lists: GET /api/v1/boards/{boardId}/tickets and GET /api/v1/issues (the API reference).
 * Every filter is exercised on both endpoints against one fixture of tickets.
 */

type Statuses = Record<string, { id: string; key: string; category: string }>;

async function post(org: TestOrg, path: string, body: unknown, token?: string): Promise<any> {
  const response = await org.call('POST', path, { body, ...(token ? { token } : {}) });
  if (response.status !== 201) throw new Error(`POST ${path}: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body;
}

async function statusesOf(org: TestOrg): Promise<Statuses> {
  const statuses = (await org.call('GET', '/api/v1/statuses')).body.data;
  return Object.fromEntries(statuses.map((status: any) => [status.key, status]));
}

const titlesOf = (response: ApiResponse): string[] => response.body.data.map((ticket: any) => ticket.title).sort();

/**
 * The filter fixture: one organization with one board holding tickets that differ in every
 * filtered field. With a single board, both endpoints must return the same tickets.
 */
interface FilterWorld {
  org: TestOrg;
  boardId: string;
  statuses: Statuses;
  member: { id: string; token: string };
  customers: { c1: string; c2: string };
  types: { bug: string; chore: string };
  labels: { l1: string; l2: string; unused: string };
  ids: Record<string, string>;
}

async function buildFilterWorld(): Promise<FilterWorld> {
  const org = await signupOrg();
  const statuses = await statusesOf(org);
  const member = await createMember(org, { name: 'Mira Member' });
  const c1 = (await post(org, '/api/v1/customers', { name: 'Customer One' })).id;
  const c2 = (await post(org, '/api/v1/customers', { name: 'Customer Two' })).id;
  const board = await post(org, '/api/v1/boards', { name: 'Filters', prefix: 'FLT', customerIds: [c1, c2] });
  await org.call('POST', `/api/v1/boards/${board.id}/members`, { body: { userId: member.id } });
  const bug = (await post(org, '/api/v1/ticket-types', { name: 'Bug', color: '#aa0000' })).id;
  const chore = (await post(org, '/api/v1/ticket-types', { name: 'Chore', color: '#00aa00' })).id;
  const l1 = (await createLabel(org, { name: 'frontend' })).id;
  const l2 = (await createLabel(org, { name: 'backend' })).id;
  const unused = (await createLabel(org, { name: 'unused' })).id;
  const create = (body: Record<string, unknown>) => createTicket(org, board.id, body);
  const ids: Record<string, string> = {};
  ids.alpha = (await create({
    title: 'Alpha login bug', description: 'Crash on submit', statusId: statuses.IN_PROGRESS!.id, assigneeId: member.id, customerId: c1,
    typeId: bug, labelIds: [l1], dueDate: '2020-01-15', impactLevel: 'high', externalReference: 'JIRA-101',
  })).id;
  ids.beta = (await create({
    title: 'Beta report', description: 'Monthly numbers', statusId: statuses.IN_REVIEW!.id, assigneeId: org.adminId,
    labelIds: [l2], dueDate: '2099-06-01', impactLevel: 'low', externalReference: 'GH-202',
  })).id;
  ids.gamma = (await create({
    title: 'Gamma', description: 'Contains the word NEEDLE here', statusId: statuses.BLOCKED!.id, customerId: c2,
    typeId: chore, labelIds: [l1, l2], impactLevel: 'critical',
  })).id;
  ids.delta = (await create({ title: 'Delta planning', statusId: statuses.BACKLOG!.id, assigneeId: org.adminId })).id;
  ids.epsilon = (await create({ title: 'Epsilon todo', statusId: statuses.TODO!.id, dueDate: '2020-02-01' })).id;
  ids.zeta = (await create({ title: 'Zeta done', statusId: statuses.DONE!.id, assigneeId: org.adminId, dueDate: '2020-03-01' })).id;
  ids.eta = (await create({ title: 'Eta archived', statusId: statuses.IN_PROGRESS!.id, isArchived: true, dueDate: '2099-01-01' })).id;
  ids.theta = (await create({ title: 'Theta deleted', statusId: statuses.IN_PROGRESS!.id })).id;
  expect((await org.call('DELETE', `/api/v1/boards/${board.id}/tickets/${ids.theta}`)).status).toBe(204);
  ids.iota = (await create({ title: 'Iota flagged', statusId: statuses.IN_PROGRESS!.id, dueDate: '2030-01-01', externalReference: 'jira-909' })).id;
  // The flag is raised by team removal (another part of the issue); set it in the table here.
  await db().entities.ticket.patch({ ticketId: ids.iota }).set({ needsReassignment: true }).add({ version: 1 }).go();
  return { org, boardId: board.id, statuses, member, customers: { c1, c2 }, types: { bug, chore }, labels: { l1, l2, unused }, ids };
}

interface Endpoint {
  name: string;
  path: (boardId: string) => string;
}

const endpoints: Endpoint[] = [
  { name: 'GET /boards/{boardId}/tickets', path: (boardId) => `/api/v1/boards/${boardId}/tickets` },
  { name: 'GET /issues', path: () => '/api/v1/issues' },
];

let world: FilterWorld;
beforeAll(async () => {
  world = await buildFilterWorld();
});

const DEFAULT_SET = ['Alpha login bug', 'Beta report', 'Gamma', 'Iota flagged'];

/** [description, query string (built from the fixture), expected titles]. */
const filterCases: [string, (w: FilterWorld) => string, string[]][] = [
  ['no filter: ACTIVE, not archived, not deleted', () => '', DEFAULT_SET],
  ['statusId (one)', (w) => `statusId=${w.statuses.IN_PROGRESS!.id}`, ['Alpha login bug', 'Iota flagged']],
  ['statusId (comma-separated)', (w) => `statusId=${w.statuses.IN_PROGRESS!.id},${w.statuses.BLOCKED!.id}`, ['Alpha login bug', 'Gamma', 'Iota flagged']],
  ['statusId naming a PLANNING status shows it without includePlanning', (w) => `statusId=${w.statuses.BACKLOG!.id}`, ['Delta planning']],
  ['statusId naming a FINAL status shows it without includeArchived', (w) => `statusId=${w.statuses.DONE!.id}`, ['Zeta done']],
  ['statusId still hides archived tickets unless includeArchived', (w) => `statusId=${w.statuses.IN_PROGRESS!.id}&includeArchived=true`, ['Alpha login bug', 'Eta archived', 'Iota flagged']],
  ['assigneeId', (w) => `assigneeId=${w.member.id}`, ['Alpha login bug']],
  ['assigneeId with includePlanning and includeArchived', (w) => `assigneeId=${w.org.adminId}&includePlanning=true&includeArchived=true`, ['Beta report', 'Delta planning', 'Zeta done']],
  ['assigneeId of nobody known', () => 'assigneeId=usr_nobody', []],
  ['customerId', (w) => `customerId=${w.customers.c1}`, ['Alpha login bug']],
  ['customerId (other)', (w) => `customerId=${w.customers.c2}`, ['Gamma']],
  ['needsReassignment=true', () => 'needsReassignment=true', ['Iota flagged']],
  ['needsReassignment=false', () => 'needsReassignment=false', ['Alpha login bug', 'Beta report', 'Gamma']],
  ['typeId (one)', (w) => `typeId=${w.types.bug}`, ['Alpha login bug']],
  ['typeId (comma-separated)', (w) => `typeId=${w.types.bug},${w.types.chore}`, ['Alpha login bug', 'Gamma']],
  ['labelId (one)', (w) => `labelId=${w.labels.l1}`, ['Alpha login bug', 'Gamma']],
  ['labelId (comma-separated: any of them)', (w) => `labelId=${w.labels.l1},${w.labels.l2}`, ['Alpha login bug', 'Beta report', 'Gamma']],
  ['labelId no ticket carries', (w) => `labelId=${w.labels.unused}`, []],
  ['search in the title', () => 'search=login', ['Alpha login bug']],
  ['search is case-insensitive', () => 'search=LOGIN', ['Alpha login bug']],
  ['search in the description', () => 'search=needle', ['Gamma']],
  ['search in the description (mixed case)', () => 'search=MONTHLY%20Numbers', ['Beta report']],
  ['search with no match', () => 'search=nothing-matches-this', []],
  ['includePlanning', () => 'includePlanning=true', [...DEFAULT_SET, 'Delta planning', 'Epsilon todo'].sort()],
  ['includePlanning=false is the default', () => 'includePlanning=false', DEFAULT_SET],
  ['includeArchived: archived flag and FINAL statuses', () => 'includeArchived=true', [...DEFAULT_SET, 'Eta archived', 'Zeta done'].sort()],
  ['includePlanning and includeArchived: everything but deleted', () => 'includePlanning=true&includeArchived=true',
    ['Alpha login bug', 'Beta report', 'Delta planning', 'Epsilon todo', 'Eta archived', 'Gamma', 'Iota flagged', 'Zeta done']],
  ['overdue', () => 'overdue=true', ['Alpha login bug']],
  ['overdue never includes FINAL tickets', () => 'overdue=true&includePlanning=true&includeArchived=true', ['Alpha login bug', 'Epsilon todo']],
  ['noDueDate', () => 'noDueDate=true', ['Gamma']],
  ['noDueDate with includePlanning', () => 'noDueDate=true&includePlanning=true', ['Delta planning', 'Gamma']],
  ['dueBefore (date)', () => 'dueBefore=2025-01-01', ['Alpha login bug']],
  ['dueBefore is exclusive (timestamp)', () => 'dueBefore=2030-01-01T00:00:00Z', ['Alpha login bug']],
  ['dueAfter', () => 'dueAfter=2025-01-01', ['Beta report', 'Iota flagged']],
  ['dueAfter and dueBefore together', () => 'dueAfter=2025-01-01&dueBefore=2050-01-01', ['Iota flagged']],
  ['impactLevel (one)', () => 'impactLevel=high', ['Alpha login bug']],
  ['impactLevel (comma-separated)', () => 'impactLevel=low,critical', ['Beta report', 'Gamma']],
  ['externalReference: partial, case-insensitive', () => 'externalReference=jira', ['Alpha login bug', 'Iota flagged']],
  ['externalReference: partial (digits)', () => 'externalReference=202', ['Beta report']],
  ['externalReference: prefix of one', () => 'externalReference=JIRA-1', ['Alpha login bug']],
  ['filters combine (AND)', (w) => `statusId=${w.statuses.IN_PROGRESS!.id}&labelId=${w.labels.l1}&search=alpha`, ['Alpha login bug']],
];

describe.each(endpoints)('$name: filters', (endpoint) => {
  it.each(filterCases)('%s', async (_description, query, expected) => {
    const q = query(world);
    const response = await world.org.call('GET', `${endpoint.path(world.boardId)}${q ? `?${q}` : ''}`);
    expect(response.status).toBe(200);
    expect(titlesOf(response)).toEqual([...expected].sort());
    expect(response.body.total).toBe(expected.length);
    expect(response.body.totalPages).toBe(Math.ceil(expected.length / 20));
  });

  it('never lists a deleted ticket, whatever the flags', async () => {
    const response = await world.org.call('GET', `${endpoint.path(world.boardId)}?includePlanning=true&includeArchived=true&search=theta`);
    expect(response.body.data).toEqual([]);
    expect(response.body.total).toBe(0);
  });

  it('returns list items of the API reference with boardId and a null claim', async () => {
    const response = await world.org.call('GET', `${endpoint.path(world.boardId)}?search=alpha`);
    expect(response.body.data[0]).toMatchObject({
      id: world.ids.alpha,
      displayId: expect.stringMatching(/^FLT-\d+$/),
      boardId: world.boardId,
      title: 'Alpha login bug',
      status: { id: world.statuses.IN_PROGRESS!.id, name: 'In Progress', category: 'ACTIVE' },
      priority: 'medium',
      assignee: { id: world.member.id, name: 'Mira Member' },
      type: { id: world.types.bug, name: 'Bug' },
      labels: [{ id: world.labels.l1, name: 'frontend', color: '#123456' }],
      dueDate: '2020-01-15T00:00:00.000Z',
      customerId: world.customers.c1,
      impactLevel: 'high',
      externalReference: 'JIRA-101',
      claim: null,
      createdAt: expect.any(String),
    });
  });

  it.each([
    ['includePlanning=maybe', 'includePlanning'],
    ['includeArchived=yes', 'includeArchived'],
    ['needsReassignment=1', 'needsReassignment'],
    ['overdue=TRUE', 'overdue'],
    ['noDueDate=nope', 'noDueDate'],
    ['dueBefore=notadate', 'dueBefore'],
    ['dueAfter=2024-13-45', 'dueAfter'],
    ['limit=abc', 'limit'],
    ['page=0', 'page'],
    ['page=abc', 'page'],
    [`search=${'x'.repeat(201)}`, 'search'],
    [`externalReference=${'x'.repeat(201)}`, 'externalReference'],
  ])('rejects %s with 400 naming the parameter', async (query, field) => {
    expectValidationError(await world.org.call('GET', `${endpoint.path(world.boardId)}?${query}`), field);
  });

  it('rejects an impactLevel outside the enum with 400 naming impactLevel', async () => {
    const response = await world.org.call('GET', `${endpoint.path(world.boardId)}?impactLevel=low,huge`);
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('VALIDATION_ERROR');
    expect(response.body.error.details.issues.some((issue: { path: string }) => issue.path.startsWith('impactLevel'))).toBe(true);
  });

  it('rejects an unknown query parameter', async () => {
    const response = await world.org.call('GET', `${endpoint.path(world.boardId)}?colour=red`);
    expect(response.status).toBe(400);
    expect(response.body.error.details.issues.map((issue: { path: string }) => issue.path)).toContain('colour');
  });
});

describe('GET /boards/{boardId}/tickets: access', () => {
  it('rejects the cross-board filters, which belong to GET /issues', async () => {
    for (const query of ['claimable=true', 'assignedToMe=true', 'claimedBy=me', `boardId=${world.boardId}`]) {
      expect((await world.org.call('GET', `/api/v1/boards/${world.boardId}/tickets?${query}`)).status).toBe(400);
    }
  });

  it('answers 404 for an unknown board and for a board of another organization', async () => {
    const other = await signupOrg();
    expect((await world.org.call('GET', '/api/v1/boards/brd_unknown/tickets')).status).toBe(404);
    expect((await other.call('GET', `/api/v1/boards/${world.boardId}/tickets`)).status).toBe(404);
  });
});

describe('GET /issues: claims filters (the API reference)', () => {
  it('claimable: every ticket that is not FINAL (no claims exist yet)', async () => {
    const response = await world.org.call('GET', '/api/v1/issues?claimable=true&includePlanning=true&includeArchived=true');
    expect(titlesOf(response)).toEqual(['Alpha login bug', 'Beta report', 'Delta planning', 'Epsilon todo', 'Eta archived', 'Gamma', 'Iota flagged']);
    expect(response.body.total).toBe(7);
  });

  it('claimable keeps the default exclusions', async () => {
    expect(titlesOf(await world.org.call('GET', '/api/v1/issues?claimable=true'))).toEqual(DEFAULT_SET);
  });

  it('assignedToMe alone lists the caller’s tickets', async () => {
    expect(titlesOf(await world.org.call('GET', '/api/v1/issues?assignedToMe=true&includePlanning=true&includeArchived=true'))).toEqual([
      'Beta report',
      'Delta planning',
      'Zeta done',
    ]);
    const member = await api('GET', '/api/v1/issues?assignedToMe=true', { token: world.member.token, org: world.org.slug });
    expect(titlesOf(member)).toEqual(['Alpha login bug']);
  });

  it('assignedToMe narrows claimable to the caller’s tickets', async () => {
    const response = await world.org.call('GET', '/api/v1/issues?claimable=true&assignedToMe=true&includePlanning=true&includeArchived=true');
    expect(titlesOf(response)).toEqual(['Beta report', 'Delta planning']);
  });

  it('assignedToMe=false does not narrow', async () => {
    expect(titlesOf(await world.org.call('GET', '/api/v1/issues?assignedToMe=false'))).toEqual(DEFAULT_SET);
  });

  it('assignedToMe combined with another assigneeId matches nothing', async () => {
    const response = await world.org.call('GET', `/api/v1/issues?assignedToMe=true&assigneeId=${world.member.id}`);
    expect(response.body).toMatchObject({ data: [], total: 0 });
  });

  it('claimedBy=me and claimedBy=<user id> match nothing while no ticket is claimed', async () => {
    for (const claimedBy of ['me', world.org.adminId, world.member.id]) {
      const response = await world.org.call('GET', `/api/v1/issues?claimedBy=${claimedBy}&includePlanning=true&includeArchived=true`);
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ data: [], total: 0, totalPages: 0, page: 1 });
    }
  });

  it.each([
    ['claimable=maybe', 'claimable'],
    ['assignedToMe=1', 'assignedToMe'],
    ['claimedBy=', 'claimedBy'],
    [`claimedBy=${'x'.repeat(65)}`, 'claimedBy'],
    ['boardId=,', 'boardId'],
  ])('rejects %s with 400 naming the parameter', async (query, field) => {
    const response = await world.org.call('GET', `/api/v1/issues?${query}`);
    expect(response.status).toBe(400);
    expect(response.body.error.details.issues.some((issue: { path: string }) => issue.path.startsWith(field))).toBe(true);
  });
});

describe('pagination', () => {
  let org: TestOrg;
  let boardId: string;
  const titles = Array.from({ length: 25 }, (_, index) => `T${String(index + 1).padStart(2, '0')}`);

  beforeAll(async () => {
    org = await signupOrg();
    const statuses = await statusesOf(org);
    boardId = (await post(org, '/api/v1/boards', { name: 'Pages', prefix: 'PG' })).id;
    // Sequential: position (creation time) orders them.
    for (const title of titles) await createTicket(org, boardId, { title, statusId: statuses.IN_PROGRESS!.id });
  });

  describe.each(endpoints)('$name', (endpoint) => {
    const get = (query: string) => org.call('GET', `${endpoint.path(boardId)}?${query}`);

    it('pages with exact total and totalPages, in position order', async () => {
      const first = await get('page=1&limit=10');
      expect(first.body).toMatchObject({ total: 25, page: 1, pageSize: 10, totalPages: 3 });
      expect(first.body.data.map((ticket: any) => ticket.title)).toEqual(titles.slice(0, 10));
      const second = await get('page=2&limit=10');
      expect(second.body.data.map((ticket: any) => ticket.title)).toEqual(titles.slice(10, 20));
      const last = await get('page=3&limit=10');
      expect(last.body).toMatchObject({ total: 25, page: 3, pageSize: 10, totalPages: 3 });
      expect(last.body.data.map((ticket: any) => ticket.title)).toEqual(titles.slice(20));
    });

    it('returns an empty page past the end with the exact total', async () => {
      expect((await get('page=4&limit=10')).body).toMatchObject({ data: [], total: 25, page: 4, pageSize: 10, totalPages: 3 });
    });

    it('defaults to page 1 and limit 20', async () => {
      const response = await org.call('GET', endpoint.path(boardId));
      expect(response.body).toMatchObject({ total: 25, page: 1, pageSize: 20, totalPages: 2 });
      expect(response.body.data).toHaveLength(20);
    });

    it('clamps limit to 1..100', async () => {
      expect((await get('limit=1000')).body).toMatchObject({ pageSize: 100, totalPages: 1, total: 25 });
      expect((await get('limit=0')).body).toMatchObject({ pageSize: 1, totalPages: 25, total: 25 });
    });

    it('computes total and totalPages after filtering', async () => {
      const response = await get('search=T1&limit=4');
      expect(response.body).toMatchObject({ total: 10, pageSize: 4, totalPages: 3 });
      expect(response.body.data.map((ticket: any) => ticket.title)).toEqual(['T10', 'T11', 'T12', 'T13']);
    });
  });
});

describe('sort order', () => {
  let org: TestOrg;
  let boards: { one: string; two: string };
  let statuses: Statuses;
  beforeAll(async () => {
    org = await signupOrg();
    statuses = await statusesOf(org);
    boards = {
      one: (await post(org, '/api/v1/boards', { name: 'One', prefix: 'ONE' })).id,
      two: (await post(org, '/api/v1/boards', { name: 'Two', prefix: 'TWO' })).id,
    };
    const make = (board: string, title: string, key: string) => createTicket(org, board, { title, statusId: statuses[key]!.id });
    await make(boards.one, 'review-1', 'IN_REVIEW');
    await make(boards.two, 'progress-1', 'IN_PROGRESS');
    await make(boards.one, 'blocked-1', 'BLOCKED');
    await make(boards.one, 'progress-2', 'IN_PROGRESS');
    await make(boards.two, 'review-2', 'IN_REVIEW');
    await make(boards.two, 'todo-1', 'TODO');
  });

  const order = (response: ApiResponse) => response.body.data.map((ticket: any) => ticket.title);

  it('orders a board by status (organization order), then position in the column', async () => {
    expect(order(await org.call('GET', `/api/v1/boards/${boards.one}/tickets`))).toEqual(['progress-2', 'review-1', 'blocked-1']);
    expect(order(await org.call('GET', `/api/v1/boards/${boards.two}/tickets?includePlanning=true`))).toEqual(['todo-1', 'progress-1', 'review-2']);
  });

  it('orders GET /issues the same way across boards, each item carrying its boardId', async () => {
    const response = await org.call('GET', '/api/v1/issues?includePlanning=true');
    expect(order(response)).toEqual(['todo-1', 'progress-1', 'progress-2', 'review-1', 'review-2', 'blocked-1']);
    expect(response.body.data.map((ticket: any) => ticket.boardId)).toEqual([boards.two, boards.two, boards.one, boards.one, boards.two, boards.one]);
  });

  it('follows a reordered statuses list', async () => {
    const ordered = (await org.call('GET', '/api/v1/statuses')).body.data.map((status: any) => status.id);
    const blocked = statuses.BLOCKED!.id;
    const reordered = [blocked, ...ordered.filter((id: string) => id !== blocked)];
    const reorder = await org.call('POST', '/api/v1/statuses/reorder', { body: { statusIds: reordered } });
    expect(reorder.status).toBe(200);
    expect(order(await org.call('GET', `/api/v1/boards/${boards.one}/tickets`))).toEqual(['blocked-1', 'progress-2', 'review-1']);
  });

  it('narrows GET /issues to the boards named by boardId (comma-separated)', async () => {
    const one = await org.call('GET', `/api/v1/issues?boardId=${boards.one}`);
    expect(one.body.data.every((ticket: any) => ticket.boardId === boards.one)).toBe(true);
    expect(one.body.total).toBe(3);
    const both = await org.call('GET', `/api/v1/issues?boardId=${boards.one},${boards.two}&includePlanning=true`);
    expect(both.body.total).toBe(6);
    const unknown = await org.call('GET', '/api/v1/issues?boardId=brd_unknown');
    expect(unknown.status).toBe(200);
    expect(unknown.body).toMatchObject({ data: [], total: 0 });
  });
});

describe('GET /issues: visibility', () => {
  let org: TestOrg;
  let boards: { team: string; other: string; customer: string };
  let member: { id: string; token: string };
  let customerUser: { id: string; token: string };
  let ids: Record<string, string>;

  beforeAll(async () => {
    org = await signupOrg();
    await setPlan(org.slug, 'PRO');
    const statuses = await statusesOf(org);
    member = await createMember(org, { name: 'Team Member' });
    const team = await post(org, '/api/v1/teams', { name: 'Team', memberIds: [member.id] });
    const customer = await post(org, '/api/v1/customers', { name: 'Acme' });
    customerUser = await createMember(org, { role: 'CUSTOMER', customerId: customer.id, name: 'Acme User' });
    boards = {
      team: (await post(org, '/api/v1/boards', { name: 'Team board', prefix: 'TEAM', teamIds: [team.id] })).id,
      other: (await post(org, '/api/v1/boards', { name: 'Other board', prefix: 'OTH' })).id,
      customer: (await post(org, '/api/v1/boards', { name: 'Customer board', prefix: 'CUS', customerIds: [customer.id] })).id,
    };
    const active = statuses.IN_PROGRESS!.id;
    ids = {
      team: (await createTicket(org, boards.team, { title: 'on team board', statusId: active, assigneeId: member.id })).id,
      other: (await createTicket(org, boards.other, { title: 'on other board', statusId: active })).id,
      customer: (await createTicket(org, boards.customer, { title: 'on customer board', statusId: active })).id,
    };
    // The member is assigned a ticket on the other board while a direct member, then removed.
    await org.call('POST', `/api/v1/boards/${boards.other}/members`, { body: { userId: member.id } });
    ids.formerly = (await createTicket(org, boards.other, { title: 'assigned then hidden', statusId: active, assigneeId: member.id })).id;
    expect((await org.call('DELETE', `/api/v1/boards/${boards.other}/members/${member.id}`)).status).toBeLessThan(300);
  });

  const as = (token: string, query = '') => api('GET', `/api/v1/issues${query}`, { token, org: org.slug });
  const idsOf = (response: ApiResponse) => response.body.data.map((ticket: any) => ticket.id).sort();

  it('an administrator sees the tickets of every board', async () => {
    const response = await org.call('GET', '/api/v1/issues');
    expect(idsOf(response)).toEqual(Object.values(ids).sort());
  });

  it('a team member sees only the tickets of their team’s board', async () => {
    const response = await as(member.token);
    expect(idsOf(response)).toEqual([ids.team]);
    expect(response.body.total).toBe(1);
  });

  it('assignedToMe and assigneeId never reach tickets of a board the caller can no longer see', async () => {
    expect(idsOf(await as(member.token, '?assignedToMe=true'))).toEqual([ids.team]);
    expect(idsOf(await as(member.token, `?assigneeId=${member.id}`))).toEqual([ids.team]);
    expect(idsOf(await org.call('GET', `/api/v1/issues?assigneeId=${member.id}`))).toEqual([ids.team, ids.formerly].sort());
  });

  it('boardId naming a board the caller cannot see is narrowed away, not revealed', async () => {
    const response = await as(member.token, `?boardId=${boards.other}`);
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ data: [], total: 0 });
    expect((await api('GET', `/api/v1/boards/${boards.other}/tickets`, { token: member.token, org: org.slug })).status).toBe(404);
  });

  it('a token with allowedBoardIds narrows to those boards', async () => {
    const { token } = await createToken(org, org.adminToken, { allowedBoardIds: [boards.other] });
    expect(idsOf(await as(token))).toEqual([ids.other, ids.formerly].sort());
    expect(idsOf(await as(token, `?boardId=${boards.team}`))).toEqual([]);
    expect((await api('GET', `/api/v1/boards/${boards.team}/tickets`, { token, org: org.slug })).status).toBe(404);
    expect((await api('GET', `/api/v1/boards/${boards.other}/tickets`, { token, org: org.slug })).body.total).toBe(2);
  });

  it('a customer user sees only the boards of their customer', async () => {
    expect(idsOf(await as(customerUser.token))).toEqual([ids.customer]);
    expect((await api('GET', `/api/v1/boards/${boards.team}/tickets`, { token: customerUser.token, org: org.slug })).status).toBe(404);
    const own = await api('GET', `/api/v1/boards/${boards.customer}/tickets`, { token: customerUser.token, org: org.slug });
    expect(own.body.data.map((ticket: any) => ticket.id)).toEqual([ids.customer]);
  });
});

describe('tenant isolation', () => {
  it('never lists another organization’s tickets, whatever the parameters', async () => {
    const other = await signupOrg();
    const otherStatuses = await statusesOf(other);
    const otherBoard = (await post(other, '/api/v1/boards', { name: 'Elsewhere', prefix: 'ELS' })).id;
    const foreign = await createTicket(other, otherBoard, { title: 'Alpha foreign', statusId: otherStatuses.IN_PROGRESS!.id, assigneeId: other.adminId });

    const mine = await world.org.call('GET', '/api/v1/issues?search=alpha&includePlanning=true&includeArchived=true');
    expect(mine.body.data.map((ticket: any) => ticket.id)).toEqual([world.ids.alpha]);
    expect((await world.org.call('GET', `/api/v1/issues?boardId=${otherBoard}`)).body).toMatchObject({ data: [], total: 0 });
    expect((await world.org.call('GET', `/api/v1/issues?assigneeId=${other.adminId}`)).body).toMatchObject({ data: [], total: 0 });
    expect((await world.org.call('GET', `/api/v1/issues?statusId=${otherStatuses.IN_PROGRESS!.id}`)).body).toMatchObject({ data: [], total: 0 });
    expect((await world.org.call('GET', `/api/v1/boards/${otherBoard}/tickets`)).status).toBe(404);

    const theirs = await other.call('GET', '/api/v1/issues?includePlanning=true&includeArchived=true');
    expect(theirs.body.data.map((ticket: any) => ticket.id)).toEqual([foreign.id]);
    expect((await other.call('GET', `/api/v1/issues?boardId=${world.boardId}`)).body).toMatchObject({ data: [], total: 0 });
    expect((await other.call('GET', `/api/v1/issues?assigneeId=${world.member.id}`)).body).toMatchObject({ data: [], total: 0 });
    expect((await other.call('GET', `/api/v1/boards/${world.boardId}/tickets`)).status).toBe(404);
    // A token of one organization presented to another is refused outright.
    expect((await api('GET', '/api/v1/issues', { token: world.org.adminToken, org: other.slug })).status).toBe(401);
  });
});
