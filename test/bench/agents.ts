/**
 * `npm run bench` (third part): claims and the agents overview over real HTTP against the
 * local runtime. One PRO organization with 25 agents (the maximum), each holding 2 live
 * claims, and 31 days of activity items (25 agents + the organization per day) as the write
 * paths keep them. Prints a table for the README; asserts nothing.
 */
import { ok, percentile, printTable, send, type Sample } from './http.js';
import { startLocalRuntime } from '../../infra/local/runtime.js';
import { db } from '../../lib/db/service.js';
import { utcDaysBefore } from '../../lib/activity/activity.js';

const RUNS = Number(process.env.BENCH_AGENT_RUNS ?? 100);
const WARMUP = 5;
const AGENTS = 25;
const READY_BACKLOG = Number(process.env.BENCH_READY_BACKLOG ?? 300);
const FLEET_AGENTS = 16;
const FLEET_TICKETS = Number(process.env.BENCH_FLEET_TICKETS ?? 300);

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

    // A fleet: 16 agents, one lease each, claim-next → DONE until a board of FLEET_TICKETS ready tickets is done.
    await ok(send(base, 'PATCH', `/api/v1/organizations/${orgId}/agents/policies`, session, { statusTransitionsRequireApproval: [] }), 'policies');
    const fleetBoard = await ok(send(base, 'POST', '/api/v1/boards', session, { name: 'Fleet', prefix: 'FLB' }), 'fleet board');
    const fleet = agents.slice(1, 1 + FLEET_AGENTS);
    for (const agent of fleet) await ok(send(base, 'POST', `/api/v1/boards/${fleetBoard.id}/members`, session, { userId: agent.id }), 'member');
    for (let index = 0; index < FLEET_TICKETS; index += 1) {
      await ok(send(base, 'POST', `/api/v1/boards/${fleetBoard.id}/tickets`, session, { title: `Fleet ${index}`, statusId: inProgress }), 'fleet ticket');
    }
    await runtime.drainStream();
    const done = statuses.find((status) => status.key === 'DONE').id;
    const fleetClaims: Sample[] = [];
    let conflicts = 0;
    const started = Date.now();
    await Promise.all(fleet.map(async (agent) => {
      for (;;) {
        const sample = await send(base, 'POST', '/api/v1/claims/next', agent.auth, { boardIds: [fleetBoard.id] });
        if (sample.status === 204) return;
        if (sample.status !== 201) {
          conflicts += 1;
          continue;
        }
        fleetClaims.push(sample);
        const ticket = (sample.body as { ticket: { id: string }; claim: { claimCount: number } });
        await send(base, 'PATCH', `/api/v1/boards/${fleetBoard.id}/tickets/${ticket.ticket.id}/status`, { ...agent.auth, 'x-claim-count': String(ticket.claim.claimCount) }, { statusId: done });
      }
    }));
    const seconds = (Date.now() - started) / 1000;
    printTable([[`POST /claims/next, ${FLEET_AGENTS} agents at once`, fleetClaims]], `Fleet: ${FLEET_AGENTS} agents took all ${fleetClaims.length} of ${FLEET_TICKETS} tickets (claim-next, then DONE) in ${seconds.toFixed(1)} s: ${(fleetClaims.length / seconds).toFixed(1)} claims/s; answers other than 201/204: ${conflicts}`);
  } finally {
    await runtime.stop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
