/**
 * `npm run bench` (second part): ticket list latency and DynamoDB round trips over real HTTP
 * against the local runtime, with 5,000 tickets on one board and 20,000 on other boards (of
 * this organization and of a second one), next to a 20-ticket board. Tickets are written
 * straight into the table in batches, shaped like `createTicket` writes them (with the board's
 * ColumnCount items as the write path keeps them). Prints a table
 * for the README; asserts nothing.
 */
import { percentile, send, timeCase, type Sample } from './http.js';
import { startLocalRuntime } from '../../infra/local/runtime.js';
import { loadOrgConfig } from '../../lib/tickets/config.js';
import { seedBoard, type SeedBoard, type SeedVocabulary } from './seed.js';

const RUNS = Number(process.env.BENCH_LIST_RUNS ?? 30);
const WARMUP = 5;
const BIG_BOARD = 5_000;
const SMALL_BOARD = 20;
/** The 20,000 "other" tickets: boards of the measured organization, and of a second one. */
const OTHER_BOARDS_SAME_ORG = 4;
const OTHER_BOARDS_OTHER_ORG = 4;
const PER_OTHER_BOARD = 2_500;
async function main(): Promise<void> {
  const runtime = await startLocalRuntime({ credentialRateLimit: 0, port: 0, exposeRoundTrips: true, logRequests: false, sweeperIntervalSeconds: 3600 });
  try {
    const base = runtime.baseUrl;
    const signup = async (slug: string) => {
      const response = await send(base, 'POST', '/api/v1/auth/signup', {}, { organizationName: slug, slug, name: 'Bench Admin', email: `admin@${slug}.test`, password: 'bench password 1' });
      if (response.status !== 201) throw new Error(`signup: ${response.status} ${JSON.stringify(response.body)}`);
      const session = { authorization: `Bearer ${response.body.token}`, 'x-organization': slug };
      const vocabularyConfig = await loadOrgConfig(response.body.organization.id);
      const vocabulary: SeedVocabulary = {
        activeStatusIds: vocabularyConfig.statuses.filter((status) => status.category === 'ACTIVE').map((status) => status.statusId),
        typeId: vocabularyConfig.defaultType()!.typeId,
        assignee: { id: response.body.user.id, name: 'Bench Admin' },
        createdById: response.body.user.id,
      };
      const board = async (name: string, prefix: string): Promise<SeedBoard> => {
        const created = await send(base, 'POST', '/api/v1/boards', session, { name, prefix });
        if (created.status !== 201) throw new Error(`board: ${created.status} ${JSON.stringify(created.body)}`);
        return { orgId: response.body.organization.id, boardId: created.body.id, prefix };
      };
      return { session, vocabulary, board };
    };

    const home = await signup('bench-tickets');
    const other = await signup('bench-tickets-other');
    const seedStarted = Date.now();
    const big = await home.board('Big board', 'BIG');
    const small = await home.board('Small board', 'SML');
    await seedBoard(big, home.vocabulary, BIG_BOARD);
    await seedBoard(small, home.vocabulary, SMALL_BOARD);
    for (let index = 0; index < OTHER_BOARDS_SAME_ORG; index += 1) await seedBoard(await home.board(`Other ${index}`, `OTH${index}`), home.vocabulary, PER_OTHER_BOARD);
    for (let index = 0; index < OTHER_BOARDS_OTHER_ORG; index += 1) await seedBoard(await other.board(`Foreign ${index}`, `FOR${index}`), other.vocabulary, PER_OTHER_BOARD);
    const seeded = BIG_BOARD + SMALL_BOARD + (OTHER_BOARDS_SAME_ORG + OTHER_BOARDS_OTHER_ORG) * PER_OTHER_BOARD;
    // The stream consumer sees every seeded item; let it finish before measuring.
    await runtime.drainStream();
    console.log(`\nseeded ${seeded} tickets in ${((Date.now() - seedStarted) / 1000).toFixed(1)} s`);

    const statusId = home.vocabulary.activeStatusIds[0]!;
    const list = (board: SeedBoard, query: string) => () => send(base, 'GET', `/api/v1/boards/${board.boardId}/tickets?${query}`, home.session);
    const issues = (query: string) => () => send(base, 'GET', `/api/v1/issues?${query}`, home.session);
    const cases: [string, () => Promise<Sample>][] = [
      ['board of 5,000: page 1', list(big, 'page=1&limit=20')],
      ['board of 5,000: page 10', list(big, 'page=10&limit=20')],
      ['board of 5,000: page 100', list(big, 'page=100&limit=20')],
      ['board of 5,000: search (index), page 1', list(big, 'search=flow&page=1&limit=20')],
      ['board of 5,000: statusId, page 1', list(big, `statusId=${statusId}&page=1&limit=20`)],
      ['board of 5,000: statusId, page 10', list(big, `statusId=${statusId}&page=10&limit=20`)],
      ['board of 20: page 1', list(small, 'page=1&limit=20')],
      ['board of 20: page 10 (empty page)', list(small, 'page=10&limit=20')],
      ['board of 20: statusId, page 1', list(small, `statusId=${statusId}&page=1&limit=20`)],
      ['board of 20: statusId, page 10 (empty page)', list(small, `statusId=${statusId}&page=10&limit=20`)],
      ['GET /issues, admin (6 boards), page 1', issues('page=1&limit=20')],
      ['GET /issues, admin (6 boards), page 50', issues('page=50&limit=20')],
      ['GET /issues?claimable=true, admin (6 boards), page 1', issues('claimable=true&page=1&limit=20')],
      ['GET /issues?search= (index), admin (6 boards), page 1', issues('search=flow&page=1&limit=20')],
      ['GET /issues?boardId=<board of 20>, page 1', issues(`boardId=${small.boardId}&page=1&limit=20`)],
      ['GET /issues?assignedToMe=true, page 1', issues('assignedToMe=true&page=1&limit=20')],
    ];

    // DynamoDB Local (a JVM) is slow on its first large Queries; warm it before the first case.
    for (let warm = 0; warm < 10; warm += 1) await list(big, 'page=1&limit=20')();
    console.log(`\n${RUNS} sequential requests per case after ${WARMUP} warm-up requests, local runtime + DynamoDB Local, Node ${process.version}\n`);
    console.log('| list | total | p50 ms | p95 ms | mean ms | round trips |');
    console.log('|---|---|---|---|---|---|');
    for (const [name, run] of cases) {
      const samples = await timeCase(name, run, RUNS, WARMUP);
      const times = samples.map((sample) => sample.ms).sort((a, b) => a - b);
      const mean = times.reduce((sum, ms) => sum + ms, 0) / times.length;
      const trips = [...new Set(samples.map((sample) => sample.roundTrips))].join('/');
      console.log(`| ${name} | ${samples[0]!.body.total} | ${percentile(times, 50).toFixed(1)} | ${percentile(times, 95).toFixed(1)} | ${mean.toFixed(1)} | ${trips} |`);
    }
  } finally {
    await runtime.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
