import { beforeAll, describe, expect, it } from 'vitest';
import { setPlan, type ApiResponse } from '../support/api.js';
import { boardSetup, lapseClaim, type BoardSetup } from '../support/tickets.js';
import { createAgent, createBoard, type TestAgent } from '../support/factories.js';
import { db } from '../../lib/db/service.js';
import { seedBoard } from '../bench/seed.js';
import type { HandoffItem, TicketItem, TimelineEntryItem } from '../../lib/db/entities/index.js';

/**
 * A fleet of agents on one backlog, through the real HTTP interface on DynamoDB Local: 16 agents
 * (concurrent-claim limits 1 to 3, one worker per slot) loop claim-next → heartbeat with a note
 * → finish (DONE), hand over (release with a handoff) or crash (the lease is left to lapse), over
 * 320 ready tickets on three boards with dependency chains and fan-in. Afterwards the tickets'
 * timelines, claims and handoffs are read back and every promise is checked: one holder at a
 * time, never claimed before its blockers were FINAL, no agent over its limit, no conflict from
 * claim-next, an automatic handoff for every lapse, claim counts rising one by one. Fleet control
 * runs under the same load (docs/fleet-control.md): one lease is paused, resumed and stopped by a
 * person and its agent obeys; the organization's breaker is thrown and lifted with no ticket lost;
 * a ticket every agent crashes on is quarantined after three lapses and returned; the spend
 * reported (heartbeats, and two reports racing on one lease) adds up exactly.
 */
const AGENTS = 16;
const CHAINS = 40; // of 4 tickets: each waits for the one before
const CHAIN_LENGTH = 4;
const FAN_INS = 20; // a ticket waiting for 5 others
const FAN_IN_WIDTH = 5;
const INDEPENDENT = 40;
const LAPSES = 24;

interface Claimed {
  ticketId: string;
  agentId: string;
  claimCount: number;
  handoff: { id: string; auto: boolean; summary: string | null; lastNote: string | null } | null;
}

let s: BoardSetup;
let boards: string[];
let agents: (TestAgent & { limit: number })[];
/** An independent ticket every agent crashes on, until it has been quarantined (after three lapses in a row) and returned. */
let poison: string;
/** Ticket id → its board and the tickets it waits for. */
const tickets = new Map<string, { boardId: string; blockers: string[] }>();

const ticketPath = (ticketId: string) => `/api/v1/boards/${tickets.get(ticketId)!.boardId}/tickets/${ticketId}`;

/** Runs `work` over `items`, `width` at a time. */
async function inParallel<T, R>(items: T[], width: number, work: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]!, index);
    }
  }));
  return results;
}

beforeAll(async () => {
  s = await boardSetup('Fleet', 'FLT');
  await setPlan(s.org.slug, 'PRO');
  // Agents may finish work themselves here (by default, moving into DONE needs a person's approval).
  const policies = await s.org.call('PATCH', `/api/v1/organizations/${s.org.orgId}/agents/policies`, { body: { statusTransitionsRequireApproval: [] } });
  if (policies.status !== 200) throw new Error(`policies: ${policies.status} ${JSON.stringify(policies.body)}`);
  const prefixes = [s.prefix, 'FLB', 'FLC'];
  boards = [s.boardId, (await createBoard(s.org, { name: 'Fleet two', prefix: prefixes[1] })).id, (await createBoard(s.org, { name: 'Fleet three', prefix: prefixes[2] })).id];
  const total = CHAINS * CHAIN_LENGTH + FAN_INS * (FAN_IN_WIDTH + 1) + INDEPENDENT;
  // The backlog is written in batches as the write path shapes tickets (the claims are under test, not the creates):
  // ticket `index` is on board index % 3, In Progress, unassigned, of every priority.
  const typeId = (await s.org.call('GET', '/api/v1/ticket-types')).body.data[0].id as string;
  const vocabulary = { activeStatusIds: [s.statuses.IN_PROGRESS.id as string], typeId, assignee: { id: s.org.adminId, name: 'Unused' }, createdById: s.org.adminId };
  const onBoard = await Promise.all(boards.map(async (boardId, board) => {
    await seedBoard({ orgId: s.org.orgId, boardId, prefix: prefixes[board]! }, vocabulary, Math.ceil((total - board) / boards.length), 1, { assignEvery: Number.MAX_SAFE_INTEGER, searchIndex: false });
    const { data } = await db().entities.ticket.query.byBoard({ orgId: s.org.orgId, boardId }).go({ pages: 'all' });
    return (data as TicketItem[]).sort((a, b) => a.number - b.number).map((ticket) => ticket.ticketId);
  }));
  const created = Array.from({ length: total }, (_, index) => onBoard[index % boards.length]![Math.floor(index / boards.length)]!);
  for (const [index, ticketId] of created.entries()) tickets.set(ticketId, { boardId: boards[index % boards.length]!, blockers: [] });
  poison = created[created.length - 1]!;
  // Step by step across the chains and source by source across the fan-ins, so the edges added
  // at the same time touch different tickets (edges of one chain or fan-in would contend).
  const edges: [string, string][] = [];
  const fansFrom = CHAINS * CHAIN_LENGTH;
  for (let step = 1; step < CHAIN_LENGTH; step += 1) {
    for (let chain = 0; chain < CHAINS; chain += 1) edges.push([created[chain * CHAIN_LENGTH + step]!, created[chain * CHAIN_LENGTH + step - 1]!]);
  }
  for (let source = 1; source <= FAN_IN_WIDTH; source += 1) {
    for (let fan = 0; fan < FAN_INS; fan += 1) edges.push([created[fansFrom + fan * (FAN_IN_WIDTH + 1)]!, created[fansFrom + fan * (FAN_IN_WIDTH + 1) + source]!]);
  }
  await inParallel(edges, 8, async ([ticketId, blockerId]) => {
    const answer = await s.org.call('PUT', `${ticketPath(ticketId)}/dependencies/${blockerId}`);
    if (answer.status !== 200) throw new Error(`dependency: ${answer.status} ${JSON.stringify(answer.body)}`);
    tickets.get(ticketId)!.blockers.push(blockerId);
  });
  agents = await inParallel(Array.from({ length: AGENTS }, (_, index) => index), 4, async (index) => {
    const limit = (index % 3) + 1;
    return { ...(await createAgent(s.org, { agent: { name: `Fleet agent ${index}` }, settings: { maxConcurrentClaims: limit }, boardIds: boards })), limit };
  });
}, 180_000);

describe('a fleet of 16 agents on one backlog of 320 tickets', () => {
  it('finishes every ticket, one holder at a time, in dependency order, within every limit, without a conflict', async () => {
    const unexpected: string[] = [];
    const claims: Claimed[] = [];
    /**
     * When each agent surely held each lease: from the claim's answer (its write had committed) to
     * the moment the agent let go (a release or finish sent, or the lease made to lapse). The
     * service's own timestamps are read from its clock before the write commits, so two requests
     * racing for a slot can record times that overlap although their writes did not.
     */
    const holds: { agentId: string; from: number; to: number }[] = [];
    /** What the next holder of a ticket should be handed: the summary of a release, or the note of a lapsed lease. */
    const expectedHandoff = new Map<string, { auto: boolean; text: string }>();
    const done = new Set<string>();
    let lapses = 0;
    let releases = 0;
    let empty = 0;
    /** Fleet control under load (docs/fleet-control.md): answers held back by the breaker, quarantines lifted, usage reported. */
    let pausedAnswers = 0;
    let lifted = 0;
    let spent = 0;
    let poisonLapses = 0;
    /** Two reports with usage sent at once on one lease, both counted. */
    let racedReports = false;
    /**
     * Directives mid-run: one lease of agent 0 (slot 0), taken once the fleet is busy, works in
     * 100 ms heartbeats; a person pauses it, resumes it, then stops it, and the agent obeys each
     * as the heartbeat tells it (examples/agent-loop.mjs does the same).
     */
    const steering = { ticketId: undefined as string | undefined, pausedSeen: false, resumedSeen: false, stopObeyed: false, sent: [] as string[] };
    const deadline = Date.now() + 200_000;
    const note = (answer: ApiResponse, what: string) => unexpected.push(`${what}: ${answer.status} ${JSON.stringify(answer.body)}`);

    const worker = async (agent: TestAgent & { limit: number }, slot: number) => {
      let turn = 0;
      let idle = 0;
      while (done.size < tickets.size && Date.now() < deadline) {
        turn += 1;
        const next = await agent.call('POST', '/api/v1/claims/next', { leaseSeconds: 900 });
        if (next.status === 204) {
          if (next.headers.get('x-dispatch-paused') === 'organization') pausedAnswers += 1;
          // Nothing ready: wait longer each time, as a real worker would (up to a second, jittered), so
          // thirty-six idle workers do not load the runtime while dependency chains hold the rest.
          empty += 1;
          idle += 1;
          await new Promise((resolve) => setTimeout(resolve, Math.min(1000, 100 * 2 ** idle) * (0.5 + Math.random())));
          continue;
        }
        idle = 0;
        if (next.status !== 201) {
          note(next, `claim-next by ${agent.id}`);
          await new Promise((resolve) => setTimeout(resolve, 150));
          continue;
        }
        const heldFrom = Date.now();
        const ticketId = next.body.ticket.id as string;
        const claimCount = next.body.claim.claimCount as number;
        claims.push({ ticketId, agentId: agent.id, claimCount, handoff: next.body.handoff });
        const wanted = expectedHandoff.get(ticketId);
        if (wanted) {
          const handoff = next.body.handoff;
          const text = wanted.auto ? handoff?.lastNote : handoff?.summary;
          if (!handoff || handoff.auto !== wanted.auto || text !== wanted.text) unexpected.push(`handoff of ${ticketId}: wanted ${JSON.stringify(wanted)}, got ${JSON.stringify(handoff)}`);
          expectedHandoff.delete(ticketId);
        }
        const fence = { 'x-claim-count': String(claimCount) };
        const progress = `${agent.id} slot ${slot} turn ${turn}: halfway`;
        const costMicros = 1 + Math.floor(Math.random() * 1000);
        const beat = await agent.call('POST', `${ticketPath(ticketId)}/claim/heartbeat`, { note: progress, usage: { costMicros, inputTokens: 10 } });
        if (beat.status === 200) spent += costMicros;
        else note(beat, 'heartbeat');
        if (agent === agents[0] && slot === 0 && steering.ticketId === undefined && Date.now() - started > 1_000) {
          steering.ticketId = ticketId;
          for (let beats = 0; beats < 300 && !steering.stopObeyed; beats += 1) {
            await new Promise((resolve) => setTimeout(resolve, 100));
            const steered = await agent.call('POST', `${ticketPath(ticketId)}/claim/heartbeat`, { note: progress });
            if (steered.status !== 200) {
              note(steered, 'steered heartbeat');
              break;
            }
            const directive = steered.body.directive as { action: string; message: string | null } | null;
            if (directive?.action === 'pause') steering.pausedSeen = true;
            if (directive?.action === 'resume' && steering.pausedSeen) steering.resumedSeen = true;
            if (directive?.action === 'stop') {
              // Stopped: hand the work back at once, saying why.
              const summary = `Stopped: ${directive.message}`;
              releases += 1;
              expectedHandoff.set(ticketId, { auto: false, text: summary });
              holds.push({ agentId: agent.id, from: heldFrom, to: Date.now() });
              const released = await fetchWith(agent, 'DELETE', `${ticketPath(ticketId)}/claim`, { handoff: { summary } }, fence);
              if (released.status === 200) steering.stopObeyed = true;
              else note(released, 'release on stop');
            }
          }
          if (steering.stopObeyed) continue;
        }
        if (ticketId === poison && poisonLapses < 3) {
          // Every agent crashes on this one, until a person has looked at it.
          poisonLapses += 1;
          lapses += 1;
          expectedHandoff.set(ticketId, { auto: true, text: progress });
          holds.push({ agentId: agent.id, from: heldFrom, to: Date.now() });
          await lapseClaim(ticketId);
          continue;
        }
        if (!racedReports && Date.now() - started > 2_000) {
          racedReports = true;
          const report = (costMicros: number) => fetchWith(agent, 'POST', `${ticketPath(ticketId)}/reports`, { outcome: 'partial', summary: 'a run', usage: { costMicros, outputTokens: 5 } }, fence);
          const [first, second] = await Promise.all([report(70_001), report(29_999)]);
          for (const [answer, costMicros] of [[first!, 70_001], [second!, 29_999]] as const) {
            if (answer.status === 201) spent += costMicros;
            else note(answer, 'racing report');
          }
        }
        const roll = Math.random();
        holds.push({ agentId: agent.id, from: heldFrom, to: Date.now() });
        if (roll < 0.1 && lapses < LAPSES) {
          // The agent crashes: its lease runs out with nobody releasing it.
          lapses += 1;
          expectedHandoff.set(ticketId, { auto: true, text: progress });
          await lapseClaim(ticketId);
          continue;
        }
        if (roll < 0.25) {
          releases += 1;
          const summary = `${agent.id} handed over after turn ${turn}`;
          expectedHandoff.set(ticketId, { auto: false, text: summary });
          const released = await fetchWith(agent, 'DELETE', `${ticketPath(ticketId)}/claim`, { handoff: { summary, nextSteps: 'finish it' } }, fence);
          if (released.status !== 200) {
            expectedHandoff.delete(ticketId);
            note(released, 'release');
          }
          continue;
        }
        const finished = await fetchWith(agent, 'PATCH', `${ticketPath(ticketId)}/status`, { statusId: s.statuses.DONE.id }, fence);
        if (finished.status === 200) done.add(ticketId);
        else note(finished, 'finish');
      }
    };
    /**
     * A person watching the fleet: returns every quarantined ticket to the queue (the random lapses
     * can hit one ticket three times in a row), and throws the organization's breaker for 1.5 s
     * once the fleet is busy, then lifts it: no ticket may be lost from the queue by either.
     */
    let breaker: 'closed' | 'thrown' | 'lifted' = 'closed';
    const supervisor = async () => {
      let thrownAt = 0;
      while (done.size < tickets.size && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 300));
        const quarantined = await s.org.call('GET', '/api/v1/issues?quarantined=true&limit=100');
        for (const ticket of quarantined.body.data ?? []) {
          const returned = await s.org.call('DELETE', `${ticketPath(ticket.id)}/quarantine`);
          if (returned.status === 204) lifted += 1;
          else note(returned, 'lift quarantine');
        }
        // Steer the lease agent 0 is working on: pause, then resume once it paused, then stop once it resumed.
        const steer = async (action: string, message?: string) => {
          steering.sent.push(action);
          const answer = await s.org.call('POST', `${ticketPath(steering.ticketId!)}/claim/directive`, { body: { action, ...(message ? { message } : {}) } });
          if (answer.status !== 200) note(answer, `directive ${action}`);
        };
        if (steering.ticketId && !steering.sent.includes('pause')) await steer('pause', 'hold on');
        else if (steering.pausedSeen && !steering.sent.includes('resume')) await steer('resume');
        else if (steering.resumedSeen && !steering.sent.includes('stop')) await steer('stop', 'wrong ticket');
        if (breaker === 'closed' && Date.now() - started > 3_000) {
          const thrown = await s.org.call('PUT', '/api/v1/organization/dispatch', { body: { paused: true, reason: 'fleet test' } });
          if (thrown.status !== 200) note(thrown, 'throw the breaker');
          [breaker, thrownAt] = ['thrown', Date.now()];
        } else if (breaker === 'thrown' && Date.now() - thrownAt > 1_500) {
          const liftedBreaker = await s.org.call('PUT', '/api/v1/organization/dispatch', { body: { paused: false } });
          if (liftedBreaker.status !== 200) note(liftedBreaker, 'lift the breaker');
          breaker = 'lifted';
        }
      }
    };
    const started = Date.now();
    await Promise.all([supervisor(), ...agents.flatMap((agent) => Array.from({ length: agent.limit }, (_, slot) => worker(agent, slot)))]);
    const seconds = (Date.now() - started) / 1000;
    console.log(
      `fleet: ${claims.length} claims (${lapses} lapses, ${releases} handovers, ${empty} empty answers, ${pausedAnswers} held back by the breaker, ${lifted} quarantines lifted) of ${tickets.size} tickets in ${seconds.toFixed(1)} s: ${(claims.length / seconds).toFixed(1)} claims/s`,
    );

    expect(unexpected.slice(0, 5), unexpected.slice(0, 5).join("\n")).toEqual([]);
    // The breaker was thrown under load and held agents back, and lifting it lost no ticket.
    expect(breaker).toBe('lifted');
    expect(pausedAnswers).toBeGreaterThan(0);
    expect(done.size).toBe(tickets.size);
    // A lease paused, resumed and stopped mid-run, each heard through the heartbeat, and the stop obeyed.
    expect(steering).toMatchObject({ pausedSeen: true, resumedSeen: true, stopObeyed: true, sent: ['pause', 'resume', 'stop'] });
    // The ticket every agent crashed on: quarantined after its third lapse in a row, returned by the person, then done.
    expect(poisonLapses).toBe(3);
    expect(racedReports).toBe(true);

    // Read back what the service recorded.
    const ids = [...tickets.keys()];
    const [stored, timelines, handoffs] = await Promise.all([
      inParallel(ids, 8, async (ticketId) => (await db().entities.ticket.get({ ticketId }).go({ consistent: true })).data as TicketItem),
      inParallel(ids, 8, async (ticketId) => (await db().entities.timelineEntry.query.byTicket({ ticketId }).go({ pages: 'all', consistent: true })).data as TimelineEntryItem[]),
      inParallel(ids, 8, async (ticketId) => (await db().entities.handoff.query.byTicket({ ticketId }).go({ pages: 'all', consistent: true })).data as HandoffItem[]),
    ]);
    const timelineOf = new Map(ids.map((ticketId, index) => [ticketId, timelines[index]!]));
    const kindsOf = (ticketId: string) => timelineOf.get(ticketId)!.map((entry) => entry.kind);
    expect(kindsOf(poison)).toEqual(expect.arrayContaining(['QUARANTINED', 'QUARANTINE_LIFTED']));
    expect(kindsOf(steering.ticketId!).filter((kind) => kind === 'CLAIM_DIRECTIVE')).toHaveLength(3);
    // Spend: exactly the sum of the usage every heartbeat reported, on the tickets and in /spend.
    expect(stored.reduce((sum, ticket) => sum + (ticket.spendCostMicros ?? 0), 0)).toBe(spent);
    const today = new Date().toISOString().slice(0, 10);
    const byDay = await s.org.call('GET', `/api/v1/spend?groupBy=day&from=${new Date(started - 86_400_000).toISOString().slice(0, 10)}&to=${today}`);
    expect(byDay.body.totals.costMicros).toBe(spent);
    for (const ticket of stored) expect([ticket.ticketId, ticket.statusCategory, ticket.claimedById ?? null]).toEqual([ticket.ticketId, 'FINAL', null]);

    const intervals: { agentId: string; from: string; to: string }[] = [];
    let expired = 0;
    for (const [ticketId, entries] of timelineOf) {
      // Leases in order: each CLAIMED is ended (released or expired) before the next, and claim counts rise by one.
      let holder: { agentId: string; from: string } | undefined;
      let count = 0;
      for (const entry of entries) {
        const details = entry.details as Record<string, unknown>;
        if (entry.kind === 'CLAIMED') {
          expect(holder, `${ticketId}: claimed while held`).toBeUndefined();
          count += 1;
          expect(details.claimCount, `${ticketId}: claim counts`).toBe(count);
          holder = { agentId: details.claimedById as string, from: entry.createdAt };
        } else if (entry.kind === 'CLAIM_RELEASED' || entry.kind === 'CLAIM_EXPIRED') {
          expect(holder?.agentId, `${ticketId}: ${entry.kind} of the holder`).toBe(details.previousClaimedById);
          intervals.push({ agentId: holder!.agentId, from: holder!.from, to: entry.createdAt });
          holder = undefined;
          if (entry.kind === 'CLAIM_EXPIRED') expired += 1;
        }
      }
      expect(holder, `${ticketId}: a lease outlived the ticket`).toBeUndefined();
      // Never claimed before every ticket it waits for was FINAL.
      const firstClaim = entries.find((entry) => entry.kind === 'CLAIMED')!.createdAt;
      for (const blockerId of tickets.get(ticketId)!.blockers) {
        const finished = timelineOf.get(blockerId)!.find((entry) => entry.kind === 'STATUS_CHANGED' && (entry.details as { toStatusId?: string }).toStatusId === s.statuses.DONE.id);
        expect(finished, `${blockerId} finished`).toBeDefined();
        expect(firstClaim >= finished!.createdAt, `${ticketId} claimed at ${firstClaim}, before its blocker ${blockerId} finished at ${finished!.createdAt}`).toBe(true);
      }
    }
    expect(intervals.length).toBe(claims.length);
    // Every lapse ended as an expiry and left an automatic handoff; every handover left its own.
    expect(expired).toBe(lapses);
    const all = handoffs.flat();
    expect(all.filter((handoff) => handoff.auto)).toHaveLength(lapses);
    expect(all.filter((handoff) => !handoff.auto)).toHaveLength(releases);
    // No agent ever held more leases than its limit (ends sort before starts at the same instant),
    // and agents did hold several at once (the limit was tested, not idle).
    expect(holds.length).toBe(claims.length);
    let parallel = 0;
    for (const agent of agents) {
      const moments = holds
        .filter((interval) => interval.agentId === agent.id)
        .flatMap((interval) => [{ at: interval.from, delta: 1 }, { at: interval.to, delta: -1 }])
        .sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : a.delta - b.delta));
      let held = 0;
      let most = 0;
      for (const moment of moments) {
        held += moment.delta;
        most = Math.max(most, held);
      }
      expect(most, `${agent.id} (limit ${agent.limit})`).toBeLessThanOrEqual(agent.limit);
      if (most > 1) parallel += 1;
    }
    expect(parallel).toBeGreaterThan(0);
  }, 260_000);
});

describe('a single agent working a chain alone', () => {
  it('refuses to stop early: finishing a ticket and asking claim-next at once gets the ticket it unblocked, link after link of a 4-link chain', async () => {
    const board = (await createBoard(s.org, { name: 'Chain alone', prefix: 'CHN' })).id;
    const chain: string[] = [];
    for (let link = 0; link < 4; link += 1) {
      const created = await s.org.call('POST', `/api/v1/boards/${board}/tickets`, { body: { title: `Link ${link}`, statusId: s.statuses.IN_PROGRESS.id } });
      expect(created.status).toBe(201);
      if (link > 0) expect((await s.org.call('PUT', `/api/v1/boards/${board}/tickets/${created.body.data.id}/dependencies/${chain[link - 1]}`)).status).toBe(200);
      chain.push(created.body.data.id);
    }
    const agent = await createAgent(s.org, { agent: { name: 'Chain worker' }, boardIds: [board] });
    for (const [link, ticketId] of chain.entries()) {
      // No pause anywhere: the claim follows the previous link's finish at once.
      const claimed = await agent.call('POST', '/api/v1/claims/next', { boardIds: [board] });
      expect(claimed.status, `link ${link}: ${JSON.stringify(claimed.body)}`).toBe(201);
      expect(claimed.body.ticket.id).toBe(ticketId);
      const finished = await fetchWith(agent, 'PATCH', `/api/v1/boards/${board}/tickets/${ticketId}/status`, { statusId: s.statuses.DONE.id }, { 'x-claim-count': String(claimed.body.claim.claimCount) });
      expect(finished.status, JSON.stringify(finished.body)).toBe(200);
    }
    expect((await agent.call('POST', '/api/v1/claims/next', { boardIds: [board] })).status).toBe(204);
  }, 60_000);
});

/** A call with extra headers (the fence). */
async function fetchWith(agent: TestAgent, method: string, path: string, body: unknown, headers: Record<string, string>): Promise<ApiResponse> {
  const { api } = await import('../support/api.js');
  return api(method, path, { token: agent.token, org: s.org.slug, body, headers });
}
