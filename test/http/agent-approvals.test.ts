import { beforeAll, describe, expect, it } from 'vitest';
import { api, createMember, expectValidationError, setPlan, signupOrg, type ApiResponse, type TestOrg, useInProcess } from '../support/api.js';
import { boardSetup, type BoardSetup } from '../support/tickets.js';
import { dispatchedEventsOf } from '../support/events.js';
import { createTicket } from '../support/factories.js';

// In process, through the same route table and handlers (test/support/api.ts).
useInProcess();

interface Setup extends BoardSetup {
  agent: { id: string; token: string };
  owner: { id: string; token: string };
}

const ticketsOf = (boardId: string) => `/api/v1/boards/${boardId}/tickets`;
const onTicket = (s: Setup, ticketId: string, rest = '') => `${ticketsOf(s.boardId)}/${ticketId}${rest}`;
const suggestionsPath = (s: Setup, ticketId: string) => onTicket(s, ticketId, '/suggestions');

/** A PRO organization with a board (Explainable Status when asked), an agent owned by a member, on the board. */
async function setup(options: { explainable: boolean; gated?: string[] }): Promise<Setup> {
  const s = await boardSetup('Approvals', 'APR');
  await setPlan(s.org.slug, 'PRO');
  if (options.explainable) {
    const patched = await s.org.call('PATCH', `/api/v1/boards/${s.boardId}`, { body: { features: { explainableStatus: true } } });
    expect(patched.status).toBe(200);
  }
  if (options.gated) await setGated(s.org, options.gated);
  const owner = await createMember(s.org, { name: 'Owner Olga' });
  const agent = await s.org.call('POST', `/api/v1/organizations/${s.org.orgId}/agents`, { body: { name: 'Builder Bot', ownerId: owner.id } });
  expect(agent.status).toBe(201);
  expect((await s.org.call('POST', `/api/v1/boards/${s.boardId}/members`, { body: { userId: agent.body.id } })).status).toBeLessThan(300);
  const minted = await s.org.call('POST', `/api/v1/organizations/${s.org.orgId}/agents/${agent.body.id}/tokens`, { body: { name: 't' } });
  expect(minted.status).toBe(201);
  // The token's first use records lastSeenAt (one more write): done here, as the agent's later requests find it.
  expect((await api('GET', ticketsOf(s.boardId), { token: minted.body.token, org: s.org.slug })).status).toBe(200);
  return { ...s, agent: { id: agent.body.id, token: minted.body.token }, owner };
}

async function setGated(org: TestOrg, keys: string[]) {
  const response = await org.call('PATCH', `/api/v1/organizations/${org.orgId}/agents/policies`, { body: { statusTransitionsRequireApproval: keys } });
  expect(response.status).toBe(200);
}

const asAgent = (s: Setup, method: string, path: string, body?: unknown) => api(method, path, { token: s.agent.token, org: s.org.slug, body });

async function statusOf(s: Setup, ticketId: string, boardId = s.boardId): Promise<string> {
  const response = await s.org.call('GET', `${ticketsOf(boardId)}/${ticketId}`);
  expect(response.status).toBe(200);
  return response.body.data.status.id;
}

async function suggestionsOf(s: Setup, ticketId: string, query = '') {
  const response = await s.org.call('GET', `${suggestionsPath(s, ticketId)}${query}`);
  expect(response.status).toBe(200);
  return response.body;
}

function expectApprovalRequired(response: ApiResponse, statusId: string, statusKey: string, suggestion: 'recorded' | 'none') {
  expect(response.status).toBe(403);
  expect(response.body.error.code).toBe('AGENT_APPROVAL_REQUIRED');
  expect(response.body.error.details).toMatchObject({ statusId, statusKey });
  if (suggestion === 'recorded') expect(response.body.error.details.suggestionId).toMatch(/^sug_/);
  else expect(response.body.error.details.suggestionId).toBeUndefined();
}

describe('the approval gate on every route that moves a ticket (Explainable Status on)', () => {
  let s: Setup;
  beforeAll(async () => {
    s = await setup({ explainable: true });
  });

  it('refuses PATCH …/status into DONE, records a pending suggestion with the reason, and leaves the ticket unchanged', async () => {
    const ticket = await createTicket(s.org, s.boardId, { statusId: s.statuses.IN_PROGRESS.id });
    const response = await asAgent(s, 'PATCH', onTicket(s, ticket.id, '/status'), { statusId: s.statuses.DONE.id, reason: 'Tests pass' });
    expectApprovalRequired(response, s.statuses.DONE.id, 'DONE', 'recorded');
    expect(await statusOf(s, ticket.id)).toBe(s.statuses.IN_PROGRESS.id);
    const list = await suggestionsOf(s, ticket.id);
    expect(list).toEqual({
      data: [
        {
          id: response.body.error.details.suggestionId,
          ticketId: ticket.id,
          boardId: s.boardId,
          fromStatus: { id: s.statuses.IN_PROGRESS.id, name: 'In Progress', key: 'IN_PROGRESS' },
          toStatus: { id: s.statuses.DONE.id, name: 'Done', key: 'DONE' },
          reason: 'Tests pass',
          suggestedBy: { id: s.agent.id, name: 'Builder Bot' },
          state: 'PENDING',
          decidedBy: null,
          decidedAt: null,
          decisionReason: null,
          createdAt: expect.any(String),
          updatedAt: expect.any(String),
        },
      ],
      total: 1,
      page: 1,
      pageSize: 50,
      totalPages: 1,
    });
    const timeline = await s.org.call('GET', onTicket(s, ticket.id, '/timeline'));
    expect(timeline.body.data.map((entry: any) => entry.kind)).toEqual(['CREATED']);
  });

  it('refuses PATCH ticket with statusId, PATCH …/inline and PATCH …/reorder with statusId', async () => {
    const done = s.statuses.DONE.id;
    for (const [method, path, body] of [
      ['PATCH', (id: string) => onTicket(s, id), { statusId: done, statusChangeReason: 'Finished' }],
      ['PATCH', (id: string) => onTicket(s, id, '/inline'), { statusId: done }],
      ['PATCH', () => `${ticketsOf(s.boardId)}/reorder`, null],
    ] as const) {
      const ticket = await createTicket(s.org, s.boardId, { statusId: s.statuses.IN_REVIEW.id });
      const response = await asAgent(s, method, path(ticket.id), body ?? { ticketId: ticket.id, position: 5, statusId: done });
      expectApprovalRequired(response, done, 'DONE', 'recorded');
      expect(await statusOf(s, ticket.id)).toBe(s.statuses.IN_REVIEW.id);
      expect((await suggestionsOf(s, ticket.id)).data).toMatchObject([{ state: 'PENDING', toStatus: { key: 'DONE' }, fromStatus: { key: 'IN_REVIEW' } }]);
    }
  });

  it('refuses POST …/transition after its own checks, storing the reason on the suggestion', async () => {
    const ticket = await createTicket(s.org, s.boardId, { statusId: s.statuses.IN_PROGRESS.id });
    // The board's own checks come first: Explainable Status needs a reason (400, nothing recorded).
    expectValidationError(await asAgent(s, 'POST', onTicket(s, ticket.id, '/transition'), { toStatusId: s.statuses.DONE.id }), 'reason');
    expect((await suggestionsOf(s, ticket.id)).total).toBe(0);

    const response = await asAgent(s, 'POST', onTicket(s, ticket.id, '/transition'), { toStatusId: s.statuses.DONE.id, reason: 'Deployed' });
    expectApprovalRequired(response, s.statuses.DONE.id, 'DONE', 'recorded');
    expect(await statusOf(s, ticket.id)).toBe(s.statuses.IN_PROGRESS.id);
    expect((await suggestionsOf(s, ticket.id)).data).toMatchObject([{ reason: 'Deployed', state: 'PENDING' }]);
  });

  it('refuses a subticket status change into a gated status', async () => {
    const parent = await createTicket(s.org, s.boardId);
    const child = (await s.org.call('POST', onTicket(s, parent.id, '/subtickets'), { body: { title: 'Child' } })).body.data;
    const response = await asAgent(s, 'PATCH', onTicket(s, parent.id, `/subtickets/${child.id}/status`), { statusId: s.statuses.DONE.id });
    expectApprovalRequired(response, s.statuses.DONE.id, 'DONE', 'recorded');
    expect(await statusOf(s, child.id)).toBe(s.statuses.BACKLOG.id);
    expect((await suggestionsOf(s, child.id)).data).toMatchObject([{ state: 'PENDING', reason: null }]);
  });

  it('refuses POST …/approve when the first ACTIVE status is gated', async () => {
    const org = await setup({ explainable: true, gated: ['IN_PROGRESS', 'DONE'] });
    const ticket = await createTicket(org.org, org.boardId);
    const response = await asAgent(org, 'POST', onTicket(org, ticket.id, '/approve'));
    expectApprovalRequired(response, org.statuses.IN_PROGRESS.id, 'IN_PROGRESS', 'recorded');
    expect(await statusOf(org, ticket.id)).toBe(org.statuses.BACKLOG.id);
    expect((await suggestionsOf(org, ticket.id)).data).toMatchObject([{ toStatus: { key: 'IN_PROGRESS' }, state: 'PENDING' }]);
  });

  it('refuses POST …/move when the ticket would land in a gated status, recording nothing and taking no number', async () => {
    const org = await setup({ explainable: true, gated: ['IN_REVIEW', 'DONE'] });
    const target = await org.org.call('POST', '/api/v1/boards', { body: { name: 'Target', prefix: 'TGT' } });
    // The target shows only In Review and Done: an In Progress ticket would land in In Review.
    expect((await org.org.call('PUT', `/api/v1/boards/${target.body.id}/statuses`, { body: { statusIds: [org.statuses.IN_REVIEW.id, org.statuses.DONE.id] } })).status).toBe(200);
    await org.org.call('PATCH', `/api/v1/boards/${target.body.id}`, { body: { features: { explainableStatus: true } } });
    await org.org.call('POST', `/api/v1/boards/${target.body.id}/members`, { body: { userId: org.agent.id } });
    const ticket = await createTicket(org.org, org.boardId, { statusId: org.statuses.IN_PROGRESS.id });

    const response = await asAgent(org, 'POST', onTicket(org, ticket.id, '/move'), { targetBoardId: target.body.id });
    expectApprovalRequired(response, org.statuses.IN_REVIEW.id, 'IN_REVIEW', 'none');
    expect(await statusOf(org, ticket.id)).toBe(org.statuses.IN_PROGRESS.id);
    expect((await suggestionsOf(org, ticket.id)).total).toBe(0);
    const first = await createTicket(org.org, target.body.id, { title: 'Gated work', statusId: org.statuses.IN_REVIEW.id });
    expect(first.displayId).toBe('TGT-1');

    // Once In Review is no longer gated, the agent's move goes through and takes the next number.
    await setGated(org.org, ['DONE']);
    const moved = await asAgent(org, 'POST', onTicket(org, ticket.id, '/move'), { targetBoardId: target.body.id });
    expect(moved.status).toBe(200);
    expect(moved.body.data.displayId).toBe('TGT-2');
    expect(await statusOf(org, ticket.id, target.body.id)).toBe(org.statuses.IN_REVIEW.id);
  });

  it('records one pending suggestion per target status (a repeated move returns the same id)', async () => {
    const ticket = await createTicket(s.org, s.boardId, { statusId: s.statuses.IN_PROGRESS.id });
    const first = await asAgent(s, 'PATCH', onTicket(s, ticket.id, '/status'), { statusId: s.statuses.DONE.id, reason: 'First' });
    const again = await asAgent(s, 'PATCH', onTicket(s, ticket.id, '/status'), { statusId: s.statuses.DONE.id, reason: 'Second' });
    expectApprovalRequired(again, s.statuses.DONE.id, 'DONE', 'recorded');
    expect(again.body.error.details.suggestionId).toBe(first.body.error.details.suggestionId);
    const list = await suggestionsOf(s, ticket.id);
    expect(list.total).toBe(1);
    expect(list.data[0].reason).toBe('First');
  });

  it('lets an agent move into ungated statuses and never gates people', async () => {
    const ticket = await createTicket(s.org, s.boardId);
    const moved = await asAgent(s, 'PATCH', onTicket(s, ticket.id, '/status'), { statusId: s.statuses.IN_REVIEW.id, reason: 'Ready' });
    expect(moved.status).toBe(200);
    expect(moved.body.data.status.id).toBe(s.statuses.IN_REVIEW.id);
    const human = await s.org.call('PATCH', onTicket(s, ticket.id, '/status'), { body: { statusId: s.statuses.DONE.id, reason: 'Checked' } });
    expect(human.status).toBe(200);
    expect(human.body.data.status.id).toBe(s.statuses.DONE.id);
    expect((await suggestionsOf(s, ticket.id)).total).toBe(0);
  });

  it('records nothing when the move is invalid anyway (a status not enabled on the board is 400)', async () => {
    const org = await setup({ explainable: true, gated: ['IN_REVIEW', 'DONE'] });
    const enabled = Object.values(org.statuses).filter((status: any) => status.key !== 'IN_REVIEW').map((status: any) => status.id);
    expect((await org.org.call('PUT', `/api/v1/boards/${org.boardId}/statuses`, { body: { statusIds: enabled } })).status).toBe(200);
    const ticket = await createTicket(org.org, org.boardId, { statusId: org.statuses.IN_PROGRESS.id });
    const response = await asAgent(org, 'PATCH', onTicket(org, ticket.id, '/status'), { statusId: org.statuses.IN_REVIEW.id });
    expectValidationError(response, 'statusId');
    expect((await suggestionsOf(org, ticket.id)).total).toBe(0);
  });

  it('notifies the agent’s owner of the pending suggestion', async () => {
    const ticket = await createTicket(s.org, s.boardId, { statusId: s.statuses.IN_PROGRESS.id, title: 'Notify me' });
    const response = await asAgent(s, 'PATCH', onTicket(s, ticket.id, '/status'), { statusId: s.statuses.DONE.id });
    const notifications = await api('GET', '/api/v1/notifications', { token: s.owner.token, org: s.org.slug });
    expect(notifications.status).toBe(200);
    expect(notifications.body.data.find((notification: any) => notification.data.ticketId === ticket.id)).toMatchObject({
      type: 'AGENT_SUGGESTION_PENDING',
      data: { ticketId: ticket.id, boardId: s.boardId, displayId: ticket.displayId, title: 'Notify me', suggestionId: response.body.error.details.suggestionId, toStatusId: s.statuses.DONE.id },
      readAt: null,
    });
  });
});

describe('the approval gate without Explainable Status', () => {
  let s: Setup;
  beforeAll(async () => {
    s = await setup({ explainable: false });
  });

  it('refuses the move outright and records no suggestion on any route', async () => {
    const done = s.statuses.DONE.id;
    const ticket = await createTicket(s.org, s.boardId, { statusId: s.statuses.IN_PROGRESS.id });
    const status = await asAgent(s, 'PATCH', onTicket(s, ticket.id, '/status'), { statusId: done, reason: 'Done' });
    expectApprovalRequired(status, done, 'DONE', 'none');
    expectApprovalRequired(await asAgent(s, 'PATCH', onTicket(s, ticket.id), { statusId: done }), done, 'DONE', 'none');
    expectApprovalRequired(await asAgent(s, 'PATCH', onTicket(s, ticket.id, '/inline'), { statusId: done }), done, 'DONE', 'none');
    expectApprovalRequired(await asAgent(s, 'POST', onTicket(s, ticket.id, '/transition'), { toStatusId: done }), done, 'DONE', 'none');
    expectApprovalRequired(await asAgent(s, 'PATCH', `${ticketsOf(s.boardId)}/reorder`, { ticketId: ticket.id, position: 1, statusId: done }), done, 'DONE', 'none');
    expect(await statusOf(s, ticket.id)).toBe(s.statuses.IN_PROGRESS.id);
    expect((await suggestionsOf(s, ticket.id)).total).toBe(0);
    const notifications = await api('GET', '/api/v1/notifications', { token: s.owner.token, org: s.org.slug });
    expect(notifications.body.total).toBe(0);
  });

  it('refuses an agent creating a ticket straight into a gated status, and lets people do it', async () => {
    const done = s.statuses.DONE.id;
    const before = (await s.org.call('GET', `${ticketsOf(s.boardId)}?includeArchived=true&includePlanning=true`)).body.total;
    expectApprovalRequired(await asAgent(s, 'POST', ticketsOf(s.boardId), { title: 'Born done', statusId: done }), done, 'DONE', 'none');
    expect((await s.org.call('GET', `${ticketsOf(s.boardId)}?includeArchived=true&includePlanning=true`)).body.total).toBe(before);
    expect((await asAgent(s, 'POST', ticketsOf(s.boardId), { title: 'Open work', statusId: s.statuses.IN_PROGRESS.id })).status).toBe(201);
    expect((await s.org.call('POST', ticketsOf(s.boardId), { body: { title: 'Done by a person', statusId: done } })).status).toBe(201);
  });

  it('follows the organization policy: with no gated status an agent may finish a ticket', async () => {
    const org = await setup({ explainable: false, gated: [] });
    const ticket = await createTicket(org.org, org.boardId, { statusId: org.statuses.IN_PROGRESS.id });
    const response = await asAgent(org, 'PATCH', onTicket(org, ticket.id, '/status'), { statusId: org.statuses.DONE.id });
    expect(response.status).toBe(200);
    expect(response.body.data.status.id).toBe(org.statuses.DONE.id);
  });
});

describe('listing suggestions (GET …/suggestions)', () => {
  let s: Setup;
  beforeAll(async () => {
    s = await setup({ explainable: true, gated: ['IN_REVIEW', 'BLOCKED', 'DONE'] });
  });

  it('lists newest first, filters by state, paginates', async () => {
    const ticket = await createTicket(s.org, s.boardId, { statusId: s.statuses.IN_PROGRESS.id });
    const ids: string[] = [];
    for (const key of ['IN_REVIEW', 'BLOCKED', 'DONE']) {
      ids.push((await asAgent(s, 'PATCH', onTicket(s, ticket.id, '/status'), { statusId: s.statuses[key].id })).body.error.details.suggestionId);
    }
    expect((await s.org.call('POST', `${suggestionsPath(s, ticket.id)}/${ids[1]}/reject`)).status).toBe(200);

    const all = await s.org.call('GET', suggestionsPath(s, ticket.id));
    expect(all.status).toBe(200);
    expect(all.body.data.map((suggestion: any) => suggestion.id)).toEqual([...ids].reverse());
    expect((await suggestionsOf(s, ticket.id, '?state=PENDING')).data.map((suggestion: any) => suggestion.id)).toEqual([ids[2], ids[0]]);
    expect((await suggestionsOf(s, ticket.id, '?state=REJECTED')).data.map((suggestion: any) => suggestion.id)).toEqual([ids[1]]);
    expect((await suggestionsOf(s, ticket.id, '?state=ACCEPTED')).data).toEqual([]);
    expect(await suggestionsOf(s, ticket.id, '?page=2&limit=2')).toMatchObject({ data: [{ id: ids[0] }], total: 3, page: 2, pageSize: 2, totalPages: 2 });
    // Readable by anyone who sees the board, the agent included.
    expect((await asAgent(s, 'GET', suggestionsPath(s, ticket.id))).body.total).toBe(3);
  });

  it('is internal: a customer user of the board gets 403', async () => {
    const customer = await s.org.call('POST', '/api/v1/customers', { body: { name: 'Client' } });
    expect((await s.org.call('PATCH', `/api/v1/boards/${s.boardId}`, { body: { customerIds: [customer.body.id] } })).status).toBe(200);
    const customerUser = await createMember(s.org, { role: 'CUSTOMER', customerId: customer.body.id });
    const ticket = await createTicket(s.org, s.boardId);
    expect((await api('GET', `${ticketsOf(s.boardId)}/${ticket.id}`, { token: customerUser.token, org: s.org.slug })).status).toBe(200);
    const response = await api('GET', suggestionsPath(s, ticket.id), { token: customerUser.token, org: s.org.slug });
    expect(response.status).toBe(403);
    expect(response.body.error.code).toBe('FORBIDDEN');
  });

  it('validates the query', async () => {
    const ticket = await createTicket(s.org, s.boardId);
    expectValidationError(await s.org.call('GET', `${suggestionsPath(s, ticket.id)}?state=DONE`), 'state');
    expectValidationError(await s.org.call('GET', `${suggestionsPath(s, ticket.id)}?page=0`), 'page');
    expect((await s.org.call('GET', `${suggestionsPath(s, ticket.id)}?other=1`)).status).toBe(400);
  });

  it('is 404 for an unknown ticket or board, another board’s ticket, and another organization', async () => {
    const ticket = await createTicket(s.org, s.boardId);
    expect((await s.org.call('GET', suggestionsPath(s, 'tkt_unknown'))).status).toBe(404);
    expect((await s.org.call('GET', `${ticketsOf('brd_unknown')}/${ticket.id}/suggestions`)).status).toBe(404);
    const other = await s.org.call('POST', '/api/v1/boards', { body: { name: 'Elsewhere', prefix: 'ELS' } });
    expect((await s.org.call('GET', `${ticketsOf(other.body.id)}/${ticket.id}/suggestions`)).status).toBe(404);
    const stranger = await signupOrg();
    expect((await stranger.call('GET', suggestionsPath(s, ticket.id))).status).toBe(404);
  });
});

describe('the organization’s waiting suggestions (GET /api/v1/suggestions)', () => {
  it('lists only PENDING ones, newest first, with their tickets, on boards the caller sees; refuses customer users', async () => {
    const s = await setup({ explainable: true, gated: ['IN_REVIEW', 'DONE'] });
    const first = await createTicket(s.org, s.boardId, { title: 'First', statusId: s.statuses.IN_PROGRESS.id });
    const second = await createTicket(s.org, s.boardId, { title: 'Second', statusId: s.statuses.IN_PROGRESS.id });
    const suggest = async (ticketId: string, key: string) => (await asAgent(s, 'PATCH', onTicket(s, ticketId, '/status'), { statusId: s.statuses[key].id })).body.error.details.suggestionId as string;
    const a = await suggest(first.id, 'IN_REVIEW');
    const b = await suggest(second.id, 'DONE');
    const c = await suggest(first.id, 'DONE');
    expect((await s.org.call('POST', `${suggestionsPath(s, first.id)}/${a}/accept`)).status).toBe(200);
    expect((await s.org.call('POST', `${suggestionsPath(s, second.id)}/${b}/reject`, { body: { reason: 'Not yet' } })).status).toBe(200);
    const listed = await s.org.call('GET', '/api/v1/suggestions');
    expect(listed.status).toBe(200);
    expect(listed.body).toMatchObject({ total: 1, data: [{ id: c, state: 'PENDING', toStatus: { key: 'DONE' }, suggestedBy: { name: 'Builder Bot' }, ticket: { id: first.id, displayId: first.displayId, title: 'First', boardId: s.boardId } }] });

    // On a board the caller does not see: left out.
    const hidden = await s.org.call('POST', '/api/v1/boards', { body: { name: 'Private', prefix: 'PRV' } });
    expect((await s.org.call('PATCH', `/api/v1/boards/${hidden.body.id}`, { body: { features: { explainableStatus: true } } })).status).toBe(200);
    expect((await s.org.call('POST', `/api/v1/boards/${hidden.body.id}/members`, { body: { userId: s.agent.id } })).status).toBeLessThan(300);
    const secret = await createTicket(s.org, hidden.body.id, { statusId: s.statuses.IN_PROGRESS.id });
    expect((await asAgent(s, 'PATCH', `${ticketsOf(hidden.body.id)}/${secret.id}/status`, { statusId: s.statuses.DONE.id })).status).toBe(403);
    expect((await s.org.call('GET', '/api/v1/suggestions')).body.total).toBe(2);
    const member = await createMember(s.org, { name: 'Board Member' });
    expect((await s.org.call('POST', `/api/v1/boards/${s.boardId}/members`, { body: { userId: member.id } })).status).toBeLessThan(300);
    const seen = await api('GET', '/api/v1/suggestions', { token: member.token, org: s.org.slug });
    expect(seen.body.data.map((suggestion: any) => suggestion.id)).toEqual([c]);

    const customer = await s.org.call('POST', '/api/v1/customers', { body: { name: 'Client' } });
    const customerUser = await createMember(s.org, { role: 'CUSTOMER', customerId: customer.body.id });
    expect((await api('GET', '/api/v1/suggestions', { token: customerUser.token, org: s.org.slug })).status).toBe(403);
    // Another organization sees none of them.
    expect((await (await signupOrg()).call('GET', '/api/v1/suggestions')).body).toMatchObject({ data: [], total: 0 });
  });
});

describe('accepting and rejecting suggestions', () => {
  let s: Setup;
  beforeAll(async () => {
    s = await setup({ explainable: true });
  });

  async function pending(reason?: string) {
    const ticket = await createTicket(s.org, s.boardId, { statusId: s.statuses.IN_PROGRESS.id });
    const response = await asAgent(s, 'PATCH', onTicket(s, ticket.id, '/status'), { statusId: s.statuses.DONE.id, ...(reason ? { reason } : {}) });
    expect(response.status).toBe(403);
    return { ticket, suggestionId: response.body.error.details.suggestionId as string };
  }
  const decide = (ticketId: string, suggestionId: string, verb: 'accept' | 'reject', options: { body?: unknown; token?: string } = {}) =>
    api('POST', `${suggestionsPath(s, ticketId)}/${suggestionId}/${verb}`, { token: options.token ?? s.org.adminToken, org: s.org.slug, body: options.body });

  it('accepts: the ticket moves with the suggestion’s reason on its timeline and events, the suggestion is ACCEPTED', async () => {
    const { ticket, suggestionId } = await pending('All green');
    const response = await decide(ticket.id, suggestionId, 'accept');
    expect(response.status).toBe(200);
    expect(response.body.data).toMatchObject({
      id: suggestionId,
      state: 'ACCEPTED',
      reason: 'All green',
      decidedBy: { id: s.org.adminId, name: 'Ada Admin' },
      decidedAt: expect.any(String),
      decisionReason: null,
      toStatus: { key: 'DONE' },
    });
    const current = await s.org.call('GET', onTicket(s, ticket.id));
    expect(current.body.data).toMatchObject({ status: { id: s.statuses.DONE.id }, statusChangeReason: 'All green' });
    const timeline = await s.org.call('GET', onTicket(s, ticket.id, '/timeline'));
    expect(timeline.body.data.at(-1)).toMatchObject({
      kind: 'STATUS_CHANGED',
      actor: { id: s.org.adminId },
      details: { fromStatusId: s.statuses.IN_PROGRESS.id, toStatusId: s.statuses.DONE.id, reason: 'All green' },
    });
    const events = await dispatchedEventsOf(s.org.orgId, ticket.id, 3);
    expect(events.find((event) => event.type === 'ticket.status_changed')?.data).toMatchObject({
      oldStatusId: s.statuses.IN_PROGRESS.id,
      newStatusId: s.statuses.DONE.id,
      actorId: s.org.adminId,
    });
    expect((await suggestionsOf(s, ticket.id)).data).toMatchObject([{ id: suggestionId, state: 'ACCEPTED' }]);
  });

  it('accepts with the decision’s own reason, which also explains the status change', async () => {
    const { ticket, suggestionId } = await pending('Agent says so');
    const response = await decide(ticket.id, suggestionId, 'accept', { body: { reason: 'Reviewed by QA' } });
    expect(response.status).toBe(200);
    expect(response.body.data).toMatchObject({ decisionReason: 'Reviewed by QA', reason: 'Agent says so' });
    expect((await s.org.call('GET', onTicket(s, ticket.id))).body.data.statusChangeReason).toBe('Reviewed by QA');
  });

  it('accepts without moving a ticket that is already in the suggested status', async () => {
    const { ticket, suggestionId } = await pending();
    expect((await s.org.call('PATCH', onTicket(s, ticket.id, '/status'), { body: { statusId: s.statuses.DONE.id } })).status).toBe(200);
    const before = (await s.org.call('GET', onTicket(s, ticket.id))).body.data;
    const response = await decide(ticket.id, suggestionId, 'accept');
    expect(response.status).toBe(200);
    expect(response.body.data.state).toBe('ACCEPTED');
    expect((await s.org.call('GET', onTicket(s, ticket.id))).body.data.updatedAt).toBe(before.updatedAt);
  });

  it('answers with the validation error and writes nothing when the target status is no longer on the board', async () => {
    const org = await setup({ explainable: true, gated: ['IN_REVIEW', 'DONE'] });
    const ticket = await createTicket(org.org, org.boardId, { statusId: org.statuses.IN_PROGRESS.id });
    const suggestionId = (await asAgent(org, 'PATCH', onTicket(org, ticket.id, '/status'), { statusId: org.statuses.IN_REVIEW.id })).body.error.details.suggestionId;
    const enabled = Object.values(org.statuses).filter((status: any) => status.key !== 'IN_REVIEW').map((status: any) => status.id);
    expect((await org.org.call('PUT', `/api/v1/boards/${org.boardId}/statuses`, { body: { statusIds: enabled } })).status).toBe(200);
    expectValidationError(await org.org.call('POST', `${suggestionsPath(org, ticket.id)}/${suggestionId}/accept`), 'statusId');
    expect(await statusOf(org, ticket.id)).toBe(org.statuses.IN_PROGRESS.id);
    expect((await suggestionsOf(org, ticket.id)).data).toMatchObject([{ state: 'PENDING' }]);
  });

  it('rejects: the suggestion is REJECTED with the reason, the ticket is untouched', async () => {
    const { ticket, suggestionId } = await pending();
    const response = await decide(ticket.id, suggestionId, 'reject', { body: { reason: 'Not yet' } });
    expect(response.status).toBe(200);
    expect(response.body.data).toMatchObject({ id: suggestionId, state: 'REJECTED', decisionReason: 'Not yet', decidedBy: { id: s.org.adminId } });
    expect(await statusOf(s, ticket.id)).toBe(s.statuses.IN_PROGRESS.id);
    // A new refused move records a new suggestion once the old one is decided.
    const again = await asAgent(s, 'PATCH', onTicket(s, ticket.id, '/status'), { statusId: s.statuses.DONE.id });
    expect(again.body.error.details.suggestionId).not.toBe(suggestionId);
    expect((await suggestionsOf(s, ticket.id)).total).toBe(2);
  });

  it('is 409 CONFLICT with the state when the suggestion was already decided', async () => {
    const first = await pending();
    expect((await decide(first.ticket.id, first.suggestionId, 'accept')).status).toBe(200);
    for (const verb of ['accept', 'reject'] as const) {
      const response = await decide(first.ticket.id, first.suggestionId, verb);
      expect(response.status).toBe(409);
      expect(response.body.error).toMatchObject({ code: 'CONFLICT', details: { state: 'ACCEPTED' } });
    }
    const second = await pending();
    expect((await decide(second.ticket.id, second.suggestionId, 'reject')).status).toBe(200);
    const again = await decide(second.ticket.id, second.suggestionId, 'accept');
    expect(again.status).toBe(409);
    expect(again.body.error.details).toEqual({ state: 'REJECTED' });
    expect(await statusOf(s, second.ticket.id)).toBe(s.statuses.IN_PROGRESS.id);
  });

  it('lets exactly one of five concurrent accepts win', async () => {
    const { ticket, suggestionId } = await pending();
    const responses = await Promise.all(Array.from({ length: 5 }, () => decide(ticket.id, suggestionId, 'accept')));
    expect(responses.filter((response) => response.status === 200)).toHaveLength(1);
    expect(responses.filter((response) => response.status === 409)).toHaveLength(4);
    const timeline = await s.org.call('GET', onTicket(s, ticket.id, '/timeline'));
    expect(timeline.body.data.filter((entry: any) => entry.kind === 'STATUS_CHANGED')).toHaveLength(1);
  });

  it('refuses agents and members without tickets:edit (403), and validates the body', async () => {
    const { ticket, suggestionId } = await pending();
    for (const verb of ['accept', 'reject'] as const) {
      const byAgent = await decide(ticket.id, suggestionId, verb, { token: s.agent.token });
      expect(byAgent.status).toBe(403);
      expect(byAgent.body.error.code).toBe('FORBIDDEN');
    }
    const group = await s.org.call('POST', '/api/v1/permission-groups', { body: { name: 'Readers', color: '#123456', permissions: ['tickets:create'] } });
    const reader = await createMember(s.org, { permissionGroupIds: [group.body.id] });
    await s.org.call('POST', `/api/v1/boards/${s.boardId}/members`, { body: { userId: reader.id } });
    expect((await api('GET', suggestionsPath(s, ticket.id), { token: reader.token, org: s.org.slug })).status).toBe(200);
    for (const verb of ['accept', 'reject'] as const) {
      const response = await decide(ticket.id, suggestionId, verb, { token: reader.token });
      expect(response.status).toBe(403);
      expect(response.body.error.code).toBe('FORBIDDEN');
    }
    expectValidationError(await decide(ticket.id, suggestionId, 'accept', { body: { reason: 'x'.repeat(501) } }), 'reason');
    expect((await decide(ticket.id, suggestionId, 'reject', { body: { other: 1 } })).status).toBe(400);
    expect((await suggestionsOf(s, ticket.id)).data).toMatchObject([{ state: 'PENDING' }]);
  });

  it('is 404 for an unknown suggestion, another ticket’s suggestion and another organization', async () => {
    const a = await pending();
    const b = await pending();
    for (const verb of ['accept', 'reject'] as const) {
      expect((await decide(a.ticket.id, 'sug_unknown', verb)).status).toBe(404);
      expect((await decide(a.ticket.id, b.suggestionId, verb)).status).toBe(404);
      expect((await decide('tkt_unknown', a.suggestionId, verb)).status).toBe(404);
    }
    const stranger = await signupOrg();
    expect((await stranger.call('POST', `${suggestionsPath(s, a.ticket.id)}/${a.suggestionId}/accept`)).status).toBe(404);
    expect((await stranger.call('POST', `${suggestionsPath(s, a.ticket.id)}/${a.suggestionId}/reject`)).status).toBe(404);
    expect((await suggestionsOf(s, a.ticket.id)).data).toMatchObject([{ state: 'PENDING' }]);
  });
});
