import { beforeAll, describe, expect, it } from 'vitest';
import { createMember, setPlan, useInProcess } from '../support/api.js';
import { boardSetup, lapseClaim, type BoardSetup } from '../support/tickets.js';
import { dispatchedEventsOf } from '../support/events.js';
import { createAgent, createBoard, createMemberWith, createTicket, type TestAgent } from '../support/factories.js';
import { runSweep } from '../../lib/sweeper/index.js';
import { systemClock } from '../../lib/core/clock.js';

/*
 * Steering a running fleet (docs/fleet-control.md) through the real route table: directives
 * and notes delivered by the holder's heartbeat, and the dispatch breaker at its three scopes.
 */
useInProcess();

const ticketPath = (s: BoardSetup, ticketId: string) => `/api/v1/boards/${s.boardId}/tickets/${ticketId}`;

async function proBoard(name: string): Promise<BoardSetup> {
  const s = await boardSetup(name);
  await setPlan(s.org.slug, 'PRO');
  return s;
}

const boardAgent = (s: BoardSetup, agent: Record<string, unknown> = {}, boardIds = [s.boardId]): Promise<TestAgent> =>
  createAgent(s.org, { agent: { name: 'Worker', ...agent }, settings: { maxConcurrentClaims: 5 }, boardIds, token: { name: 'loop', clientLabel: 'loop-cli' } });

const work = (s: BoardSetup, boardId = s.boardId, overrides: Record<string, unknown> = {}): Promise<{ id: string; displayId: string }> =>
  createTicket(s.org, boardId, { title: 'Work', statusId: s.statuses.IN_PROGRESS.id, ...overrides });

describe('directives reach the holder through its heartbeat', () => {
  let s: BoardSetup;
  let agent: TestAgent;
  let owner: { id: string; token: string };
  beforeAll(async () => {
    s = await proBoard('Directives');
    // The agent's owner holds no tickets:edit: owning the agent is enough to direct it.
    owner = await createMemberWith(s.org, ['wiki:view'], { name: 'Owner', boardIds: [s.boardId] });
    agent = await boardAgent(s, { ownerId: owner.id });
  });

  it('delivers a note once, and a pause until resume, with timeline entries and events', async () => {
    const ticket = await work(s);
    const path = ticketPath(s, ticket.id);
    expect((await agent.call('POST', `${path}/claim`, { leaseSeconds: 600 })).status).toBe(201);

    const sent = await s.org.call('POST', `${path}/claim/messages`, { body: { text: 'Use the staging database, not prod.' } });
    expect(sent.status).toBe(201);
    expect(sent.body.message).toMatchObject({ text: 'Use the staging database, not prod.', from: { id: s.org.adminId } });

    const paused = await s.org.call('POST', `${path}/claim/directive`, { body: { action: 'pause', message: 'Hold on while we check the migration' } });
    expect(paused.status).toBe(200);
    expect(paused.body.directive).toMatchObject({ action: 'pause', message: 'Hold on while we check the migration', requestedBy: { id: s.org.adminId }, stopDeadline: null });
    // The ticket shows it with its claim.
    expect((await s.org.call('GET', path)).body.data.claim.directive.action).toBe('pause');

    const first = await agent.call('POST', `${path}/claim/heartbeat`, { extendSeconds: 600 });
    expect(first.status).toBe(200);
    expect(first.body.directive.action).toBe('pause');
    expect(first.body.messages.map((message: { text: string }) => message.text)).toEqual(['Use the staging database, not prod.']);
    // Delivered once; the pause stays until resumed, and the lease is still renewed.
    const second = await agent.call('POST', `${path}/claim/heartbeat`, { extendSeconds: 600 });
    expect(second.body.messages).toEqual([]);
    expect(second.body.directive.action).toBe('pause');
    expect(Date.parse(second.body.claimExpiresAt)).toBeGreaterThan(Date.now() + 500_000);

    // Pausing again changes nothing; the owner resumes.
    expect((await s.org.call('POST', `${path}/claim/directive`, { body: { action: 'pause' } })).body.directive.requestedAt).toBe(paused.body.directive.requestedAt);
    const resumed = await api(owner.token, s, 'POST', `${path}/claim/directive`, { action: 'resume' });
    expect(resumed.status).toBe(200);
    expect(resumed.body.directive).toMatchObject({ action: 'resume', requestedBy: { id: owner.id } });
    // Resume is said once, then nothing.
    expect((await agent.call('POST', `${path}/claim/heartbeat`, {})).body.directive.action).toBe('resume');
    expect((await agent.call('POST', `${path}/claim/heartbeat`, {})).body.directive).toBeNull();

    const timeline = (await s.org.call('GET', `${path}/timeline?limit=100`)).body.data as { kind: string; actor?: unknown; details: Record<string, unknown> }[];
    expect(timeline.filter((entry) => entry.kind === 'CLAIM_DIRECTIVE').map((entry) => entry.details.action)).toEqual(['pause', 'resume']);
    expect(timeline.filter((entry) => entry.kind === 'CLAIM_MESSAGE').map((entry) => entry.details.text)).toEqual(['Use the staging database, not prod.']);
    const events = (await dispatchedEventsOf(s.org.orgId, ticket.id, 4)).filter((event) => event.type === 'ticket.claim_directive');
    expect(events.map((event) => [event.data.action, event.data.requestedById])).toEqual([
      ['pause', s.org.adminId],
      ['resume', owner.id],
    ]);
    expect(events[0]!.data).toMatchObject({ ticketId: ticket.id, boardId: s.boardId });
  });

  it('ends a stopped lease at its deadline with a handoff naming the stop; a heartbeat does not extend past it', async () => {
    const ticket = await work(s);
    const path = ticketPath(s, ticket.id);
    await agent.call('POST', `${path}/claim`, { leaseSeconds: 3600 });
    const stopped = await s.org.call('POST', `${path}/claim/directive`, { body: { action: 'stop', message: 'Wrong approach, see the RFC' } });
    expect(stopped.status).toBe(200);
    const deadline = Date.parse(stopped.body.directive.stopDeadline);
    expect(deadline - Date.parse(stopped.body.directive.requestedAt)).toBe(120_000);

    const beat = await agent.call('POST', `${path}/claim/heartbeat`, { extendSeconds: 3600 });
    expect(beat.body.directive.action).toBe('stop');
    expect(Date.parse(beat.body.claimExpiresAt)).toBe(deadline);
    // Claiming again (a renewal) does not carry the lease past the deadline either.
    expect(Date.parse((await agent.call('POST', `${path}/claim`, { leaseSeconds: 3600 })).body.claim.claimExpiresAt)).toBe(deadline);
    // A stop cannot be taken back; asking again changes nothing.
    expect((await s.org.call('POST', `${path}/claim/directive`, { body: { action: 'resume' } })).body.error.code).toBe('CLAIM_STOPPING');
    expect((await s.org.call('POST', `${path}/claim/directive`, { body: { action: 'stop' } })).body.directive.stopDeadline).toBe(stopped.body.directive.stopDeadline);

    // The agent does not obey: at the deadline the sweeper ends the lease, with an automatic handoff naming the stop.
    await lapseClaim(ticket.id);
    await runSweep(systemClock);
    const handoffs = (await s.org.call('GET', `${path}/handoffs`)).body.data;
    expect(handoffs[0]).toMatchObject({ auto: true, summary: expect.stringMatching(/^Stopped by .+: Wrong approach, see the RFC$/) });
    expect((await s.org.call('GET', path)).body.data.claim).toBeNull();
    // The next lease starts with nothing asked of it.
    await agent.call('POST', `${path}/claim`, {});
    expect((await agent.call('POST', `${path}/claim/heartbeat`, {})).body).toMatchObject({ directive: null, messages: [] });
    await agent.call('DELETE', `${path}/claim`, {});
  });

  it('refuses agents, people without tickets:edit, and tickets with no live lease', async () => {
    const ticket = await work(s);
    const path = ticketPath(s, ticket.id);
    const viewer = await createMemberWith(s.org, ['wiki:view'], { boardIds: [s.boardId] });
    expect((await s.org.call('POST', `${path}/claim/directive`, { body: { action: 'stop' } })).body.error.code).toBe('CLAIM_NOT_HELD');
    expect((await s.org.call('POST', `${path}/claim/messages`, { body: { text: 'hello' } })).status).toBe(409);
    await agent.call('POST', `${path}/claim`, {});
    const other = await boardAgent(s);
    expect((await other.call('POST', `${path}/claim/directive`, { action: 'stop' })).status).toBe(403);
    expect((await agent.call('POST', `${path}/claim/messages`, { text: 'to myself' })).status).toBe(403);
    expect((await api(viewer.token, s, 'POST', `${path}/claim/directive`, { action: 'pause' })).status).toBe(403);
    expect((await s.org.call('POST', `${path}/claim/directive`, { body: { action: 'halt' } })).status).toBe(400);
    expect((await s.org.call('POST', `${path}/claim/messages`, { body: { text: 'x'.repeat(1001) } })).status).toBe(400);
    // Nothing was written by the refusals.
    expect((await agent.call('POST', `${path}/claim/heartbeat`, {})).body).toMatchObject({ directive: null, messages: [] });
  });
});

describe('the dispatch breaker', () => {
  let s: BoardSetup;
  let other: { id: string };
  let agent: TestAgent;
  beforeAll(async () => {
    s = await proBoard('Breaker');
    other = await createBoard(s.org, { name: 'Other' });
    agent = await boardAgent(s, {}, [s.boardId, other.id]);
  });

  it('pauses the organization: claim-next answers 204 organization, named claims 409; held leases go on; lifting restores the queue', async () => {
    const held = await work(s);
    const waiting = await work(s);
    await agent.call('POST', `${ticketPath(s, held.id)}/claim`, {});
    const thrown = await s.org.call('PUT', '/api/v1/organization/dispatch', { body: { paused: true, reason: 'Incident 42' } });
    expect(thrown.status).toBe(200);
    expect(thrown.body).toMatchObject({ paused: true, reason: 'Incident 42', pausedBy: { id: s.org.adminId } });
    expect((await s.org.call('GET', '/api/v1/organization')).body.dispatch.paused).toBe(true);

    const next = await agent.call('POST', '/api/v1/claims/next', {});
    expect(next.status).toBe(204);
    expect(next.headers.get('x-dispatch-paused')).toBe('organization');
    const named = await agent.call('POST', `${ticketPath(s, waiting.id)}/claim`, {});
    expect(named.status).toBe(409);
    expect(named.body.error).toMatchObject({ code: 'DISPATCH_PAUSED', details: { scope: 'organization' } });
    // The lease held goes on; a person may still claim.
    expect((await agent.call('POST', `${ticketPath(s, held.id)}/claim/heartbeat`, {})).status).toBe(200);
    expect((await agent.call('POST', `${ticketPath(s, held.id)}/claim`, {})).body.alreadyHeld).toBe(true);
    expect((await s.org.call('GET', `/api/v1/issues?ready=true&boardId=${s.boardId}`)).body.data.map((t: { id: string }) => t.id)).toContain(waiting.id);

    expect((await s.org.call('PUT', '/api/v1/organization/dispatch', { body: { paused: false } })).body).toMatchObject({ paused: false, reason: null, pausedBy: null });
    const after = await agent.call('POST', '/api/v1/claims/next', { boardIds: [s.boardId] });
    expect(after.status).toBe(201);
    expect(after.body.ticket.id).toBe(waiting.id);
  });

  it('pauses one agent: 204 agent for it alone', async () => {
    const ticket = await work(s);
    const agents = `/api/v1/organizations/${s.org.orgId}/agents`;
    const paused = await boardAgent(s);
    expect((await s.org.call('PATCH', `${agents}/${paused.id}`, { body: { dispatchPaused: true } })).body.dispatchPaused).toBe(true);
    const next = await paused.call('POST', '/api/v1/claims/next', {});
    expect([next.status, next.headers.get('x-dispatch-paused')]).toEqual([204, 'agent']);
    expect((await paused.call('POST', `${ticketPath(s, ticket.id)}/claim`, {})).body.error.details).toEqual({ scope: 'agent' });
    expect((await s.org.call('PATCH', `${agents}/${paused.id}`, { body: { dispatchPaused: false } })).body.dispatchPaused).toBe(false);
    expect((await paused.call('POST', `${ticketPath(s, ticket.id)}/claim`, {})).status).toBe(201);
  });

  it('passes a paused board over, takes work elsewhere, and says board when only paused boards have work', async () => {
    const s2 = await proBoard('Board breaker');
    const second = await createBoard(s2.org, { name: 'Second' });
    const worker = await boardAgent(s2, {}, [s2.boardId, second.id]);
    const onPaused = await work(s2, s2.boardId, { priority: 'critical' });
    const elsewhere = await work(s2, second.id, { priority: 'low' });
    expect((await s2.org.call('PATCH', `/api/v1/boards/${s2.boardId}`, { body: { dispatchPaused: true } })).body.dispatchPaused).toBe(true);

    const first = await worker.call('POST', '/api/v1/claims/next', {});
    expect(first.status).toBe(201);
    expect(first.body.ticket.id).toBe(elsewhere.id);
    const none = await worker.call('POST', '/api/v1/claims/next', {});
    expect([none.status, none.headers.get('x-dispatch-paused')]).toEqual([204, 'board']);
    expect((await worker.call('POST', `${ticketPath(s2, onPaused.id)}/claim`, {})).body.error).toMatchObject({ code: 'DISPATCH_PAUSED', details: { scope: 'board' } });

    await s2.org.call('PATCH', `/api/v1/boards/${s2.boardId}`, { body: { dispatchPaused: false } });
    const taken = await worker.call('POST', '/api/v1/claims/next', {});
    expect(taken.body.ticket.id).toBe(onPaused.id);
    // Nothing ready anywhere now: a plain 204.
    const empty = await worker.call('POST', '/api/v1/claims/next', {});
    expect([empty.status, empty.headers.get('x-dispatch-paused')]).toEqual([204, null]);
  });

  it('is thrown only by agents:manage, and the board only by boards:edit', async () => {
    const member = await createMember(s.org, { role: 'TEAM_MEMBER' });
    expect((await api(member.token, s, 'PUT', '/api/v1/organization/dispatch', { paused: true })).status).toBe(403);
    expect((await api(member.token, s, 'PATCH', `/api/v1/boards/${s.boardId}`, { dispatchPaused: true })).status).toBe(403);
    expect((await s.org.call('GET', '/api/v1/organization')).body.dispatch.paused).toBe(false);
    expect((await s.org.call('PUT', '/api/v1/organization/dispatch', { body: { paused: 'yes' } })).status).toBe(400);
  });
});

/** A request with another caller's token. */
async function api(token: string, s: BoardSetup, method: string, path: string, body?: unknown) {
  const { api: call } = await import('../support/api.js');
  return call(method, path, { token, org: s.org.slug, body });
}

describe('quarantine of tickets whose leases keep lapsing', () => {
  let s: BoardSetup;
  let agent: TestAgent;
  beforeAll(async () => {
    s = await proBoard('Quarantine');
    agent = await boardAgent(s);
  });

  /** The agent takes the ticket and its lease lapses; `sweep` clears it as the schedule would (else it stays for a takeover). */
  async function lapse(ticketId: string, sweep = true) {
    const taken = await agent.call('POST', `${ticketPath(s, ticketId)}/claim`, {});
    expect(taken.status).toBe(201);
    await lapseClaim(ticketId);
    if (sweep) await runSweep(systemClock, { orgId: s.org.orgId });
  }

  it('quarantines after three lapses in a row: out of the queue, listed, refused by name, returned by a person', async () => {
    const ticket = await work(s, s.boardId, { priority: 'critical' });
    const path = ticketPath(s, ticket.id);
    await lapse(ticket.id);
    await lapse(ticket.id);
    expect((await s.org.call('GET', path)).body.data.quarantine).toBeNull();
    await lapse(ticket.id);
    const quarantined = (await s.org.call('GET', path)).body.data;
    expect(quarantined).toMatchObject({ quarantine: { lapses: 3, since: expect.any(String) }, isReady: false, claim: null });

    // Claim-next passes it by; a named claim is refused; the ready list leaves it out; the quarantine list has it.
    const next = await agent.call('POST', '/api/v1/claims/next', {});
    expect(next.status).toBe(204);
    const named = await agent.call('POST', `${path}/claim`, {});
    expect(named.body.error).toMatchObject({ code: 'TICKET_QUARANTINED', details: { lapses: 3 } });
    expect((await s.org.call('POST', `${path}/claim`, { body: {} })).status).toBe(409);
    expect((await s.org.call('GET', '/api/v1/issues?ready=true')).body.data.map((t: { id: string }) => t.id)).not.toContain(ticket.id);
    const listed = await s.org.call('GET', '/api/v1/issues?quarantined=true');
    expect(listed.body.data.map((t: { id: string }) => t.id)).toEqual([ticket.id]);
    expect(listed.body.total).toBe(1);
    const event = (await dispatchedEventsOf(s.org.orgId, ticket.id, 10)).find((recorded) => recorded.type === 'ticket.quarantined');
    expect(event?.data).toMatchObject({ ticketId: ticket.id, boardId: s.boardId, lapses: 3 });

    // An agent may not lift it; a person does, and the ticket is ready work again with its run reset.
    expect((await agent.call('DELETE', `${path}/quarantine`)).status).toBe(403);
    expect((await s.org.call('DELETE', `${path}/quarantine`)).status).toBe(204);
    expect((await s.org.call('DELETE', `${path}/quarantine`)).status).toBe(204);
    const lifted = (await s.org.call('GET', path)).body.data;
    expect([lifted.quarantine, lifted.isReady]).toEqual([null, true]);
    expect((await s.org.call('GET', '/api/v1/issues?quarantined=true')).body.data).toEqual([]);
    const timeline = (await s.org.call('GET', `${path}/timeline?limit=100`)).body.data as { kind: string; details: Record<string, unknown> }[];
    expect(timeline.filter((entry) => ['QUARANTINED', 'QUARANTINE_LIFTED'].includes(entry.kind)).map((entry) => [entry.kind, entry.details.lapses])).toEqual([
      ['QUARANTINED', 3],
      ['QUARANTINE_LIFTED', 3],
    ]);
    const taken = await agent.call('POST', '/api/v1/claims/next', {});
    expect(taken.body.ticket.id).toBe(ticket.id);
    await agent.call('DELETE', `${path}/claim`, {});
  });

  it('counts lapses in a row only: a release starts the run again, a stopped lease does not count', async () => {
    const ticket = await work(s);
    const path = ticketPath(s, ticket.id);
    await lapse(ticket.id);
    await lapse(ticket.id);
    await agent.call('POST', `${path}/claim`, {});
    expect((await agent.call('DELETE', `${path}/claim`, {})).status).toBe(200);
    await lapse(ticket.id);
    await lapse(ticket.id);
    // A third lapse, but after a stop: the person's doing, not the ticket's.
    await agent.call('POST', `${path}/claim`, {});
    await s.org.call('POST', `${path}/claim/directive`, { body: { action: 'stop' } });
    await lapseClaim(ticket.id);
    await runSweep(systemClock, { orgId: s.org.orgId });
    expect((await s.org.call('GET', path)).body.data.quarantine).toBeNull();
  });

  it('quarantines on a takeover of the lapsed lease too, and never with the policy at 0', async () => {
    const ticket = await work(s);
    const path = ticketPath(s, ticket.id);
    await lapse(ticket.id);
    await lapse(ticket.id);
    await lapse(ticket.id, false);
    const other = await boardAgent(s);
    const refused = await other.call('POST', `${path}/claim`, {});
    expect(refused.body.error.code).toBe('TICKET_QUARANTINED');
    expect((await s.org.call('GET', path)).body.data).toMatchObject({ claim: null, quarantine: { lapses: 3 } });
    // The first agent's slot was freed with the lapse.
    expect((await s.org.call('GET', `/api/v1/issues?claimedBy=${agent.id}`)).body.data).toEqual([]);

    const policies = `/api/v1/organizations/${s.org.orgId}/agents/policies`;
    expect((await s.org.call('PATCH', policies, { body: { quarantineAfterLapses: 0 } })).body.quarantineAfterLapses).toBe(0);
    const free = await work(s);
    for (let times = 0; times < 4; times += 1) await lapse(free.id);
    expect((await s.org.call('GET', ticketPath(s, free.id))).body.data.quarantine).toBeNull();
    await s.org.call('PATCH', policies, { body: { quarantineAfterLapses: 3 } });
    await s.org.call('DELETE', `${path}/quarantine`);
  });
});

describe('spend, exact, with budgets', () => {
  let s: BoardSetup;
  let agent: TestAgent;
  beforeAll(async () => {
    s = await proBoard('Spend');
    agent = await boardAgent(s);
  });

  const report = (ticketId: string, costMicros: number, extra: Record<string, unknown> = {}) =>
    agent.call('POST', `${ticketPath(s, ticketId)}/reports`, { outcome: 'partial', summary: 'A run', usage: { model: 'claude-x', inputTokens: 1000, outputTokens: 200, costMicros }, ...extra });

  it('sums every report and heartbeat exactly, racing reports included, on the ticket, per agent and in /spend', async () => {
    const ticket = await work(s);
    const path = ticketPath(s, ticket.id);
    await agent.call('POST', `${path}/claim`, {});
    const reports = await Promise.all([report(ticket.id, 1_250_000), report(ticket.id, 750_001), report(ticket.id, 3)]);
    expect(reports.map((answer) => answer.status)).toEqual([201, 201, 201]);
    expect(reports[0]!.body).toMatchObject({ ticketId: ticket.id, outcome: 'partial', statusChanged: false, claimReleased: false });
    const beat = await agent.call('POST', `${path}/claim/heartbeat`, { usage: { inputTokens: 10, costMicros: 100 } });
    expect(beat.status).toBe(200);

    const full = (await s.org.call('GET', path)).body.data;
    expect(full.spend).toEqual({ costMicros: 2_000_104, inputTokens: 3_010, outputTokens: 600, runs: 3 });
    const today = new Date().toISOString().slice(0, 10);
    for (const groupBy of ['agent', 'board', 'milestone', 'day']) {
      const spend = await s.org.call('GET', `/api/v1/spend?groupBy=${groupBy}&from=${today}&to=${today}`);
      expect(spend.status).toBe(200);
      expect(spend.body.totals).toEqual({ costMicros: 2_000_104, inputTokens: 3_010, outputTokens: 600, runs: 3 });
      expect(spend.body.total).toBe(1);
    }
    const byAgent = (await s.org.call('GET', `/api/v1/spend?groupBy=agent&from=${today}&to=${today}`)).body.data;
    expect(byAgent).toEqual([expect.objectContaining({ id: agent.id, name: 'Worker', costMicros: 2_000_104, runs: 3 })]);
    const overview = (await s.org.call('GET', `/api/v1/organizations/${s.org.orgId}/agents/overview`)).body;
    expect(overview.agents.find((entry: { id: string }) => entry.id === agent.id).spendLast7DaysMicros).toBe(2_000_104);
    // The report is in the timeline with its usage.
    const timeline = (await s.org.call('GET', `${path}/timeline?limit=100`)).body.data as { kind: string; details: Record<string, any> }[];
    expect(timeline.filter((entry) => entry.kind === 'REPORTED').map((entry) => entry.details.usage.costMicros).sort()).toEqual([1_250_000, 3, 750_001].sort());
    await agent.call('DELETE', `${path}/claim`, {});
  });

  it('refuses bad usage and reports without a lease, changing nothing; /spend needs agents:manage', async () => {
    const ticket = await work(s);
    expect((await report(ticket.id, 10)).body.error.code).toBe('CLAIM_NOT_HELD');
    await agent.call('POST', `${ticketPath(s, ticket.id)}/claim`, {});
    expect((await report(ticket.id, -1)).status).toBe(400);
    expect((await report(ticket.id, 1.5)).status).toBe(400);
    expect((await agent.call('POST', `${ticketPath(s, ticket.id)}/reports`, { outcome: 'partial', summary: 'x', usage: { costMicros: 1, dollars: 2 } })).status).toBe(400);
    expect((await s.org.call('GET', ticketPath(s, ticket.id))).body.data.spend).toEqual({ costMicros: 0, inputTokens: 0, outputTokens: 0, runs: 0 });
    expect((await agent.call('GET', '/api/v1/spend?groupBy=agent&from=2026-01-01&to=2026-01-31')).status).toBe(403);
    expect((await s.org.call('GET', '/api/v1/spend?groupBy=agent&from=2026-02-01&to=2026-01-31')).status).toBe(400);
    await agent.call('DELETE', `${ticketPath(s, ticket.id)}/claim`, {});
  });

  it("warns once at 80 % of a board's budget and stops new work on it at 100 %, leaving the lease held to finish", async () => {
    const s2 = await proBoard('Budget');
    const other = await createBoard(s2.org, { name: 'Unbudgeted' });
    const worker = await boardAgent(s2, {}, [s2.boardId, other.id]);
    expect((await s2.org.call('PATCH', `/api/v1/boards/${s2.boardId}`, { body: { monthlyBudgetMicros: 1_000_000 } })).body.monthlyBudgetMicros).toBe(1_000_000);
    const held = await work(s2);
    const waiting = await work(s2);
    const path = ticketPath(s2, held.id);
    await worker.call('POST', `${path}/claim`, {});
    const spend = (costMicros: number) => worker.call('POST', `${path}/reports`, { outcome: 'partial', summary: 'run', usage: { costMicros } });
    expect((await spend(500_000)).status).toBe(201);
    await Promise.all([spend(200_000), spend(150_000)]);
    // 850,000 of 1,000,000: one warning, whichever report crossed the line.
    const warnings = await dispatchedEventsOf(s2.org.orgId, `budget:board:${s2.boardId}`, 1);
    expect(warnings.map((event) => event.data)).toEqual([expect.objectContaining({ scope: 'board', id: s2.boardId, budgetMicros: 1_000_000, spentMicros: expect.any(Number) })]);
    expect(warnings[0]!.data.spentMicros).toBeGreaterThanOrEqual(800_000);
    expect((await spend(150_000)).status).toBe(201);
    expect(await dispatchedEventsOf(s2.org.orgId, `budget:board:${s2.boardId}`, 1)).toHaveLength(1);

    // Spent: the board's work is passed over, a named claim refused; the lease held goes on.
    const next = await worker.call('POST', '/api/v1/claims/next', {});
    expect([next.status, next.headers.get('x-dispatch-paused')]).toEqual([204, 'budget']);
    const named = await worker.call('POST', `${ticketPath(s2, waiting.id)}/claim`, {});
    expect([named.status, named.body.error.code, named.body.error.details]).toEqual([403, 'BUDGET_EXHAUSTED', { scope: 'board', id: s2.boardId, spentMicros: 1_000_000, budgetMicros: 1_000_000 }]);
    expect((await worker.call('POST', `${path}/claim/heartbeat`, {})).status).toBe(200);
    const elsewhere = await work(s2, other.id);
    expect((await worker.call('POST', '/api/v1/claims/next', {})).body.ticket.id).toBe(elsewhere.id);
    // Raising the budget lets work through again.
    await s2.org.call('PATCH', `/api/v1/boards/${s2.boardId}`, { body: { monthlyBudgetMicros: null } });
    expect((await worker.call('POST', `${ticketPath(s2, waiting.id)}/claim`, {})).status).toBe(201);
  });

  it("stops an agent whose own month budget is spent: 204 budget, and only an agents:manage holder changes it", async () => {
    const s3 = await proBoard('Agent budget');
    const owner = await createMemberWith(s3.org, ['wiki:view'], { boardIds: [s3.boardId] });
    const worker = await boardAgent(s3, { ownerId: owner.id });
    const agents = `/api/v1/organizations/${s3.org.orgId}/agents`;
    expect((await s3.org.call('PATCH', `${agents}/${worker.id}`, { body: { monthlyBudgetMicros: 100 } })).body.monthlyBudgetMicros).toBe(100);
    // The owner may pause its agent, not raise its budget.
    expect((await api(owner.token, s3, 'PATCH', `${agents}/${worker.id}`, { monthlyBudgetMicros: 1_000_000 })).status).toBe(403);
    const ticket = await work(s3);
    await worker.call('POST', `${ticketPath(s3, ticket.id)}/claim`, {});
    await worker.call('POST', `${ticketPath(s3, ticket.id)}/reports`, { outcome: 'partial', summary: 'run', usage: { costMicros: 100 }, releaseClaim: true });
    await work(s3);
    const next = await worker.call('POST', '/api/v1/claims/next', {});
    expect([next.status, next.headers.get('x-dispatch-paused')]).toEqual([204, 'budget']);
    expect((await worker.call('POST', `${ticketPath(s3, ticket.id)}/claim`, {})).body.error).toMatchObject({ code: 'BUDGET_EXHAUSTED', details: { scope: 'agent', id: worker.id } });
  });
});

describe('every write attributed', () => {
  it("names the agent, its owner, its client and the lease on an agent's timeline entries and events; a person's stay plain", async () => {
    const s = await proBoard('Attribution');
    const owner = await createMemberWith(s.org, ['wiki:view'], { boardIds: [s.boardId] });
    const agent = await boardAgent(s, { ownerId: owner.id });
    const ticket = await work(s);
    const path = ticketPath(s, ticket.id);
    const claimCount = (await agent.call('POST', `${path}/claim`, {})).body.claim.claimCount as number;
    const { api: call } = await import('../support/api.js');
    const fenced = await call('PATCH', `${path}/status`, { token: agent.token, org: s.org.slug, body: { statusId: s.statuses.IN_REVIEW.id }, headers: { 'x-claim-count': String(claimCount) } });
    expect(fenced.status).toBe(200);
    expect((await agent.call('POST', `${path}/comments`, { content: 'Progress' })).status).toBe(201);
    expect((await s.org.call('PATCH', path, { body: { priority: 'low' } })).status).toBe(200);

    const actor = { id: agent.id, name: 'Worker', isAgent: true, ownerId: owner.id, client: 'loop-cli' };
    const timeline = (await s.org.call('GET', `${path}/timeline?limit=100`)).body.data as { kind: string; actor: any; claimCount?: number }[];
    const claimed = timeline.find((entry) => entry.kind === 'CLAIMED')!;
    expect([claimed.actor, claimed.claimCount]).toEqual([actor, undefined]);
    // The fenced change names its lease.
    expect(timeline.filter((entry) => entry.claimCount === claimCount).map((entry) => entry.actor)).toEqual(expect.arrayContaining([actor]));
    // A person's entries name the person only, as ever.
    expect(timeline.filter((entry) => entry.actor?.id === s.org.adminId).map((entry) => Object.keys(entry.actor).sort())).toEqual(
      timeline.filter((entry) => entry.actor?.id === s.org.adminId).map(() => ['id', 'name']),
    );
    const events = await dispatchedEventsOf(s.org.orgId, ticket.id, 5);
    // The fenced change names its lease; the person's change names no actor. Beside the event's data,
    // which keeps exactly its documented fields (webhooks deliver it so).
    const attributed = (event: { attribution?: unknown }) => event.attribution as { actor: unknown; claimCount?: number } | undefined;
    expect(attributed(events.find((event) => event.type === 'ticket.status_changed')!)).toEqual({ actor, claimCount });
    const personal = events.filter((event) => event.type === 'ticket.updated' && event.data.actorId === s.org.adminId);
    expect(personal.length).toBeGreaterThan(0);
    expect(personal.map(attributed)).toEqual(personal.map(() => undefined));
    expect(events.every((event) => !('actor' in event.data))).toBe(true);
    expect(attributed(events.find((event) => event.type === 'comment.created')!)).toEqual({ actor });
    expect(attributed(events.find((event) => event.type === 'ticket.claimed')!)).toEqual({ actor });
  });
});
