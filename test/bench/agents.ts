/**
 * `npm run bench` (third part): claims and the agents overview over real HTTP against the
 * local runtime. One PRO organization with 25 agents (the maximum), each holding 2 live
 * claims, and 31 days of activity items (25 agents + the organization per day) as the write
 * paths keep them. Prints a table for the README; asserts nothing.
 */
import { ok, printTable, send, type Sample } from './http.js';
import { startLocalRuntime } from '../../infra/local/runtime.js';
import { db } from '../../lib/db/service.js';
import { utcDaysBefore } from '../../lib/activity/activity.js';

const RUNS = Number(process.env.BENCH_AGENT_RUNS ?? 100);
const WARMUP = 5;
const AGENTS = 25;

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

    printTable(rows, `${RUNS} sequential requests per case after ${WARMUP} warm-up requests, local runtime + DynamoDB Local, Node ${process.version}`);
  } finally {
    await runtime.stop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
