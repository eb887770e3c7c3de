import { beforeAll, describe, expect, it } from 'vitest';
import { api, createToken, expectValidationError, setPlan, useInProcess } from '../support/api.js';
import { boardSetup, lapseClaim, type BoardSetup as Setup } from '../support/tickets.js';
import { dispatchedEventsOf } from '../support/events.js';
import { db } from '../../lib/db/service.js';
import { documentDb } from '../../lib/db/client.js';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { createAgent as createTestAgent, createTicket, createBoardMember } from '../support/factories.js';

// In process, through the same route table and handlers (test/support/api.ts).
useInProcess();

async function setup(): Promise<Setup> {
  return boardSetup('Claims board', 'CLM');
}

const claimPath = (s: Setup, ticketId: string) => `/api/v1/boards/${s.boardId}/tickets/${ticketId}/claim`;

/** An agent (through the agent API, so the organization moves to PRO) with an AGENT token, member of the board. */
async function createAgent(s: Setup, options: { ownerId?: string; maxConcurrentClaims?: number; clientLabel?: string; denyDelete?: boolean } = {}) {
  await setPlan(s.org.slug, 'PRO');
  return createTestAgent(s.org, {
    agent: { name: 'Robo Agent', ...(options.ownerId ? { ownerId: options.ownerId } : {}) },
    ...(options.maxConcurrentClaims ? { settings: { maxConcurrentClaims: options.maxConcurrentClaims } } : {}),
    boardIds: [s.boardId],
    token: { clientLabel: options.clientLabel ?? null, ...(options.denyDelete === undefined ? {} : { denyDelete: options.denyDelete }) },
  });
}

describe('claiming a ticket', () => {
  let s: Setup;
  beforeAll(async () => {
    s = await setup();
  });

  it('claims a free ticket with the default lease and returns the claim block', async () => {
    const ticket = await createTicket(s.org, s.boardId, { title: 'Claimable work' });
    const before = Date.now();
    const response = await s.org.call('POST', claimPath(s, ticket.id), { body: {} });
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({
      ticket: { id: ticket.id, displayId: ticket.displayId, title: 'Claimable work', boardId: s.boardId, statusId: ticket.status.id, assigneeId: null },
      claim: { claimedBy: { id: s.org.adminId, name: 'Ada Admin', isAgent: false, agentOwnerId: null }, claimHeartbeatAt: null, claimCount: 1 },
      alreadyHeld: false,
      assigned: false,
    });
    const lease = Date.parse(response.body.claim.claimExpiresAt) - before;
    expect(lease).toBeGreaterThan(1790_000);
    expect(lease).toBeLessThan(1810_000);
    const read = await s.org.call('GET', `/api/v1/boards/${s.boardId}/tickets/${ticket.id}`);
    expect(read.body.data.claim).toEqual(response.body.claim);
  });

  it('clamps the lease to 60..14400 seconds', async () => {
    const short = await createTicket(s.org, s.boardId);
    const long = await createTicket(s.org, s.boardId);
    const a = await s.org.call('POST', claimPath(s, short.id), { body: { leaseSeconds: 5 } });
    const b = await s.org.call('POST', claimPath(s, long.id), { body: { leaseSeconds: 999_999 } });
    const leaseOf = (r: any) => (Date.parse(r.body.claim.claimExpiresAt) - Date.parse(r.body.claim.claimedAt)) / 1000;
    expect(leaseOf(a)).toBe(60);
    expect(leaseOf(b)).toBe(14_400);
  });

  it('extends the lease on a re-claim by the holder without a new claim count', async () => {
    const ticket = await createTicket(s.org, s.boardId);
    const first = await s.org.call('POST', claimPath(s, ticket.id), { body: { leaseSeconds: 120 } });
    const again = await s.org.call('POST', claimPath(s, ticket.id), { body: { leaseSeconds: 3600 } });
    expect(again.status).toBe(201);
    expect(again.body.alreadyHeld).toBe(true);
    expect(again.body.claim.claimCount).toBe(first.body.claim.claimCount);
    expect(again.body.claim.claimedAt).toBe(first.body.claim.claimedAt);
    expect(Date.parse(again.body.claim.claimExpiresAt)).toBeGreaterThan(Date.parse(first.body.claim.claimExpiresAt));
  });

  it('assigns an unassigned ticket to the claimer with assign=true and emits ticket.claimed and ticket.assigned', async () => {
    const ticket = await createTicket(s.org, s.boardId);
    const response = await s.org.call('POST', claimPath(s, ticket.id), { body: { assign: true } });
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({ assigned: true, ticket: { assigneeId: s.org.adminId } });
    const events = await dispatchedEventsOf(s.org.orgId, ticket.id, 4);
    const claimed = events.find((event) => event.type === 'ticket.claimed');
    expect(claimed?.data).toEqual({
      ticketId: ticket.id, boardId: s.boardId, projectId: s.boardId, organizationId: s.org.orgId,
      claimedById: s.org.adminId, claimExpiresAt: response.body.claim.claimExpiresAt, claimCount: 1,
    });
    expect(events.find((event) => event.type === 'ticket.assigned')?.data).toMatchObject({ oldAssigneeId: null, newAssigneeId: s.org.adminId });
    const timeline = await s.org.call('GET', `/api/v1/boards/${s.boardId}/tickets/${ticket.id}/timeline`);
    expect(JSON.stringify(timeline.body)).toContain('CLAIMED');
  });

  it('never replaces an existing assignee with assign=true', async () => {
    const member = await createBoardMember(s.org, s.boardId);
    const ticket = await createTicket(s.org, s.boardId, { assigneeId: member.id });
    const response = await s.org.call('POST', claimPath(s, ticket.id), { body: { assign: true } });
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({ assigned: false, ticket: { assigneeId: member.id } });
  });

  it("refuses to name the holder after its client: claimedBy.name is the holder's, the token's clientLabel is the claim's client", async () => {
    const ticket = await createTicket(s.org, s.boardId);
    const { token } = await createToken(s.org, s.org.adminToken, { clientLabel: 'Claude Code' });
    const response = await api('POST', claimPath(s, ticket.id), { token, org: s.org.slug, body: {} });
    expect(response.body.claim.claimedBy.name).toBe('Ada Admin');
    expect(response.body.claim.client).toBe('Claude Code');
    const read = await s.org.call('GET', `/api/v1/boards/${s.boardId}/tickets/${ticket.id}`);
    expect(read.body.data.claim).toMatchObject({ claimedBy: { name: 'Ada Admin' }, client: 'Claude Code' });
  });

  it('refuses a ticket someone else holds with 409 TICKET_ALREADY_CLAIMED naming the holder and expiry', async () => {
    const ticket = await createTicket(s.org, s.boardId);
    const held = await s.org.call('POST', claimPath(s, ticket.id), { body: {} });
    const member = await createBoardMember(s.org, s.boardId, { name: 'Bea Member' });
    const response = await api('POST', claimPath(s, ticket.id), { token: member.token, org: s.org.slug, body: {} });
    expect(response.status).toBe(409);
    expect(response.body.error.code).toBe('TICKET_ALREADY_CLAIMED');
    expect(response.body.error.details).toEqual({ claimedBy: { id: s.org.adminId, name: 'Ada Admin' }, claimExpiresAt: held.body.claim.claimExpiresAt });
  });

  it('refuses to claim a ticket in a FINAL status with its own code, TICKET_NOT_CLAIMABLE', async () => {
    const ticket = await createTicket(s.org, s.boardId, { statusId: s.statuses.DONE.id });
    const response = await s.org.call('POST', claimPath(s, ticket.id), { body: {} });
    expect(response.status).toBe(409);
    expect(response.body.error.code).toBe('TICKET_NOT_CLAIMABLE');
    expect(response.body.error.details).toEqual({ statusId: s.statuses.DONE.id, category: 'FINAL' });
  });

  it('rejects bad input: unknown body fields, a non-numeric lease, a non-boolean assign', async () => {
    const ticket = await createTicket(s.org, s.boardId);
    expectValidationError(await s.org.call('POST', claimPath(s, ticket.id), { body: { leaseSeconds: 'long' } }), 'leaseSeconds');
    expectValidationError(await s.org.call('POST', claimPath(s, ticket.id), { body: { assign: 'yes' } }), 'assign');
    expectValidationError(await s.org.call('POST', claimPath(s, ticket.id), { body: { holder: 'me' } }), 'holder');
  });

  it('answers 404 for an unknown ticket, a deleted ticket and another organization\'s ticket', async () => {
    expect((await s.org.call('POST', claimPath(s, 'tkt_unknown'), { body: {} })).status).toBe(404);
    const deleted = await createTicket(s.org, s.boardId);
    await s.org.call('DELETE', `/api/v1/boards/${s.boardId}/tickets/${deleted.id}`);
    expect((await s.org.call('POST', claimPath(s, deleted.id), { body: {} })).status).toBe(404);
    const other = await setup();
    const foreign = await createTicket(other.org, other.boardId);
    expect((await s.org.call('POST', `/api/v1/boards/${other.boardId}/tickets/${foreign.id}/claim`, { body: {} })).status).toBe(404);
  });

  it('refuses a caller without tickets:edit with 403', async () => {
    const group = await s.org.call('POST', '/api/v1/permission-groups', { body: { name: 'Viewers', color: '#123456', permissions: ['milestones:view'] } });
    const viewer = await createBoardMember(s.org, s.boardId, { permissionGroupIds: [group.body.id] });
    const ticket = await createTicket(s.org, s.boardId);
    const response = await api('POST', claimPath(s, ticket.id), { token: viewer.token, org: s.org.slug, body: {} });
    expect(response.status).toBe(403);
    expect(response.body.error.code).toBe('FORBIDDEN');
  });

  it('refuses a read-only token with PAT_READ_ONLY', async () => {
    const ticket = await createTicket(s.org, s.boardId);
    const { token } = await createToken(s.org, s.org.adminToken, { readOnly: true });
    const response = await api('POST', claimPath(s, ticket.id), { token, org: s.org.slug, body: {} });
    expect(response.status).toBe(403);
    expect(response.body.error.code).toBe('PAT_READ_ONLY');
  });
});

describe('heartbeats', () => {
  let s: Setup;
  beforeAll(async () => {
    s = await setup();
  });

  it('pushes a held lease to now + extendSeconds and records the heartbeat', async () => {
    const ticket = await createTicket(s.org, s.boardId);
    await s.org.call('POST', claimPath(s, ticket.id), { body: { leaseSeconds: 60 } });
    const before = Date.now();
    const response = await s.org.call('POST', `${claimPath(s, ticket.id)}/heartbeat`, { body: { extendSeconds: 600 } });
    expect(response.status).toBe(200);
    expect(response.body.claimedBy.id).toBe(s.org.adminId);
    expect(response.body.claimHeartbeatAt).not.toBeNull();
    const lease = Date.parse(response.body.claimExpiresAt) - before;
    expect(lease).toBeGreaterThan(590_000);
    expect(lease).toBeLessThan(610_000);
  });

  it('answers 409 CLAIM_NOT_HELD without a claim and after the lease lapsed', async () => {
    const free = await createTicket(s.org, s.boardId);
    const none = await s.org.call('POST', `${claimPath(s, free.id)}/heartbeat`, { body: {} });
    expect(none.status).toBe(409);
    expect(none.body.error.code).toBe('CLAIM_NOT_HELD');
    const lapsed = await createTicket(s.org, s.boardId);
    await s.org.call('POST', claimPath(s, lapsed.id), { body: {} });
    await lapseClaim(lapsed.id);
    const response = await s.org.call('POST', `${claimPath(s, lapsed.id)}/heartbeat`, { body: {} });
    expect(response.status).toBe(409);
    expect(response.body.error.code).toBe('CLAIM_NOT_HELD');
  });

  it('answers 409 TICKET_ALREADY_CLAIMED when someone else holds it', async () => {
    const ticket = await createTicket(s.org, s.boardId);
    await s.org.call('POST', claimPath(s, ticket.id), { body: {} });
    const member = await createBoardMember(s.org, s.boardId);
    const response = await api('POST', `${claimPath(s, ticket.id)}/heartbeat`, { token: member.token, org: s.org.slug, body: {} });
    expect(response.status).toBe(409);
    expect(response.body.error.code).toBe('TICKET_ALREADY_CLAIMED');
  });

  it('rejects a non-numeric extendSeconds', async () => {
    const ticket = await createTicket(s.org, s.boardId);
    expectValidationError(await s.org.call('POST', `${claimPath(s, ticket.id)}/heartbeat`, { body: { extendSeconds: 'x' } }), 'extendSeconds');
  });
});

describe('releasing a claim', () => {
  let s: Setup;
  beforeAll(async () => {
    s = await setup();
  });

  it('releases the holder\'s claim, frees the ticket, records the reason and emits ticket.claim_released', async () => {
    const member = await createBoardMember(s.org, s.boardId);
    const ticket = await createTicket(s.org, s.boardId);
    await api('POST', claimPath(s, ticket.id), { token: member.token, org: s.org.slug, body: {} });
    const response = await api('DELETE', claimPath(s, ticket.id), { token: member.token, org: s.org.slug, body: { reason: 'Done for today' } });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ released: true });
    const read = await s.org.call('GET', `/api/v1/boards/${s.boardId}/tickets/${ticket.id}`);
    expect(read.body.data.claim).toBeNull();
    const events = await dispatchedEventsOf(s.org.orgId, ticket.id, 5);
    expect(events.find((event) => event.type === 'ticket.claim_released')?.data).toEqual({
      ticketId: ticket.id, boardId: s.boardId, projectId: s.boardId, organizationId: s.org.orgId, claimCount: 1,
      releasedById: member.id, previousClaimedById: member.id, reason: 'Done for today', handoffId: null,
    });
    const timeline = await s.org.call('GET', `/api/v1/boards/${s.boardId}/tickets/${ticket.id}/timeline`);
    expect(JSON.stringify(timeline.body)).toContain('Done for today');
  });

  it('lets an administrator release another actor\'s claim, but not a plain member', async () => {
    const holder = await createBoardMember(s.org, s.boardId);
    const other = await createBoardMember(s.org, s.boardId);
    const ticket = await createTicket(s.org, s.boardId);
    await api('POST', claimPath(s, ticket.id), { token: holder.token, org: s.org.slug, body: {} });
    const refused = await api('DELETE', claimPath(s, ticket.id), { token: other.token, org: s.org.slug, body: {} });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('FORBIDDEN');
    expect((await s.org.call('DELETE', claimPath(s, ticket.id), { body: {} })).status).toBe(200);
  });

  it('lets the holding agent\'s owner release its claim', async () => {
    const owner = await createBoardMember(s.org, s.boardId);
    const agent = await createAgent(s, { ownerId: owner.id });
    const ticket = await createTicket(s.org, s.boardId);
    const claimed = await api('POST', claimPath(s, ticket.id), { token: agent.token, org: s.org.slug, body: {} });
    expect(claimed.body.claim.claimedBy).toMatchObject({ id: agent.id, isAgent: true, agentOwnerId: owner.id });
    const response = await api('DELETE', claimPath(s, ticket.id), { token: owner.token, org: s.org.slug, body: {} });
    expect(response.status).toBe(200);
  });

  it('lets a denyDelete token release its own claim but not another actor\'s (PAT_DENY_DELETE)', async () => {
    const { token } = await createToken(s.org, s.org.adminToken, { denyDelete: true });
    const own = await createTicket(s.org, s.boardId);
    await api('POST', claimPath(s, own.id), { token, org: s.org.slug, body: {} });
    expect((await api('DELETE', claimPath(s, own.id), { token, org: s.org.slug, body: {} })).status).toBe(200);
    const member = await createBoardMember(s.org, s.boardId);
    const theirs = await createTicket(s.org, s.boardId);
    await api('POST', claimPath(s, theirs.id), { token: member.token, org: s.org.slug, body: {} });
    const refused = await api('DELETE', claimPath(s, theirs.id), { token, org: s.org.slug, body: {} });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('PAT_DENY_DELETE');
    // The router still refuses other DELETE routes to the same token.
    const plain = await api('DELETE', `/api/v1/boards/${s.boardId}/tickets/${own.id}`, { token, org: s.org.slug });
    expect(plain.body.error.code).toBe('PAT_DENY_DELETE');
  });

  it('answers 409 CLAIM_NOT_HELD for a ticket without a live claim and rejects a reason over 500 characters', async () => {
    const ticket = await createTicket(s.org, s.boardId);
    const response = await s.org.call('DELETE', claimPath(s, ticket.id), { body: {} });
    expect(response.status).toBe(409);
    expect(response.body.error.code).toBe('CLAIM_NOT_HELD');
    expectValidationError(await s.org.call('DELETE', claimPath(s, ticket.id), { body: { reason: 'x'.repeat(501) } }), 'reason');
  });
});

describe('claims under concurrency (DynamoDB Local)', () => {
  let s: Setup;
  beforeAll(async () => {
    s = await setup();
  });

  it('lets exactly one of 10 people claim one ticket at the same time', async () => {
    const ticket = await createTicket(s.org, s.boardId);
    const people: { id: string; token: string }[] = [];
    for (let i = 0; i < 10; i++) people.push(await createBoardMember(s.org, s.boardId));
    const responses = await Promise.all(people.map((person) => api('POST', claimPath(s, ticket.id), { token: person.token, org: s.org.slug, body: {} })));
    const statuses = responses.map((response) => response.status).sort();
    expect(statuses.filter((status) => status === 201)).toHaveLength(1);
    expect(responses.filter((response) => response.status === 409).every((response) => response.body.error.code === 'TICKET_ALREADY_CLAIMED')).toBe(true);
    expect(statuses.filter((status) => status === 409)).toHaveLength(9);
  });

  // maxConcurrentClaims under simultaneous claims: test/http/count-limits.test.ts.

  it('frees a slot when an agent releases a claim, and reuses a slot whose lease lapsed unswept', async () => {
    const agent = await createAgent(s, { maxConcurrentClaims: 1, denyDelete: true });
    const [a, b, c] = await Promise.all([createTicket(s.org, s.boardId), createTicket(s.org, s.boardId), createTicket(s.org, s.boardId)]);
    expect((await api('POST', claimPath(s, a.id), { token: agent.token, org: s.org.slug, body: {} })).status).toBe(201);
    const full = await api('POST', claimPath(s, b.id), { token: agent.token, org: s.org.slug, body: {} });
    expect(full.body.error.code).toBe('CLAIM_LIMIT_REACHED');
    expect((await api('DELETE', claimPath(s, a.id), { token: agent.token, org: s.org.slug, body: {} })).status).toBe(200);
    expect((await api('POST', claimPath(s, b.id), { token: agent.token, org: s.org.slug, body: {} })).status).toBe(201);
    // Lapse b without the sweeper: the next claim clears it first.
    const past = new Date(Date.now() - 1000).toISOString();
    await lapseClaim(b.id, past);
    const next = await api('POST', claimPath(s, c.id), { token: agent.token, org: s.org.slug, body: {} });
    expect(next.status).toBe(201);
    const read = await s.org.call('GET', `/api/v1/boards/${s.boardId}/tickets/${b.id}`);
    expect(read.body.data.claim).toBeNull();
  });
});

describe('claiming over a lapsed lease the sweeper has not cleared', () => {
  it('ends the lapsed lease as expired: its own event, timeline note, notification and freed slot, then the new claim', async () => {
    const s = await setup();
    const owner = await createBoardMember(s.org, s.boardId, { name: 'Olga Owner' });
    const agent = await createAgent(s, { ownerId: owner.id, maxConcurrentClaims: 1 });
    const ticket = await createTicket(s.org, s.boardId);
    const first = await api('POST', claimPath(s, ticket.id), { token: agent.token, org: s.org.slug, body: { leaseSeconds: 60 } });
    expect(first.status).toBe(201);
    const past = new Date(Date.now() - 1000).toISOString();
    await lapseClaim(ticket.id, past);

    const taken = await s.org.call('POST', claimPath(s, ticket.id), { body: {} });
    expect(taken.status).toBe(201);
    expect(taken.body.claim).toMatchObject({ claimedBy: { id: s.org.adminId }, claimCount: 2 });

    const events = await dispatchedEventsOf(s.org.orgId, ticket.id, 4);
    const types = events.map((event) => event.type);
    expect(types.filter((type) => type === 'ticket.claimed')).toHaveLength(2);
    expect(events.find((event) => event.type === 'ticket.claim_expired')?.data).toMatchObject({ previousClaimedById: agent.id, claimExpiresAt: past });
    const timeline = await s.org.call('GET', `/api/v1/boards/${s.boardId}/tickets/${ticket.id}/timeline`);
    expect(JSON.stringify(timeline.body)).toContain('CLAIM_EXPIRED');
    const notifications = await api('GET', '/api/v1/notifications', { token: owner.token, org: s.org.slug });
    expect(notifications.body.data.map((item: any) => item.type)).toEqual(['TICKET_CLAIM_EXPIRED']);
    // The agent's one slot is free again.
    const other = await createTicket(s.org, s.boardId);
    expect((await api('POST', claimPath(s, other.id), { token: agent.token, org: s.org.slug, body: {} })).status).toBe(201);
  });
});

describe('the assignee and claim indexes are sparse', () => {
  /** The raw stored item's claim index keys (ElectroDB hides them on reads). */
  async function claimIndexKeysOf(ticketId: string) {
    const { Item } = await documentDb().send(new GetCommand({ TableName: process.env.TABLE_NAME!, Key: db().entities.ticket.get({ ticketId }).params().Key, ConsistentRead: true }));
    return { gsi3pk: Item?.gsi3pk, gsi3sk: Item?.gsi3sk, gsi4pk: Item?.gsi4pk, gsi4sk: Item?.gsi4sk };
  }

  it('writes gsi2 keys only while a ticket is assigned', async () => {
    const s = await setup();
    const ticket = await createTicket(s.org, s.boardId);
    const keysOf = async () => {
      const { Item } = await documentDb().send(new GetCommand({ TableName: process.env.TABLE_NAME!, Key: db().entities.ticket.get({ ticketId: ticket.id }).params().Key, ConsistentRead: true }));
      return { gsi2pk: Item?.gsi2pk, gsi2sk: Item?.gsi2sk };
    };
    expect(await keysOf()).toEqual({ gsi2pk: undefined, gsi2sk: undefined });
    expect((await s.org.call('PATCH', `/api/v1/boards/${s.boardId}/tickets/${ticket.id}/assign`, { body: { assigneeId: s.org.adminId } })).status).toBe(200);
    expect((await keysOf()).gsi2pk).toContain(s.org.adminId.toLowerCase());
    const mine = await s.org.call('GET', '/api/v1/issues?assignedToMe=true&includePlanning=true');
    expect(mine.body.data.map((item: any) => item.id)).toContain(ticket.id);
    expect((await s.org.call('PATCH', `/api/v1/boards/${s.boardId}/tickets/${ticket.id}/assign`, { body: { assigneeId: null } })).status).toBe(200);
    expect(await keysOf()).toEqual({ gsi2pk: undefined, gsi2sk: undefined });
  });

  it('writes gsi3/gsi4 keys only while a ticket is claimed', async () => {
    const s = await setup();
    const ticket = await createTicket(s.org, s.boardId);
    expect(await claimIndexKeysOf(ticket.id)).toEqual({ gsi3pk: undefined, gsi3sk: undefined, gsi4pk: undefined, gsi4sk: undefined });
    expect((await s.org.call('POST', claimPath(s, ticket.id), { body: {} })).status).toBe(201);
    const claimed = await claimIndexKeysOf(ticket.id);
    expect(claimed.gsi3pk).toContain(s.org.adminId.toLowerCase());
    expect(claimed.gsi4pk).toEqual(expect.any(String));
    expect((await s.org.call('DELETE', claimPath(s, ticket.id))).status).toBe(200);
    expect(await claimIndexKeysOf(ticket.id)).toEqual({ gsi3pk: undefined, gsi3sk: undefined, gsi4pk: undefined, gsi4sk: undefined });
  });
});

describe('claim filters on GET /api/v1/issues', () => {
  it('reflects live claims in claimedBy=me and claimable, and treats a lapsed lease as claimable', async () => {
    const s = await setup();
    const active = { statusId: s.statuses.IN_PROGRESS.id };
    const [mine, free, lapsed] = await Promise.all([createTicket(s.org, s.boardId, active), createTicket(s.org, s.boardId, active), createTicket(s.org, s.boardId, active)]);
    await s.org.call('POST', claimPath(s, mine.id), { body: {} });
    await s.org.call('POST', claimPath(s, lapsed.id), { body: {} });
    await lapseClaim(lapsed.id);
    const claimed = await s.org.call('GET', '/api/v1/issues?claimedBy=me');
    expect(claimed.body.data.map((t: any) => t.id)).toEqual([mine.id]);
    expect((await s.org.call('GET', `/api/v1/issues?claimedBy=${s.org.adminId}&boardId=${s.boardId}`)).body.data.map((t: any) => t.id)).toEqual([mine.id]);
    expect((await s.org.call('GET', '/api/v1/issues?claimedBy=usr_nobody')).body).toMatchObject({ data: [], total: 0 });
    const claimable = await s.org.call('GET', '/api/v1/issues?claimable=true');
    const ids = claimable.body.data.map((t: any) => t.id);
    expect(ids).toContain(free.id);
    expect(ids).toContain(lapsed.id);
    expect(ids).not.toContain(mine.id);
    const lapsedRead = await s.org.call('GET', `/api/v1/boards/${s.boardId}/tickets/${lapsed.id}`);
    expect(lapsedRead.body.data.claim).toBeNull();
  });
});
