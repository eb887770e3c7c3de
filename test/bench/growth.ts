/**
 * `npm run bench:growth`: how every ticket list, filter and search grows with the organization.
 * One organization of 20 boards is grown to 5,000, 25,000 and 50,000 tickets, each created with
 * `POST …/tickets` (in process, through the API's route table and write path: ./api-seed.ts),
 * the events function draining what they leave, and at each size every case is timed over real HTTP
 * against the local runtime, with its DynamoDB round trips. Board cases use the first board
 * (250, 1,250, 2,500 tickets); `/issues` cases cover all 20. Prints one table for
 * docs/performance.md; asserts nothing.
 */
import { growthCell, ok, send, timeCase, type Sample } from './http.js';
import { startLocalRuntime } from '../../infra/local/runtime.js';
import { loadOrgConfig } from '../../lib/tickets/config.js';
import { seedBoardThroughApi, type ApiSeedVocabulary } from './api-seed.js';

const RUNS = Number(process.env.BENCH_GROWTH_RUNS ?? 7);
const WARMUP = 2;
// BENCH_GROWTH_BOARDS=1 BENCH_GROWTH_SIZES=5000: one board of 5,000 tickets (the board bars of issue 30).
const BOARDS = Number(process.env.BENCH_GROWTH_BOARDS ?? 20);
const SIZES = (process.env.BENCH_GROWTH_SIZES ?? '5000,25000,50000').split(',').map(Number);

async function main(): Promise<void> {
  const runtime = await startLocalRuntime({ credentialRateLimit: 0, port: 0, exposeRoundTrips: true, logRequests: false, sweeperIntervalSeconds: 3600 });
  try {
    const base = runtime.baseUrl;
    const slug = 'bench-growth';
    const signup = await ok(send(base, 'POST', '/api/v1/auth/signup', {}, { organizationName: slug, slug, name: 'Bench Admin', email: `admin@${slug}.test`, password: 'bench password 1' }), 'signup');
    const session = { authorization: `Bearer ${signup.token}`, 'x-organization': slug };
    const orgId: string = signup.organization.id;
    const config = await loadOrgConfig(orgId);
    const label = await ok(send(base, 'POST', '/api/v1/labels', session, { name: 'Growth', color: '#336699' }), 'label');
    const customer = await ok(send(base, 'POST', '/api/v1/customers', session, { name: 'Growth customer' }), 'customer');
    const vocabulary: ApiSeedVocabulary = {
      activeStatusIds: config.statuses.filter((status) => status.category === 'ACTIVE').map((status) => status.statusId),
      typeId: config.defaultType()!.typeId,
      assigneeId: signup.user.id,
      labelId: (label.data ?? label).id,
      customerId: (customer.data ?? customer).id,
    };
    const boards: { boardId: string }[] = [];
    for (let index = 0; index < BOARDS; index += 1) {
      const prefix = `G${String.fromCharCode(65 + index)}`;
      const created = await ok(send(base, 'POST', '/api/v1/boards', session, { name: `Growth ${index}`, prefix }), 'board');
      boards.push({ boardId: created.id });
    }
    const first = boards[0]!;
    const list = (query: string) => () => send(base, 'GET', `/api/v1/boards/${first.boardId}/tickets?${query}`, session);
    const issues = (query: string) => () => send(base, 'GET', `/api/v1/issues?${query}`, session);
    const page = 'page=1&limit=20';
    const cases: [string, () => Promise<Sample>][] = [
      ['board: page 1', list(page)],
      ['board: search (every ticket matches)', list(`search=flow&${page}`)],
      ['board: search (1 in 5 match)', list(`search=billing&${page}`)],
      ['board: assigneeId (1 in 5)', list(`assigneeId=${vocabulary.assigneeId}&${page}`)],
      ['board: labelId (1 in 7)', list(`labelId=${vocabulary.labelId}&${page}`)],
      ['board: customerId (1 in 11)', list(`customerId=${vocabulary.customerId}&${page}`)],
      ['board: typeId', list(`typeId=${vocabulary.typeId}&${page}`)],
      ['board: dueBefore', list(`dueBefore=2025-03-01T00:00:00.000Z&${page}`)],
      ['/issues: page 1', issues(page)],
      ['/issues: search (every ticket matches)', issues(`search=flow&${page}`)],
      ['/issues: search (1 in 5 match)', issues(`search=billing&${page}`)],
      ['/issues: assignedToMe (1 in 5)', issues(`assignedToMe=true&${page}`)],
      ['/issues: labelId (1 in 7)', issues(`labelId=${vocabulary.labelId}&${page}`)],
      ['/issues: priority=critical (1 in 4)', issues(`priority=critical&${page}`)],
      ['/issues: claimable', issues(`claimable=true&${page}`)],
      ['/issues: ready', issues(`ready=true&${page}`)],
    ];

    const results = new Map<string, string[]>(cases.map(([name]) => [name, []]));
    let seeded = 0;
    for (const size of SIZES) {
      const started = Date.now();
      const perBoard = (size - seeded) / BOARDS;
      for (const board of boards) await seedBoardThroughApi(session, board.boardId, vocabulary, perBoard, seeded / BOARDS + 1);
      seeded = size;
      await runtime.drainStream();
      console.error(`grown to ${size} tickets in ${((Date.now() - started) / 1000).toFixed(1)} s`);
      // DynamoDB Local (a JVM) is slow on its first large Queries; warm it first.
      for (let warm = 0; warm < 5; warm += 1) await list(page)();
      let pageOne = 0;
      let issuesPageOne = 0;
      for (const [name, run] of cases) {
        const samples = await timeCase(name, run, RUNS, WARMUP);
        const { p50, cell } = growthCell(samples, name.endsWith('page 1') ? 0 : name.startsWith('board') ? pageOne : issuesPageOne);
        if (name === 'board: page 1') pageOne = p50;
        if (name === '/issues: page 1') issuesPageOne = p50;
        results.get(name)!.push(cell);
        console.error(`${size} ${name}: ${p50.toFixed(1)} ms`);
      }
    }
    console.log(`\n${RUNS} sequential requests per case after ${WARMUP} warm-up requests (p50; × the unfiltered page 1 at that size; DynamoDB round trips; read capacity units, p50; the list's total), local runtime + DynamoDB Local, Node ${process.version}\n`);
    console.log(`| case | ${SIZES.map((size) => `${size.toLocaleString('en-US')} tickets`).join(' | ')} |`);
    console.log(`|---|${SIZES.map(() => '---').join('|')}|`);
    for (const [name, cells] of results) console.log(`| ${name} | ${cells.join(' | ')} |`);
  } finally {
    await runtime.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
