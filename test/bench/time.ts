/**
 * `npm run bench` (time tracking): entries, approvals, timers and the time lists over real
 * HTTP against the local runtime. One PRO organization with a board, a person who has booked
 * 400 entries this year, and an agent (factor 1.5, weekly cap 168 h) whose entries wait for
 * approval. Prints a table for the README; asserts nothing.
 */
import { ok, printTable, send, type Sample } from './http.js';
import { startLocalRuntime } from '../../infra/local/runtime.js';

const RUNS = Number(process.env.BENCH_TIME_RUNS ?? 100);
const WARMUP = 5;
const SEEDED = 400;

async function main(): Promise<void> {
  const runtime = await startLocalRuntime({ credentialRateLimit: 0, port: 0, exposeRoundTrips: true, logRequests: false, sweeperIntervalSeconds: 3600 });
  try {
    const base = runtime.baseUrl;
    const slug = 'bench-time';
    const signup = await ok(send(base, 'POST', '/api/v1/auth/signup', {}, { organizationName: 'Time', slug, name: 'Bench Admin', email: `admin@${slug}.test`, password: 'bench password 1' }), 'signup');
    const orgId: string = signup.organization.id;
    const admin = { authorization: `Bearer ${signup.token}`, 'x-organization': slug };
    await ok(send(base, 'PATCH', `/api/v1/platform/organizations/${slug}`, { authorization: `Bearer ${runtime.platformAdminToken}` }, { plan: 'PRO' }), 'plan');
    const board = await ok(send(base, 'POST', '/api/v1/boards', admin, { name: 'Timed work', prefix: 'TIM' }), 'board');
    const ticket = (await ok(send(base, 'POST', `/api/v1/boards/${board.id}/tickets`, admin, { title: 'Long-running work', estimatedHours: 400 }), 'ticket')).data;
    const agent = await ok(send(base, 'POST', `/api/v1/organizations/${orgId}/agents`, admin, { name: 'Timed agent' }), 'agent');
    await ok(send(base, 'PATCH', `/api/v1/organizations/${orgId}/agents/${agent.id}`, admin, { timeFactor: 1.5, weeklyHoursCap: 168 }), 'agent settings');
    await ok(send(base, 'POST', `/api/v1/boards/${board.id}/members`, admin, { userId: agent.id }), 'member');
    const agentToken = (await ok(send(base, 'POST', `/api/v1/organizations/${orgId}/agents/${agent.id}/tokens`, admin, { name: 'bench' }), 'token')).token;
    const asAgent = { authorization: `Bearer ${agentToken}`, 'x-organization': slug };
    const year = new Date().getUTCFullYear();
    for (let index = 0; index < SEEDED; index += 1) {
      const date = `${year}-${String((index % 12) + 1).padStart(2, '0')}-${String((index % 28) + 1).padStart(2, '0')}`;
      await ok(send(base, 'POST', '/api/v1/time-tracking/entries', admin, { ticketId: ticket.id, durationMinutes: 30, description: `Seeded ${index}`, date }), 'seed');
    }
    // Agent entries spread over past weeks (each stays far below the cap), to be approved one by one.
    const pending: string[] = [];
    for (let index = 0; index < RUNS + WARMUP; index += 1) {
      const date = new Date(Date.UTC(year - 1, 0, 1 + index * 3)).toISOString().slice(0, 10);
      pending.push((await ok(send(base, 'POST', '/api/v1/time-tracking/entries', asAgent, { ticketId: ticket.id, durationMinutes: 10, date }), 'agent entry')).id);
    }
    await runtime.drainStream();

    const rows: [string, Sample[]][] = [];
    const measure = async (name: string, run: (index: number) => Promise<Sample>) => {
      for (let warm = 0; warm < WARMUP; warm += 1) await run(warm);
      const samples: Sample[] = [];
      for (let index = 0; index < RUNS; index += 1) samples.push(await run(WARMUP + index));
      rows.push([name, samples]);
    };
    const month = new Date().getUTCMonth() + 1;
    await measure('POST /time-tracking/entries (person, APPROVED)', () => send(base, 'POST', '/api/v1/time-tracking/entries', admin, { ticketId: ticket.id, durationMinutes: 15 }));
    await measure('POST /time-tracking/entries (agent: PENDING, factor, cap, owner notified)', (index) =>
      send(base, 'POST', '/api/v1/time-tracking/entries', asAgent, { ticketId: ticket.id, durationMinutes: 10, date: new Date(Date.UTC(year - 2, 0, 1 + index * 3)).toISOString().slice(0, 10) }),
    );
    await measure('POST …/entries/{id}/approve', (index) => send(base, 'POST', `/api/v1/time-tracking/entries/${pending[index]}/approve`, admin));
    const timerStop = async (): Promise<Sample> => {
      const timer = await ok(send(base, 'POST', '/api/v1/time-tracking/timers', admin, { ticketId: ticket.id }), 'timer');
      return send(base, 'POST', `/api/v1/time-tracking/timers/${timer.id}/stop`, admin, {});
    };
    await measure('POST …/timers/{id}/stop', timerStop);
    await measure(`GET /time-tracking/entries?year&month (own, ${SEEDED} in the year)`, () => send(base, 'GET', `/api/v1/time-tracking/entries?year=${year}&month=${month}`, admin));
    await measure(`GET /time-tracking/entries?search (own, ${SEEDED}+ entries)`, () => send(base, 'GET', '/api/v1/time-tracking/entries?search=seeded%2039', admin));
    await measure('GET /time-tracking/entries?state=PENDING (approval queue)', () => send(base, 'GET', '/api/v1/time-tracking/entries?state=PENDING', admin));
    await measure('GET …/time-entries/summary-with-budget (ticket of 900+ entries)', () =>
      send(base, 'GET', `/api/v1/boards/${board.id}/tickets/${ticket.id}/time-entries/summary-with-budget`, admin),
    );
    await measure('GET /time-tracking/entries/today-by-ticket', () => send(base, 'GET', '/api/v1/time-tracking/entries/today-by-ticket?tzOffset=60', admin));

    printTable(rows, `${RUNS} sequential requests per case after ${WARMUP} warm-up requests, local runtime + DynamoDB Local, Node ${process.version}`);
  } finally {
    await runtime.stop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
