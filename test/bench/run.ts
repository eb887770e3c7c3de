/**
 * `npm run bench`: latency and DynamoDB round trips of representative endpoints, over real
 * HTTP against the local runtime (DynamoDB Local). Prints figures for the README; asserts
 * nothing. Local figures measure the service's own work plus DynamoDB Local, not AWS latency.
 */
import { percentile, send, type Sample } from './http.js';
import { startLocalRuntime } from '../../infra/local/runtime.js';

const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 200);
const BOARDS = Number(process.env.BENCH_BOARDS ?? 100);


async function main(): Promise<void> {
  const runtime = await startLocalRuntime({ credentialRateLimit: 0, port: 0, exposeRoundTrips: true, logRequests: false, sweeperIntervalSeconds: 3600 });
  try {
    const base = runtime.baseUrl;
    const signup = await send(base, 'POST', '/api/v1/auth/signup', {}, { organizationName: 'Bench', slug: 'bench', name: 'Bench', email: 'bench@bench.test', password: 'bench password 1' });
    const session = { authorization: `Bearer ${signup.body.token}`, 'x-organization': 'bench' };
    await send(base, 'PATCH', '/api/v1/platform/organizations/bench', { authorization: `Bearer ${runtime.platformAdminToken}` }, { plan: 'PRO' });
    const token = (await send(base, 'POST', '/api/v1/users/me/tokens', session, { name: 'bench' })).body.token;
    const tokenAuth = { authorization: `Bearer ${token}`, 'x-organization': 'bench' };
    const team = (await send(base, 'POST', '/api/v1/teams', session, { name: 'Bench team' })).body;
    let boardId = '';
    for (let index = 0; index < BOARDS; index += 1) {
      const board = await send(base, 'POST', '/api/v1/boards', session, { name: `Board ${index}`, prefix: `B${index}`, teamIds: index % 2 ? [team.id] : [] });
      boardId = board.body.id;
    }

    const cases: [string, () => Promise<Sample>][] = [
      ['GET /organization (session JWT)', () => send(base, 'GET', '/api/v1/organization', session)],
      ['GET /organization (access token)', () => send(base, 'GET', '/api/v1/organization', tokenAuth)],
      ['GET /users/me', () => send(base, 'GET', '/api/v1/users/me', session)],
      ['GET /boards/{id}', () => send(base, 'GET', `/api/v1/boards/${boardId}`, session)],
      [`GET /boards (${BOARDS} boards, page 1)`, () => send(base, 'GET', '/api/v1/boards?limit=20', session)],
      [`GET /boards?search= (${BOARDS} boards)`, () => send(base, 'GET', '/api/v1/boards?search=board%209', session)],
      ['GET /statuses', () => send(base, 'GET', '/api/v1/statuses', session)],
      ['GET /boards/{id}/statuses', () => send(base, 'GET', `/api/v1/boards/${boardId}/statuses`, session)],
      ['POST /customers', () => send(base, 'POST', '/api/v1/customers', session, { name: 'Bench customer' })],
      ['PATCH /boards/{id}', () => send(base, 'PATCH', `/api/v1/boards/${boardId}`, session, { description: `d${Math.random()}` })],
    ];

    console.log(`\n${ITERATIONS} sequential requests per endpoint, local runtime + DynamoDB Local, Node ${process.version}\n`);
    console.log('| endpoint | p50 ms | p95 ms | mean ms | round trips |');
    console.log('|---|---|---|---|---|');
    for (const [name, run] of cases) {
      for (let warm = 0; warm < 10; warm += 1) await run();
      const samples: Sample[] = [];
      for (let index = 0; index < ITERATIONS; index += 1) samples.push(await run());
      const failed = samples.find((sample) => sample.status >= 400);
      if (failed) throw new Error(`${name} answered ${failed.status}`);
      const times = samples.map((sample) => sample.ms).sort((a, b) => a - b);
      const mean = times.reduce((sum, ms) => sum + ms, 0) / times.length;
      const trips = [...new Set(samples.map((sample) => sample.roundTrips))].join('/');
      console.log(`| ${name} | ${percentile(times, 50).toFixed(1)} | ${percentile(times, 95).toFixed(1)} | ${mean.toFixed(1)} | ${trips} |`);
    }
  } finally {
    await runtime.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
