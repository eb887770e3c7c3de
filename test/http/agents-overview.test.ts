import { describe, expect, it } from 'vitest';
import { api, createMember, createToken, setPlan, signupOrg, type TestOrg, useInProcess } from '../support/api.js';
import { db } from '../../lib/db/service.js';
import { runSweep } from '../../lib/sweeper/index.js';
import type { Clock } from '../../lib/core/clock.js';
import { utcDay, utcDaysBefore, utcMonthStart } from '../../lib/activity/activity.js';
import { lapseClaim } from '../support/tickets.js';
import { createAgent, createTicket, createBoard } from '../support/factories.js';

// In process, through the same route table and handlers (test/support/api.ts).
useInProcess();

const clockAt = (date: Date): Clock => ({ now: () => date });

/** A PRO organization with a board, one agent (owned by a member) with a token on the board. */
async function world() {
  const org = await signupOrg();
  await setPlan(org.slug, 'PRO');
  const board = (await createBoard(org, { name: 'Overview board', prefix: 'OVW' }));
  const owner = await createMember(org, { name: 'Olga Owner' });
  const agents = `/api/v1/organizations/${org.orgId}/agents`;
  const { token: agentToken, ...agent } = await createAgent(org, { agent: { name: 'Builder', ownerId: owner.id }, settings: { gitIdentity: 'builder-bot' }, boardIds: [board.id], token: { name: 'ci' } });
  const statuses = Object.fromEntries(((await org.call('GET', '/api/v1/statuses')).body.data as any[]).map((status) => [status.key, status]));
  const newTicket = (title = 'Work') => createTicket(org, board.id, { title });
  const asAgent = (method: string, path: string, body: Record<string, unknown> = {}) => api(method, path, { token: agentToken, org: org.slug, body });
  const overview = (token?: string) => org.call('GET', `${agents}/overview`, token ? { token } : {});
  return { org, board, owner, agent, agentToken, statuses, newTicket, asAgent, overview, agents };
}

describe('agents overview', () => {
  it('answers the spec shape with null shares while nothing was closed or booked', async () => {
    const w = await world();
    const response = await w.overview();
    expect(response.status).toBe(200);
    const now = new Date();
    expect(response.body).toEqual({
      generatedAt: expect.any(String),
      monthStart: utcMonthStart(now),
      totals: {
        agentCount: 1,
        activeAgentCount: 1,
        ticketsClosedThisMonth: 0,
        ticketsClosedByAgentsThisMonth: 0,
        agentClosedShare: null,
        minutesBookedThisMonth: 0,
        agentMinutesThisMonth: 0,
        humanMinutesThisMonth: 0,
        agentMinutesShare: null,
        pendingAgentMinutes: 0,
      },
      agents: [
        {
          id: w.agent.id,
          name: 'Builder',
          isActive: true,
          ownerName: 'Olga Owner',
          lastSeenAt: null,
          gitIdentity: 'builder-bot',
          openClaims: [],
          claimsTakenLast7Days: 0,
          claimsExpiredLast7Days: 0,
          spendLast7DaysMicros: 0,
          spendLast30DaysMicros: 0,
          dispatchPaused: false,
          monthlyBudgetMicros: null,
          reportedLast7Days: { total: 0, done: 0, blocked: 0, needsReview: 0, partial: 0, unknown: 0 },
          reportedLast30Days: { total: 0, done: 0, blocked: 0, needsReview: 0, partial: 0, unknown: 0 },
          pendingTime: { count: 0, minutes: 0 },
          approvedMinutesThisMonth: 0,
          pullRequests: { total: 0, requiresHumanReview: 0 },
        },
      ],
    });
    expect(Math.abs(Date.parse(response.body.generatedAt) - Date.now())).toBeLessThan(60_000);
  });

  it('counts closures this month and the agents\' share of them', async () => {
    const w = await world();
    // DONE is gated for agents by default; let agents close tickets here.
    await w.org.call('PATCH', `${w.agents}/policies`, { body: { statusTransitionsRequireApproval: [] } });
    const [byHuman, byAgent, reopened] = await Promise.all([w.newTicket('human'), w.newTicket('agent'), w.newTicket('reopened')]);
    const statusPath = (ticketId: string) => `/api/v1/boards/${w.board.id}/tickets/${ticketId}/status`;
    expect((await w.org.call('PATCH', statusPath(byHuman.id), { body: { statusId: w.statuses.DONE.id } })).status).toBe(200);
    expect((await w.asAgent('PATCH', statusPath(byAgent.id), { statusId: w.statuses.DONE.id })).status).toBe(200);
    // Moving between statuses that are not FINAL closes nothing.
    expect((await w.asAgent('PATCH', statusPath(reopened.id), { statusId: w.statuses.IN_PROGRESS.id })).status).toBe(200);

    let totals = (await w.overview()).body.totals;
    expect(totals).toMatchObject({ ticketsClosedThisMonth: 2, ticketsClosedByAgentsThisMonth: 1, agentClosedShare: 0.5 });

    // A ticket reopened and closed again is a second closure; a move within FINAL is none.
    await w.org.call('PATCH', statusPath(byHuman.id), { body: { statusId: w.statuses.IN_PROGRESS.id } });
    await w.asAgent('PATCH', statusPath(byHuman.id), { statusId: w.statuses.DONE.id });
    totals = (await w.overview()).body.totals;
    expect(totals).toMatchObject({ ticketsClosedThisMonth: 3, ticketsClosedByAgentsThisMonth: 2 });
    expect(totals.agentClosedShare).toBeCloseTo(2 / 3, 4);
  });

  it('lists each agent\'s live claims with the last heartbeat and its note, never lapsed ones', async () => {
    const w = await world();
    const [held, lapsed] = await Promise.all([w.newTicket('held'), w.newTicket('lapsed')]);
    const claim = (ticketId: string) => w.asAgent('POST', `/api/v1/boards/${w.board.id}/tickets/${ticketId}/claim`, { leaseSeconds: 600 });
    const claimed = await claim(held.id);
    expect(claimed.status).toBe(201);
    expect((await claim(lapsed.id)).status).toBe(201);
    const past = new Date(Date.now() - 1000).toISOString();
    await lapseClaim(lapsed.id, past);

    const beat = await w.asAgent('POST', `/api/v1/boards/${w.board.id}/tickets/${held.id}/claim/heartbeat`, { note: 'Halfway through the migration', extendSeconds: 600 });
    expect(beat.status).toBe(200);

    const row = (await w.overview()).body.agents[0];
    expect(row.openClaims).toEqual([
      {
        ticketId: held.id,
        displayId: held.displayId,
        title: 'held',
        boardId: w.board.id,
        claimExpiresAt: beat.body.claimExpiresAt,
        heartbeatAt: beat.body.claimHeartbeatAt,
        note: 'Halfway through the migration',
        client: null,
      },
    ]);
    // The agent's token was used: the agent was seen.
    expect(Date.parse(row.lastSeenAt)).toBeGreaterThan(Date.now() - 60_000);
  });

  it('counts claims expired by the sweeper and lapsed leases taken over by someone else', async () => {
    const w = await world();
    const [swept, takenOver] = await Promise.all([w.newTicket('swept'), w.newTicket('taken over')]);
    const claimPath = (ticketId: string) => `/api/v1/boards/${w.board.id}/tickets/${ticketId}/claim`;
    expect((await w.asAgent('POST', claimPath(swept.id), { leaseSeconds: 60 })).status).toBe(201);
    expect((await w.asAgent('POST', claimPath(takenOver.id), { leaseSeconds: 60 })).status).toBe(201);
    // The second lease lapses without the sweeper; a person claims the ticket over it.
    const past = new Date(Date.now() - 1000).toISOString();
    await lapseClaim(takenOver.id, past);
    expect((await w.org.call('POST', claimPath(takenOver.id), { body: {} })).status).toBe(201);
    await runSweep(clockAt(new Date(Date.now() + 75_000)), { orgId: w.org.orgId });

    const row = (await w.overview()).body.agents[0];
    expect(row.claimsExpiredLast7Days).toBe(2);
    // A person's claim counts for nobody's fleet row; the agent took two.
    expect(row.claimsTakenLast7Days).toBe(2);
    expect(row.openClaims).toEqual([]);
  });

  it('counts the leases an agent takes, once each: a claim, a renewal (not counted), and its own lapsed lease taken back', async () => {
    const w = await world();
    const [first, second] = await Promise.all([w.newTicket('first'), w.newTicket('second')]);
    const claimPath = (ticketId: string) => `/api/v1/boards/${w.board.id}/tickets/${ticketId}/claim`;
    expect((await w.asAgent('POST', claimPath(first.id), { leaseSeconds: 60 })).status).toBe(201);
    // Claiming what it holds renews the lease: no new lease, no count.
    expect((await w.asAgent('POST', claimPath(first.id), { leaseSeconds: 60 })).status).toBe(201);
    // Its lease lapses and it takes the ticket back: a lapse and a new lease, in one update of its day.
    await lapseClaim(first.id, new Date(Date.now() - 1000).toISOString());
    expect((await w.asAgent('POST', claimPath(first.id), { leaseSeconds: 60 })).status).toBe(201);
    expect((await w.asAgent('POST', claimPath(second.id), { leaseSeconds: 60 })).status).toBe(201);
    const row = (await w.overview()).body.agents[0];
    expect(row).toMatchObject({ claimsTakenLast7Days: 3, claimsExpiredLast7Days: 1 });
  });

  it('sums the maintained day counters over UTC windows: this month, the last 7 and the last 30 days', async () => {
    const w = await world();
    const now = new Date();
    const put = (day: string, subjectId: string, counters: Record<string, number>) =>
      db().entities.activityDay.update({ orgId: w.org.orgId, day, subjectId }).add(counters).go();
    const agentId = w.agent.id;
    await Promise.all([
      put(utcDay(now), agentId, { claimsExpired: 1, reportsDone: 2, reportsBlocked: 1 }),
      put(utcDaysBefore(now, 6), agentId, { claimsExpired: 1, reportsNeedsReview: 1 }),
      put(utcDaysBefore(now, 7), agentId, { claimsExpired: 5, reportsPartial: 3 }),
      put(utcDaysBefore(now, 29), agentId, { reportsUnknown: 4 }),
      put(utcDaysBefore(now, 30), agentId, { reportsDone: 100, claimsExpired: 100 }),
      put(utcMonthStart(now), 'org', { ticketsClosed: 4, ticketsClosedByAgents: 1, agentMinutes: 30, humanMinutes: 90 }),
      put(utcDaysBefore(new Date(`${utcMonthStart(now)}T00:00:00Z`), 1), 'org', { ticketsClosed: 50, agentMinutes: 500 }),
      put(utcMonthStart(now), agentId, { approvedMinutes: 45 }),
    ]);
    const body = (await w.overview()).body;
    expect(body.totals).toMatchObject({
      ticketsClosedThisMonth: 4,
      ticketsClosedByAgentsThisMonth: 1,
      agentClosedShare: 0.25,
      minutesBookedThisMonth: 120,
      agentMinutesThisMonth: 30,
      humanMinutesThisMonth: 90,
      agentMinutesShare: 0.25,
    });
    const row = body.agents[0];
    expect(row.claimsExpiredLast7Days).toBe(2);
    expect(row.reportedLast7Days).toEqual({ total: 4, done: 2, blocked: 1, needsReview: 1, partial: 0, unknown: 0 });
    expect(row.reportedLast30Days).toEqual({ total: 11, done: 2, blocked: 1, needsReview: 1, partial: 3, unknown: 4 });
    expect(row.approvedMinutesThisMonth).toBe(45);
  });

  it('lists every live agent by name, counts inactive ones apart and leaves deleted ones out', async () => {
    const w = await world();
    const second = (await w.org.call('POST', w.agents, { body: { name: 'Auditor' } })).body;
    const third = (await w.org.call('POST', w.agents, { body: { name: 'Cleaner' } })).body;
    await w.org.call('PATCH', `${w.agents}/${second.id}`, { body: { isActive: false } });
    await w.org.call('DELETE', `${w.agents}/${third.id}`);
    const response = await w.overview();
    expect(response.body.totals).toMatchObject({ agentCount: 2, activeAgentCount: 1 });
    expect(response.body.agents.map((agent: any) => [agent.name, agent.isActive, agent.ownerName])).toEqual([
      ['Auditor', false, 'Ada Admin'],
      ['Builder', true, 'Olga Owner'],
    ]);
  });

  it('is for agents:manage over a session only, on every plan, in the caller\'s organization', async () => {
    const w = await world();
    // The agent's owner without agents:manage.
    const owned = await w.overview(w.owner.token);
    expect(owned.status).toBe(403);
    expect(owned.body.error.code).toBe('FORBIDDEN');
    // A personal access token of an administrator.
    const pat = await createToken(w.org, w.org.adminToken);
    expect((await w.overview(pat.token)).status).toBe(403);
    // An agent token.
    expect((await api('GET', `${w.agents}/overview`, { token: w.agentToken, org: w.org.slug })).status).toBe(403);
    // Reading stays open after a downgrade.
    await setPlan(w.org.slug, 'FREE');
    expect((await w.overview()).status).toBe(200);
    // Another organization's id is unknown.
    const other: TestOrg = await signupOrg();
    const foreign = await other.call('GET', `${w.agents}/overview`);
    expect(foreign.status).toBe(404);
  });
});
