/**
 * `npm run bench` (second part): ticket list latency and DynamoDB round trips over real HTTP
 * against the local runtime, with 5,000 tickets on one board and 20,000 on other boards (of
 * this organization and of a second one), next to a 20-ticket board. Tickets are written
 * straight into the table in batches, shaped like `createTicket` writes them (with the board's
 * ColumnCount items as the write path keeps them). Prints a table
 * for the README; asserts nothing.
 */
import { percentile, send, type Sample } from './http.js';
import { startLocalRuntime } from '../../infra/local/runtime.js';
import { newId } from '../../lib/core/ids.js';
import type { TicketItem } from '../../lib/db/entities/index.js';
import { db } from '../../lib/db/service.js';
import { loadOrgConfig } from '../../lib/tickets/config.js';

const RUNS = Number(process.env.BENCH_LIST_RUNS ?? 30);
const WARMUP = 5;
const BIG_BOARD = 5_000;
const SMALL_BOARD = 20;
/** The 20,000 "other" tickets: boards of the measured organization, and of a second one. */
const OTHER_BOARDS_SAME_ORG = 4;
const OTHER_BOARDS_OTHER_ORG = 4;
const PER_OTHER_BOARD = 2_500;
const DESCRIPTION = 'Steps to reproduce: open the board, filter by status, scroll to the end of the column and check the totals. '.repeat(2);


interface SeedBoard {
  orgId: string;
  boardId: string;
  prefix: string;
}

interface SeedVocabulary {
  activeStatusIds: string[];
  typeId: string;
  assignee: { id: string; name: string };
  createdById: string;
}

/** A ticket as `createTicket` writes it (lib/tickets/create.ts), with varied ACTIVE statuses. */
function ticketFactory(board: SeedBoard, vocabulary: SeedVocabulary, start: Date) {
  return (number: number): TicketItem => {
    const createdAt = new Date(start.getTime() + number * 1000).toISOString();
    const assigned = number % 5 === 0;
    return {
      ticketId: newId('tkt'),
      orgId: board.orgId,
      boardId: board.boardId,
      number,
      displayId: `${board.prefix}-${number}`,
      title: `Ticket ${number}: ${['fix', 'build', 'review', 'document'][number % 4]} the ${['login', 'export', 'search', 'billing', 'import'][number % 5]} flow`,
      description: DESCRIPTION,
      statusId: vocabulary.activeStatusIds[number % vocabulary.activeStatusIds.length]!,
      statusCategory: 'ACTIVE',
      priority: (['low', 'medium', 'high', 'critical'] as const)[number % 4]!,
      typeId: vocabulary.typeId,
      labelIds: [],
      ...(assigned ? { assigneeId: vocabulary.assignee.id, assigneeName: vocabulary.assignee.name } : {}),
      ...(number % 3 === 0 ? { dueDate: new Date(start.getTime() + (number - 2_000) * 86_400_000).toISOString() } : {}),
      isArchived: false,
      isDeleted: false,
      position: start.getTime() + number,
      needsReassignment: false,
      commentCount: 0,
      createdById: vocabulary.createdById,
      createdAt,
      updatedAt: createdAt,
      version: 1,
    };
  };
}

/**
 * Writes `count` tickets (and their display-id keys) in BatchWriteItem batches, then the
 * board's ColumnCount items as `saveTicket` would have left them; sets the board counter.
 */
async function seedBoard(board: SeedBoard, vocabulary: SeedVocabulary, count: number): Promise<void> {
  const build = ticketFactory(board, vocabulary, new Date('2025-01-01T00:00:00.000Z'));
  const CHUNK = 1_000;
  const perStatus = new Map<string, number>();
  for (let first = 1; first <= count; first += CHUNK) {
    const tickets = Array.from({ length: Math.min(CHUNK, count - first + 1) }, (_, index) => build(first + index));
    for (const ticket of tickets) perStatus.set(ticket.statusId, (perStatus.get(ticket.statusId) ?? 0) + 1);
    const keys = tickets.map((ticket) => ({ orgId: ticket.orgId, displayId: ticket.displayId, ticketId: ticket.ticketId }));
    const [written, keyed] = await Promise.all([
      db().entities.ticket.put(tickets).go({ concurrency: 4 }),
      db().entities.ticketKey.put(keys).go({ concurrency: 2 }),
    ]);
    if (written.unprocessed.length || keyed.unprocessed.length) throw new Error(`unprocessed batch items: ${written.unprocessed.length + keyed.unprocessed.length}`);
  }
  const counts = [...perStatus].map(([statusId, total]) => ({ orgId: board.orgId, boardId: board.boardId, statusId, total, archived: 0 }));
  const counted = await db().entities.columnCount.put(counts).go();
  if (counted.unprocessed.length) throw new Error(`unprocessed column counts: ${counted.unprocessed.length}`);
  await db().entities.board.patch({ orgId: board.orgId, boardId: board.boardId }).set({ ticketCounter: count }).go();
}

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
      ['board of 5,000: search (full read), page 1', list(big, 'search=flow&page=1&limit=20')],
      ['board of 5,000: statusId, page 1', list(big, `statusId=${statusId}&page=1&limit=20`)],
      ['board of 5,000: statusId, page 10', list(big, `statusId=${statusId}&page=10&limit=20`)],
      ['board of 20: page 1', list(small, 'page=1&limit=20')],
      ['board of 20: page 10 (empty page)', list(small, 'page=10&limit=20')],
      ['board of 20: statusId, page 1', list(small, `statusId=${statusId}&page=1&limit=20`)],
      ['board of 20: statusId, page 10 (empty page)', list(small, `statusId=${statusId}&page=10&limit=20`)],
      ['GET /issues, admin (6 boards), page 1', issues('page=1&limit=20')],
      ['GET /issues, admin (6 boards), page 50', issues('page=50&limit=20')],
      ['GET /issues?claimable=true, admin (6 boards), page 1', issues('claimable=true&page=1&limit=20')],
      ['GET /issues?search= (full read), admin (6 boards), page 1', issues('search=flow&page=1&limit=20')],
      ['GET /issues?boardId=<board of 20>, page 1', issues(`boardId=${small.boardId}&page=1&limit=20`)],
      ['GET /issues?assignedToMe=true, page 1', issues('assignedToMe=true&page=1&limit=20')],
    ];

    // DynamoDB Local (a JVM) is slow on its first large Queries; warm it before the first case.
    for (let warm = 0; warm < 10; warm += 1) await list(big, 'page=1&limit=20')();
    console.log(`\n${RUNS} sequential requests per case after ${WARMUP} warm-up requests, local runtime + DynamoDB Local, Node ${process.version}\n`);
    console.log('| list | total | p50 ms | p95 ms | mean ms | round trips |');
    console.log('|---|---|---|---|---|---|');
    for (const [name, run] of cases) {
      for (let warm = 0; warm < WARMUP; warm += 1) await run();
      const samples: Sample[] = [];
      for (let index = 0; index < RUNS; index += 1) samples.push(await run());
      const failed = samples.find((sample) => sample.status >= 400);
      if (failed) throw new Error(`${name} answered ${failed.status}: ${JSON.stringify(failed.body)}`);
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
