/**
 * `npm run bench` (third part): claims and the agents overview over real HTTP against the
 * local runtime. One PRO organization with 25 agents (the maximum), each holding 2 live
 * claims, and 31 days of activity items (25 agents + the organization per day) as the write
 * paths keep them. Prints a table for the README; asserts nothing.
 */
import { countCalls, cpuSpent, stopCounting, ok, perUnit, type CallCounts, percentile, printTable, send, type Sample } from './http.js';
import { startLocalRuntime } from '../../infra/local/runtime.js';
import { db } from '../../lib/db/service.js';
import { dynamo } from '../../lib/db/client.js';
import { utcDaysBefore } from '../../lib/activity/activity.js';

const RUNS = Number(process.env.BENCH_AGENT_RUNS ?? 100);
const WARMUP = 5;
const AGENTS = 25;
const READY_BACKLOG = Number(process.env.BENCH_READY_BACKLOG ?? 300);
const FLEET_AGENTS = 16;
const FLEET_TICKETS = Number(process.env.BENCH_FLEET_TICKETS ?? 300);
const FLEET_ROUNDS = Number(process.env.BENCH_FLEET_ROUNDS ?? 2);

/** One way of taking a fleet board's work: the claims it took, the refusals, the wall time. */
interface FleetRun {
  label: string;
  samples: Sample[];
  refused: number;
  seconds: number;
  /** Seconds until the events function had also handled every change of the run. */
  drained: number;
  /** CPU ms spent during the run: the runtime's process (with the bench's clients) and DynamoDB Local. */
  cpu: { node: number; dynamo: number };
  /** The DynamoDB calls of the whole process during the run (the claims, the moves to DONE, the events function). */
  calls: CallCounts;
}

async function main(): Promise<void> {
  const runtime = await startLocalRuntime({ credentialRateLimit: 0, port: 0, exposeRoundTrips: true, logRequests: false, sweeperIntervalSeconds: 3600 });
  try {
    const base = runtime.baseUrl;
    const signup = await ok(send(base, 'POST', '/api/v1/auth/signup', {}, { organizationName: 'Agents', slug: 'bench-agents', name: 'Bench Admin', email: 'admin@bench-agents.test', password: 'bench password 1' }), 'signup');
    const orgId: string = signup.organization.id;
    const session = { authorization: `Bearer ${signup.token}`, 'x-organization': 'bench-agents' };
    await ok(send(base, 'PATCH', '/api/v1/platform/organizations/bench-agents', { authorization: `Bearer ${runtime.platformAdminToken}` }, { plan: 'PRO' }), 'plan');
    const board = await ok(send(base, 'POST', '/api/v1/boards', session, { name: 'Agent work', prefix: 'AGW' }), 'board');
    const statuses = (await ok(send(base, 'GET', '/api/v1/statuses', session), 'statuses')).data as any[];
    const inProgress = statuses.find((status) => status.key === 'IN_PROGRESS').id;
    const newTicket = async (title: string) => (await ok(send(base, 'POST', `/api/v1/boards/${board.id}/tickets`, session, { title, statusId: inProgress }), 'ticket')).data;

    const agents: { id: string; auth: Record<string, string> }[] = [];
    for (let index = 0; index < AGENTS; index += 1) {
      const agent = await ok(send(base, 'POST', `/api/v1/organizations/${orgId}/agents`, session, { name: `Agent ${String(index).padStart(2, '0')}` }), 'agent');
      await ok(send(base, 'POST', `/api/v1/boards/${board.id}/members`, session, { userId: agent.id }), 'member');
      const token = (await ok(send(base, 'POST', `/api/v1/organizations/${orgId}/agents/${agent.id}/tokens`, session, { name: 'bench' }), 'token')).token;
      const auth = { authorization: `Bearer ${token}`, 'x-organization': 'bench-agents' };
      agents.push({ id: agent.id, auth });
      for (let claim = 0; claim < 2; claim += 1) {
        const ticket = await newTicket(`Held ${index}.${claim}`);
        await ok(send(base, 'POST', `/api/v1/boards/${board.id}/tickets/${ticket.id}/claim`, auth, { leaseSeconds: 14400 }), 'claim');
      }
    }
    const now = new Date();
    for (let day = 0; day <= 30; day += 1) {
      const date = utcDaysBefore(now, day);
      await Promise.all([
        db().entities.activityDay.update({ orgId, day: date, subjectId: 'org' }).add({ ticketsClosed: 7, ticketsClosedByAgents: 3 }).go(),
        ...agents.map((agent) => db().entities.activityDay.update({ orgId, day: date, subjectId: agent.id }).add({ claimsExpired: 1, reportsDone: 2 }).go()),
      ]);
    }
    await runtime.drainStream();

    // The measured agent holds one claim less than its maximum (3): claim and release a free ticket in turn.
    const worker = agents[0]!;
    const free = await newTicket('Claimed in turn');
    const claimPath = `/api/v1/boards/${board.id}/tickets/${free.id}/claim`;
    const claimAndRelease = async (): Promise<[Sample, Sample]> => {
      const claim = await send(base, 'POST', claimPath, worker.auth, { leaseSeconds: 600 });
      const release = await send(base, 'DELETE', claimPath, worker.auth);
      return [claim, release];
    };
    const held = await newTicket('Held for heartbeats');
    const heldPath = `/api/v1/boards/${board.id}/tickets/${held.id}/claim`;
    await ok(send(base, 'POST', heldPath, session, { leaseSeconds: 600 }), 'claim held');

    const rows: [string, Sample[]][] = [];
    const measure = async (name: string, run: () => Promise<Sample>) => {
      for (let warm = 0; warm < WARMUP; warm += 1) await run();
      const samples: Sample[] = [];
      for (let index = 0; index < RUNS; index += 1) samples.push(await run());
      rows.push([name, samples]);
    };
    for (let warm = 0; warm < WARMUP; warm += 1) await claimAndRelease();
    const claims: Sample[] = [];
    const releases: Sample[] = [];
    for (let index = 0; index < RUNS; index += 1) {
      const [claim, release] = await claimAndRelease();
      claims.push(claim);
      releases.push(release);
    }
    rows.push(['POST …/claim (agent, new lease)', claims], ['DELETE …/claim (agent)', releases]);
    await measure('POST …/claim/heartbeat', () => send(base, 'POST', `${heldPath}/heartbeat`, session, { extendSeconds: 600 }));
    await measure(`GET …/agents/overview (${AGENTS} agents, ${AGENTS * 2} claims, 31 days)`, () => send(base, 'GET', `/api/v1/organizations/${orgId}/agents/overview`, session));
    await measure('GET /issues?claimable=true (board of 78)', () => send(base, 'GET', '/api/v1/issues?claimable=true&limit=20', worker.auth));

    // Claim-next over a backlog of ready work: the measured agent takes the first ready ticket and hands it back, in turn.
    const backlog = await ok(send(base, 'POST', '/api/v1/boards', session, { name: 'Ready backlog', prefix: 'RDB' }), 'backlog board');
    await ok(send(base, 'POST', `/api/v1/boards/${backlog.id}/members`, session, { userId: worker.id }), 'member');
    for (let index = 0; index < READY_BACKLOG; index += 1) {
      await ok(send(base, 'POST', `/api/v1/boards/${backlog.id}/tickets`, session, { title: `Ready ${index}`, statusId: inProgress, priority: index % 2 ? 'high' : 'medium' }), 'ready ticket');
    }
    await runtime.drainStream();
    let taken = '';
    await measure(`POST /claims/next (${READY_BACKLOG} ready tickets; a release between)`, async () => {
      if (taken) await send(base, 'DELETE', `/api/v1/boards/${backlog.id}/tickets/${taken}/claim`, worker.auth);
      const sample = await send(base, 'POST', '/api/v1/claims/next', worker.auth, { boardIds: [backlog.id], leaseSeconds: 600 });
      taken = (sample.body as { ticket?: { id: string } } | undefined)?.ticket?.id ?? '';
      return sample;
    });

    printTable(rows, `${RUNS} sequential requests per case after ${WARMUP} warm-up requests, local runtime + DynamoDB Local, Node ${process.version}`);
    for (const [name, samples] of rows.filter(([name]) => name.startsWith('POST /claims/next') || name.startsWith('POST …/claim ('))) {
      const sorted = samples.map((sample) => sample.ms).sort((a, b) => a - b);
      console.log(`${name}: p50 ${percentile(sorted, 50).toFixed(1)} ms, p99 ${percentile(sorted, 99).toFixed(1)} ms`);
    }

    // A fleet: 16 agents, one lease each, taking a board of FLEET_TICKETS ready tickets to DONE, two ways
    // side by side (issue 43's bar): claim-next, and a named claim of tickets dealt to each agent in advance.
    await ok(send(base, 'PATCH', `/api/v1/organizations/${orgId}/agents/policies`, session, { statusTransitionsRequireApproval: [] }), 'policies');
    const fleet = agents.slice(1, 1 + FLEET_AGENTS);
    const done = statuses.find((status) => status.key === 'DONE').id;
    const fleetBoard = async (name: string, prefix: string) => {
      const created = await ok(send(base, 'POST', '/api/v1/boards', session, { name, prefix }), 'fleet board');
      for (const agent of fleet) await ok(send(base, 'POST', `/api/v1/boards/${created.id}/members`, session, { userId: agent.id }), 'member');
      const ids: string[] = [];
      for (let index = 0; index < FLEET_TICKETS; index += 1) {
        ids.push((await ok(send(base, 'POST', `/api/v1/boards/${created.id}/tickets`, session, { title: `${name} ${index}`, statusId: inProgress }), 'fleet ticket')).data.id);
      }
      await runtime.drainStream();
      return { boardId: created.id as string, ticketIds: ids };
    };
    const race = async (label: string, take: (agent: (typeof fleet)[number], index: number) => Promise<Sample | null>): Promise<FleetRun> => {
      const samples: Sample[] = [];
      let refused = 0;
      const calls = countCalls(dynamo());
      const cpu = cpuSpent();
      const started = Date.now();
      await Promise.all(fleet.map(async (agent, index) => {
        for (;;) {
          const sample = await take(agent, index);
          if (!sample) return;
          if (sample.status !== 201) {
            refused += 1;
            continue;
          }
          samples.push(sample);
          const taken = sample.body as { ticket: { id: string; boardId: string }; claim: { claimCount: number } };
          const moved = await send(base, 'PATCH', `/api/v1/boards/${taken.ticket.boardId}/tickets/${taken.ticket.id}/status`, { ...agent.auth, 'x-claim-count': String(taken.claim.claimCount) }, { statusId: done });
          if (moved.status !== 200) throw new Error(`done: ${moved.status} ${JSON.stringify(moved.body)}`);
        }
      }));
      const seconds = (Date.now() - started) / 1000;
      // The events function's share of the run's work is counted too: the stream is drained before the counts are read.
      await runtime.drainStream();
      const drained = (Date.now() - started) / 1000;
      stopCounting();
      const after = cpuSpent();
      return { label, samples, refused, seconds, drained, cpu: { node: after.node - cpu.node, dynamo: after.dynamo - cpu.dynamo }, calls };
    };
    const runs: FleetRun[] = [];
    for (let round = 1; round <= FLEET_ROUNDS; round += 1) {
      const named = await fleetBoard(`Named ${round}`, `FN${String.fromCharCode(64 + round)}`);
      const queues = fleet.map((_agent, index) => named.ticketIds.filter((_id, at) => at % FLEET_AGENTS === index));
      runs.push(await race(`named claims, round ${round}`, async (agent, index) => {
        const ticketId = queues[index]!.shift();
        return ticketId ? send(base, 'POST', `/api/v1/boards/${named.boardId}/tickets/${ticketId}/claim`, agent.auth, {}) : null;
      }));
      const next = await fleetBoard(`Next ${round}`, `FX${String.fromCharCode(64 + round)}`);
      runs.push(await race(`claim-next, round ${round}`, async (agent) => {
        const sample = await send(base, 'POST', '/api/v1/claims/next', agent.auth, { boardIds: [next.boardId] });
        return sample.status === 204 ? null : sample;
      }));
    }
    const summary = (kind: string) => {
      const chosen = runs.filter((run) => run.label.startsWith(kind));
      const samples = chosen.flatMap((run) => run.samples);
      const sorted = samples.map((sample) => sample.ms).sort((a, b) => a - b);
      const perSecond = samples.length / chosen.reduce((sum, run) => sum + run.seconds, 0);
      return { samples, p95: percentile(sorted, 95), perSecond, refused: chosen.reduce((sum, run) => sum + run.refused, 0) };
    };
    const named = summary('named');
    const next = summary('claim-next');
    printTable(
      [[`POST …/claim, ${FLEET_AGENTS} agents at once (tickets named in advance)`, named.samples], [`POST /claims/next, ${FLEET_AGENTS} agents at once`, next.samples]],
      `Fleet: ${FLEET_AGENTS} agents take boards of ${FLEET_TICKETS} ready tickets to DONE (claim, then DONE), ${FLEET_ROUNDS} rounds of each way, interleaved`,
    );
    for (const run of runs) {
      console.log(`${run.label}: ${run.samples.length} claims in ${run.seconds.toFixed(1)} s, ${(run.samples.length / run.seconds).toFixed(1)} claims/s, answers other than 201/204: ${run.refused}; CPU per claim: runtime ${(run.cpu.node / run.samples.length).toFixed(1)} ms, DynamoDB Local ${(run.cpu.dynamo / run.samples.length).toFixed(1)} ms`);
      const trips = new Map<number, number>();
      for (const sample of run.samples) trips.set(sample.roundTrips, (trips.get(sample.roundTrips) ?? 0) + 1);
      console.log(`  ${(run.samples.length / run.drained).toFixed(1)} claims/s with the events handled (${run.drained.toFixed(1)} s); round trips: ${[...trips].sort(([a], [b]) => a - b).map(([count, times]) => `${count}×${times}`).join(' ')}`);
      console.log(`  DynamoDB calls per claim (claims, moves to DONE, events): ${perUnit(run.calls.calls, run.samples.length)}; failed: ${perUnit(run.calls.failures, run.samples.length)}`);
    }
    console.log(`claims/s: named ${named.perSecond.toFixed(1)}, claim-next ${next.perSecond.toFixed(1)}: ratio ${(next.perSecond / named.perSecond).toFixed(2)} (bar ≥ 0.8)`);
    console.log(`p95: named ${named.p95.toFixed(1)} ms, claim-next ${next.p95.toFixed(1)} ms: ratio ${(next.p95 / named.p95).toFixed(2)} (bar ≤ 3)`);
  } finally {
    await runtime.stop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
