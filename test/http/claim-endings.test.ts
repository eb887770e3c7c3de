import { beforeAll, describe, expect, it } from 'vitest';
import { api, createMember, setPlan, type ApiResponse, useInProcess } from '../support/api.js';
import { boardSetup, lapseClaim, type BoardSetup } from '../support/tickets.js';
import { dispatchedEventsOf } from '../support/events.js';
import { createAgent, createTicket, createBoard } from '../support/factories.js';
import { waitUntil } from '../support/wait.js';
import { db } from '../../lib/db/service.js';

// In process, through the same route table and handlers (test/support/api.ts).
useInProcess();

/*
 * A finished ticket never holds an agent's slot: entering a FINAL status (by any route) or
 * being deleted ends the ticket's claim in the same transaction, with ticket.claim_released,
 * a timeline note and the holder's slot freed. `claimedBy` lists every live claim.
 */

interface Agent {
  id: string;
  token: string;
  call: (method: string, path: string, body?: unknown) => Promise<ApiResponse>;
}

async function proBoard(name: string): Promise<BoardSetup> {
  const s = await boardSetup(name);
  await setPlan(s.org.slug, 'PRO');
  return s;
}

/** An agent (through the agent API) holding at most `maxConcurrentClaims` leases, member of the board. */
const boardAgent = (s: BoardSetup, maxConcurrentClaims = 1): Promise<Agent> =>
  createAgent(s.org, { agent: { name: 'Closer' }, settings: { maxConcurrentClaims }, boardIds: [s.boardId], token: { name: 'loop' } });

/** Claimable work: a ticket in IN_PROGRESS (overrides win). */
const newTicket = (s: BoardSetup, overrides: Record<string, unknown> = {}): Promise<{ id: string; displayId: string }> =>
  createTicket(s.org, s.boardId, { title: 'Work', statusId: s.statuses.IN_PROGRESS.id, ...overrides });

const ticketPath = (s: BoardSetup, ticketId: string) => `/api/v1/boards/${s.boardId}/tickets/${ticketId}`;

async function claim(s: BoardSetup, agent: Agent, ticketId: string) {
  return agent.call('POST', `${ticketPath(s, ticketId)}/claim`, { leaseSeconds: 600 });
}

/** Asserts the claim of `ticketId` ended as released for `reason`: event, timeline, claim block, slot. */
async function expectReleased(s: BoardSetup, agent: Agent, ticketId: string, reason: string, releasedById = s.org.adminId) {
  const events = await dispatchedEventsOf(s.org.orgId, ticketId, 3);
  const released = events.filter((event) => event.type === 'ticket.claim_released');
  expect(released).toHaveLength(1);
  expect(released[0]!.data).toMatchObject({ ticketId, boardId: s.boardId, releasedById, previousClaimedById: agent.id, reason });
  const timeline = (await s.org.call('GET', `${ticketPath(s, ticketId)}/timeline?limit=100`)).body.data as { kind: string; details: any }[];
  expect(timeline.filter((entry) => entry.kind === 'CLAIM_RELEASED').map((entry) => entry.details)).toEqual([{ previousClaimedById: agent.id, releasedById, reason }]);
  const held = await agent.call('GET', '/api/v1/issues?claimedBy=me');
  expect(held.body.data.map((ticket: { id: string }) => ticket.id)).not.toContain(ticketId);
  await expectSlotFree(s, agent);
}

/** The agent (limit 1) holds no slot: it claims other work at once (then hands it back). */
async function expectSlotFree(s: BoardSetup, agent: Agent) {
  const next = await newTicket(s);
  expect((await claim(s, agent, next.id)).status).toBe(201);
  expect((await agent.call('DELETE', `${ticketPath(s, next.id)}/claim`, {})).status).toBe(200);
}

describe('claims end with the ticket', () => {
  let s: BoardSetup;
  let agent: Agent;
  beforeAll(async () => {
    s = await proBoard('Endings');
    // No gated status: the agent may finish tickets itself in some cases below.
    expect((await s.org.call('PATCH', `/api/v1/organizations/${s.org.orgId}/agents/policies`, { body: { statusTransitionsRequireApproval: [] } })).status).toBe(200);
    agent = await boardAgent(s);
  });

  const intoDone: [string, (s: BoardSetup, ticketId: string, done: string) => [string, string, unknown]][] = [
    ['PATCH ticket with statusId', (s, id, done) => ['PATCH', ticketPath(s, id), { statusId: done }]],
    ['PATCH …/status', (s, id, done) => ['PATCH', `${ticketPath(s, id)}/status`, { statusId: done }]],
    ['PATCH …/inline', (s, id, done) => ['PATCH', `${ticketPath(s, id)}/inline`, { statusId: done }]],
    ['POST …/transition', (s, id, done) => ['POST', `${ticketPath(s, id)}/transition`, { toStatusId: done }]],
    ['PATCH …/reorder with statusId', (s, id, done) => ['PATCH', `/api/v1/boards/${s.boardId}/tickets/reorder`, { ticketId: id, position: 5, statusId: done }]],
  ];

  it.each(intoDone)('ends the claim of a ticket a person moves into DONE (%s): released with reason "ticket completed"', async (_, request) => {
    const ticket = await newTicket(s);
    expect((await claim(s, agent, ticket.id)).status).toBe(201);
    const [method, path, body] = request(s, ticket.id, s.statuses.DONE.id);
    const moved = await s.org.call(method, path, { body });
    expect(moved.status).toBe(200);
    const read = await s.org.call('GET', ticketPath(s, ticket.id));
    expect(read.body.data.claim).toBeNull();
    await expectReleased(s, agent, ticket.id, 'ticket completed');
  });

  it('ends the claim when the holding agent itself moves the ticket into DONE', async () => {
    const ticket = await newTicket(s);
    expect((await claim(s, agent, ticket.id)).status).toBe(201);
    expect((await agent.call('PATCH', `${ticketPath(s, ticket.id)}/status`, { statusId: s.statuses.DONE.id })).status).toBe(200);
    await expectReleased(s, agent, ticket.id, 'ticket completed', agent.id);
  });

  it('ends the claim of a subticket moved into DONE through the subticket route', async () => {
    const parent = await newTicket(s);
    const sub = (await s.org.call('POST', `${ticketPath(s, parent.id)}/subtickets`, { body: { title: 'Part' } })).body.data;
    expect((await claim(s, agent, sub.id)).status).toBe(201);
    const moved = await s.org.call('PATCH', `${ticketPath(s, parent.id)}/subtickets/${sub.id}/status`, { body: { statusId: s.statuses.DONE.id } });
    expect(moved.status).toBe(200);
    await expectReleased(s, agent, sub.id, 'ticket completed');
  });

  it('ends the claim when the ticket is deleted: released with reason "ticket deleted"', async () => {
    const ticket = await newTicket(s);
    expect((await claim(s, agent, ticket.id)).status).toBe(201);
    expect((await s.org.call('DELETE', ticketPath(s, ticket.id))).status).toBe(204);
    const events = await dispatchedEventsOf(s.org.orgId, ticket.id, 4);
    expect(events.find((event) => event.type === 'ticket.claim_released')!.data).toMatchObject({ reason: 'ticket deleted', previousClaimedById: agent.id });
    expect(events.map((event) => event.type)).toContain('ticket.deleted');
    await expectSlotFree(s, agent);
  });

  it('ends a lapsed, unswept claim as expired when the ticket enters DONE', async () => {
    const ticket = await newTicket(s);
    expect((await claim(s, agent, ticket.id)).status).toBe(201);
    await lapseClaim(ticket.id);
    expect((await s.org.call('PATCH', `${ticketPath(s, ticket.id)}/status`, { body: { statusId: s.statuses.DONE.id } })).status).toBe(200);
    const events = await dispatchedEventsOf(s.org.orgId, ticket.id, 4);
    const types = events.map((event) => event.type);
    expect(types).toContain('ticket.claim_expired');
    expect(types).not.toContain('ticket.claim_released');
    await expectSlotFree(s, agent);
  });

  it('leaves the claim alone on moves between non-final statuses', async () => {
    const ticket = await newTicket(s);
    expect((await claim(s, agent, ticket.id)).status).toBe(201);
    expect((await s.org.call('PATCH', `${ticketPath(s, ticket.id)}/status`, { body: { statusId: s.statuses.IN_REVIEW.id } })).status).toBe(200);
    expect((await s.org.call('GET', ticketPath(s, ticket.id))).body.data.claim.claimedBy.id).toBe(agent.id);
    expect((await agent.call('DELETE', `${ticketPath(s, ticket.id)}/claim`, {})).status).toBe(200);
  });

  it('ends the claims of tickets whose status is recategorized to FINAL', async () => {
    const own = await boardSetup('Recategorize');
    await setPlan(own.org.slug, 'PRO');
    const ownAgent = await boardAgent(own);
    const status = (await own.org.call('POST', '/api/v1/statuses', { body: { name: 'Shipping', color: '#123456', category: 'ACTIVE' } })).body;
    const ticket = await newTicket(own, { statusId: status.id });
    expect((await claim(own, ownAgent, ticket.id)).status).toBe(201);
    expect((await own.org.call('PATCH', `/api/v1/statuses/${status.id}`, { body: { category: 'FINAL' } })).status).toBe(200);
    // The status's tickets move in the background: the claim ends when the job has rewritten its ticket.
    await waitUntil(() => db().entities.status.get({ orgId: own.org.orgId, statusId: status.id }).go({ consistent: true }), (item) => item.data?.recategorizing === undefined, 60_000);
    await expectReleased(own, ownAgent, ticket.id, 'ticket completed');
  });
});

describe('claims end when a suggestion is accepted', () => {
  it('frees the agent’s slot when a person accepts its move into DONE', async () => {
    const s = await proBoard('Suggestions');
    await s.org.call('PATCH', `/api/v1/boards/${s.boardId}`, { body: { features: { explainableStatus: true } } });
    const agent = await boardAgent(s);
    const ticket = await newTicket(s);
    expect((await claim(s, agent, ticket.id)).status).toBe(201);
    const refused = await agent.call('PATCH', `${ticketPath(s, ticket.id)}/status`, { statusId: s.statuses.DONE.id, reason: 'Tests pass' });
    expect(refused.body.error.code).toBe('AGENT_APPROVAL_REQUIRED');
    const accepted = await s.org.call('POST', `${ticketPath(s, ticket.id)}/suggestions/${refused.body.error.details.suggestionId}/accept`, { body: {} });
    expect(accepted.status).toBe(200);
    await expectReleased(s, agent, ticket.id, 'ticket completed');
  });
});

describe('claimedBy and the claim limit, as agent authors expect them', () => {
  it('lists every live claim of the holder whatever the status category, archived included', async () => {
    const s = await proBoard('Held');
    const agent = await boardAgent(s, 3);
    const planning = await newTicket(s, { statusId: s.statuses.BACKLOG.id });
    const active = await newTicket(s);
    const archived = await newTicket(s);
    for (const ticket of [planning, active, archived]) expect((await claim(s, agent, ticket.id)).status).toBe(201);
    expect((await s.org.call('PATCH', ticketPath(s, archived.id), { body: { isArchived: true } })).status).toBe(200);
    const held = await agent.call('GET', '/api/v1/issues?claimedBy=me');
    expect(held.status).toBe(200);
    expect(held.body.data.map((ticket: { id: string }) => ticket.id).sort()).toEqual([planning.id, active.id, archived.id].sort());
    expect(held.body.total).toBe(3);
    // By id, for a person asking about the agent.
    expect((await s.org.call('GET', `/api/v1/issues?claimedBy=${agent.id}`)).body.total).toBe(3);
  });

  it('names the held tickets and the maximum in CLAIM_LIMIT_REACHED', async () => {
    const s = await proBoard('Limit');
    const agent = await boardAgent(s, 2);
    const first = await newTicket(s);
    const second = await newTicket(s);
    const third = await newTicket(s);
    expect((await claim(s, agent, first.id)).status).toBe(201);
    expect((await claim(s, agent, second.id)).status).toBe(201);
    const refused = await claim(s, agent, third.id);
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('CLAIM_LIMIT_REACHED');
    expect(refused.body.error.details.maxConcurrentClaims).toBe(2);
    expect([...refused.body.error.details.heldTicketIds].sort()).toEqual([first.id, second.id].sort());
  });
});

describe('agents overview: open claims of boards the caller cannot see', () => {
  it('hides the ticket of a claim on a board the caller cannot see, keeping the count and the expiry', async () => {
    const s = await proBoard('Visible');
    const agent = await boardAgent(s, 3);
    const hiddenBoard = (await createBoard(s.org, { name: 'Secret plans' }));
    await s.org.call('POST', `/api/v1/boards/${hiddenBoard.id}/members`, { body: { userId: agent.id } });
    const seen = await newTicket(s);
    const secret = (await s.org.call('POST', `/api/v1/boards/${hiddenBoard.id}/tickets`, { body: { title: 'Acquire competitor' } })).body.data;
    expect((await claim(s, agent, seen.id)).status).toBe(201);
    expect((await agent.call('POST', `/api/v1/boards/${hiddenBoard.id}/tickets/${secret.id}/claim`, { leaseSeconds: 900 })).status).toBe(201);

    const group = (await s.org.call('POST', '/api/v1/permission-groups', { body: { name: 'Agent managers', color: '#123456', permissions: ['agents:manage'] } })).body;
    const manager = await createMember(s.org, { permissionGroupIds: [group.id] });
    await s.org.call('POST', `/api/v1/boards/${s.boardId}/members`, { body: { userId: manager.id } });
    const overview = await api('GET', `/api/v1/organizations/${s.org.orgId}/agents/overview`, { token: manager.token, org: s.org.slug });
    expect(overview.status).toBe(200);
    const claims = overview.body.agents.find((row: { id: string }) => row.id === agent.id).openClaims;
    expect(claims).toHaveLength(2);
    expect(claims).toContainEqual({ ticketId: seen.id, displayId: seen.displayId, title: 'Work', boardId: s.boardId, claimExpiresAt: expect.any(String), heartbeatAt: null, note: null, client: null });
    expect(claims).toContainEqual({ ticketId: null, displayId: null, title: null, boardId: null, claimExpiresAt: expect.any(String), hidden: true });
    expect(JSON.stringify(overview.body)).not.toContain('Acquire competitor');
    expect(JSON.stringify(overview.body)).not.toContain(hiddenBoard.id);

    // An administrator sees every board.
    const full = await s.org.call('GET', `/api/v1/organizations/${s.org.orgId}/agents/overview`);
    const all = full.body.agents.find((row: { id: string }) => row.id === agent.id).openClaims;
    expect(all.map((entry: { ticketId: string }) => entry.ticketId).sort()).toEqual([seen.id, secret.id].sort());
  });
});
