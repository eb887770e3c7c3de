import { describe, expect, it } from 'vitest';
import { api, createMember, setPlan, signupOrg } from '../support/api.js';
import { dispatchedEventsOf } from '../support/events.js';
import { db } from '../../lib/db/service.js';
import type { Clock } from '../../lib/core/clock.js';
import { runSweep } from '../../lib/sweeper/index.js';
import { expireClaim } from '../../lib/tickets/claims/expiry.js';
import type { TicketItem } from '../../lib/db/entities/index.js';
import { createAgent, createTicket } from '../support/factories.js';

const clockAt = (date: Date): Clock => ({ now: () => date });

async function world() {
  const org = await signupOrg();
  await setPlan(org.slug, 'PRO');
  const board = (await org.call('POST', '/api/v1/boards', { body: { name: 'Sweep board', prefix: 'SWP' } })).body;
  const owner = await createMember(org, { name: 'Olga Owner' });
  await org.call('POST', `/api/v1/boards/${board.id}/members`, { body: { userId: owner.id } });
  // The agent through the agent API: owned by Olga, at most one claim at a time.
  const { id: agentId, token: agentToken } = await createAgent(org, { agent: { name: 'Sweepy', ownerId: owner.id }, settings: { maxConcurrentClaims: 1 }, boardIds: [board.id], token: { name: 'agent' } });
  const newTicket = (overrides: Record<string, unknown> = {}) => createTicket(org, board.id, { title: 'Sweep me', ...overrides });
  const claim = (ticketId: string, leaseSeconds: number) =>
    api('POST', `/api/v1/boards/${board.id}/tickets/${ticketId}/claim`, { token: agentToken, org: org.slug, body: { leaseSeconds } });
  return { org, board, owner, agentId, agentToken, newTicket, claim };
}

describe('the sweeper clears lapsed claims (injected clock)', () => {
  it('clears a lapsed claim, frees the agent slot, notes the timeline, emits ticket.claim_expired and notifies assignee and owner', async () => {
    const w = await world();
    const ticket = await w.newTicket({ assigneeId: w.org.adminId });
    const claimed = await w.claim(ticket.id, 60);
    expect(claimed.status).toBe(201);

    const results = await runSweep(clockAt(new Date(Date.now() + 75_000)), { orgId: w.org.orgId });
    expect(results.lapsedClaims).toBeGreaterThanOrEqual(1);

    const stored = (await db().entities.ticket.get({ ticketId: ticket.id }).go({ consistent: true })).data as TicketItem;
    expect(stored.claimedById).toBeUndefined();
    expect(stored.claimCount).toBe(1);
    const slots = (await db().entities.claimSlots.get({ orgId: w.org.orgId, agentId: w.agentId }).go({ consistent: true })).data;
    expect(slots?.held).toBe(0);

    const events = await dispatchedEventsOf(w.org.orgId, ticket.id, 4);
    expect(events.find((event) => event.type === 'ticket.claim_expired')?.data).toEqual({
      ticketId: ticket.id, boardId: w.board.id, projectId: w.board.id, organizationId: w.org.orgId, claimCount: 1,
      previousClaimedById: w.agentId, claimExpiresAt: claimed.body.claim.claimExpiresAt, handoffId: expect.stringMatching(/^hof_/),
    });
    const timeline = await w.org.call('GET', `/api/v1/boards/${w.board.id}/tickets/${ticket.id}/timeline`);
    expect(JSON.stringify(timeline.body)).toContain('CLAIM_EXPIRED');
    // The lapsed lease left an automatic handoff, which the timeline and the handoff list show.
    expect(JSON.stringify(timeline.body)).toContain('HANDOFF');
    const handoffs = (await w.org.call('GET', `/api/v1/boards/${w.board.id}/tickets/${ticket.id}/handoffs`)).body.data;
    expect(handoffs).toEqual([expect.objectContaining({ auto: true, claimCount: 1, from: expect.objectContaining({ id: w.agentId, isAgent: true }) })]);

    for (const token of [w.org.adminToken, w.owner.token]) {
      const list = await api('GET', '/api/v1/notifications', { token, org: w.org.slug });
      expect(list.status).toBe(200);
      expect(list.body).toMatchObject({ total: 1, page: 1 });
      expect(list.body.data[0]).toMatchObject({
        type: 'TICKET_CLAIM_EXPIRED',
        data: { ticketId: ticket.id, boardId: w.board.id, displayId: ticket.displayId, title: 'Sweep me' },
        readAt: null,
      });
    }
    // The slot is free again: the agent (maximum 1) claims at once.
    expect((await w.claim(ticket.id, 600)).status).toBe(201);
  });

  it('marks a notification read (204), keeps it listed with readAt, and answers 404 for an unknown id', async () => {
    const w = await world();
    const ticket = await w.newTicket({ assigneeId: w.owner.id });
    await w.claim(ticket.id, 60);
    await runSweep(clockAt(new Date(Date.now() + 75_000)), { orgId: w.org.orgId });
    const list = await api('GET', '/api/v1/notifications', { token: w.owner.token, org: w.org.slug });
    // Assignee and owner are the same person: one notification.
    expect(list.body.total).toBe(1);
    const id = list.body.data[0].id;
    const read = await api('POST', `/api/v1/notifications/${id}/read`, { token: w.owner.token, org: w.org.slug });
    expect(read.status).toBe(204);
    const after = await api('GET', '/api/v1/notifications', { token: w.owner.token, org: w.org.slug });
    expect(after.body.data[0].readAt).not.toBeNull();
    expect((await api('POST', '/api/v1/notifications/ntf_unknown/read', { token: w.owner.token, org: w.org.slug })).status).toBe(404);
    // Another user's notification is not found for the admin.
    expect((await w.org.call('POST', `/api/v1/notifications/${id}/read`)).status).toBe(404);
  });

  it('leaves a lease renewed since it was read alone', async () => {
    const w = await world();
    const ticket = await w.newTicket();
    await w.claim(ticket.id, 60);
    const stale = (await db().entities.ticket.get({ ticketId: ticket.id }).go({ consistent: true })).data as TicketItem;
    const beat = await api('POST', `/api/v1/boards/${w.board.id}/tickets/${ticket.id}/claim/heartbeat`, { token: w.agentToken, org: w.org.slug, body: { extendSeconds: 3600 } });
    expect(beat.status).toBe(200);
    // The sweeper saw the old copy (lapsed at +75 s) but the guarded put fails: nothing changes.
    expect(await expireClaim({ orgId: w.org.orgId }, stale, clockAt(new Date(Date.now() + 75_000)))).toBe(false);
    await runSweep(clockAt(new Date(Date.now() + 75_000)), { orgId: w.org.orgId });
    const read = await w.org.call('GET', `/api/v1/boards/${w.board.id}/tickets/${ticket.id}`);
    expect(read.body.data.claim).toMatchObject({ claimedBy: { id: w.agentId }, claimExpiresAt: beat.body.claimExpiresAt });
  });
});
