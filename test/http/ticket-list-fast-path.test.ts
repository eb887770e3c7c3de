import { beforeAll, describe, expect, it } from 'vitest';
import { expectValidationError, signupOrg, type ApiResponse, type TestOrg, useInProcess } from '../support/api.js';
import { db } from '../../lib/db/service.js';
import { lapseClaim } from '../support/tickets.js';
import { createTicket } from '../support/factories.js';

// In process, through the same route table and handlers (test/support/api.ts).
useInProcess();

/*
 * The board list's fast path (lib/tickets/lists/list.ts `listBoardColumns`): a list filtered only by
 * status and the category flags takes its exact `total` from the board's ColumnCount items and
 * reads just the columns its page reaches, in byBoard index order. It must answer exactly what
 * the full-read path answers. A filter that matches every ticket and that no index serves
 * (`needsReassignment=false`: no ticket here needs reassignment) forces the full-read path for
 * the comparison.
 */


/** The list's views: the default (ACTIVE work), with planning, with archived and finished work, with both. */
const VIEWS = ['', 'includePlanning=true', 'includeArchived=true', 'includePlanning=true&includeArchived=true'];

type Statuses = Record<string, { id: string; key: string; category: string }>;

interface World {
  org: TestOrg;
  boardId: string;
  otherBoardId: string;
  statuses: Statuses;
}

async function call(org: TestOrg, method: string, path: string, body?: unknown, expected?: number): Promise<ApiResponse> {
  const response = await org.call(method, path, body === undefined ? {} : { body });
  if (expected !== undefined && response.status !== expected) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(response.body)}`);
  return response;
}

const ticketsOf = (boardId: string) => `/api/v1/boards/${boardId}/tickets`;

/** The status keys of a list response's tickets, in order. */
const keysOf = (world: World, response: ApiResponse): string[] =>
  response.body.data.map((ticket: any) => Object.values(world.statuses).find((status) => status.id === ticket.status.id)?.key);

/** A ticket; answers its id. */
async function newTicket(org: TestOrg, boardId: string, title: string, overrides: Record<string, unknown> = {}): Promise<string> {
  return (await createTicket(org, boardId, { title, ...overrides })).id;
}

async function statusesOf(org: TestOrg): Promise<Statuses> {
  const statuses = (await call(org, 'GET', '/api/v1/statuses', undefined, 200)).body.data;
  return Object.fromEntries(statuses.map((status: any) => [status.key, status]));
}

async function newWorld(): Promise<World> {
  const org = await signupOrg();
  const boardId = (await call(org, 'POST', '/api/v1/boards', { name: 'Fast lists', prefix: 'FST' }, 201)).body.id;
  const otherBoardId = (await call(org, 'POST', '/api/v1/boards', { name: 'Elsewhere', prefix: 'ELS' }, 201)).body.id;
  return { org, boardId, otherBoardId, statuses: await statusesOf(org) };
}

/** The board's ColumnCount items, read straight from the table and summed over shards: status id → {total, archived}. */
async function countsOf(world: World, boardId = world.boardId): Promise<Record<string, { total: number; archived: number }>> {
  const { data } = await db().entities.columnCount.query.byBoard({ orgId: world.org.orgId, boardId }).go({ pages: 'all', consistent: true });
  const sums: Record<string, { total: number; archived: number }> = {};
  for (const shard of data) {
    sums[shard.statusId] ??= { total: 0, archived: 0 };
    const sum = sums[shard.statusId]!;
    sum.total += shard.total;
    sum.archived += shard.archived;
  }
  return Object.fromEntries(Object.entries(sums).filter(([, count]) => count.total !== 0 || count.archived !== 0));
}

/** What the counts must be: the live tickets of the board by status, from the full-read path (every status, archived included). */
async function countsFromTickets(world: World, boardId = world.boardId): Promise<Record<string, { total: number; archived: number }>> {
  const response = await call(world.org, 'GET', `${ticketsOf(boardId)}?includePlanning=true&includeArchived=true&needsReassignment=false&limit=100`, undefined, 200);
  expect(response.body.total).toBeLessThanOrEqual(100);
  const counts: Record<string, { total: number; archived: number }> = {};
  for (const ticket of response.body.data) {
    counts[ticket.status.id] ??= { total: 0, archived: 0 };
    const count = counts[ticket.status.id]!;
    count.total += 1;
    if (ticket.isArchived) count.archived += 1;
  }
  return counts;
}

/** Asserts the fast path answers exactly what the full-read path answers for `query`; returns the fast response. */
async function expectSameAsFullRead(world: World, query: string): Promise<ApiResponse> {
  const fast = await world.org.call('GET', `${ticketsOf(world.boardId)}?${query}`);
  const full = await world.org.call('GET', `${ticketsOf(world.boardId)}?${query}&needsReassignment=false`);
  expect(fast.status, query).toBe(200);
  expect(full.status, query).toBe(200);
  expect({ query, ids: fast.body.data.map((ticket: any) => ticket.id) }).toEqual({ query, ids: full.body.data.map((ticket: any) => ticket.id) });
  expect({ query, ...fast.body }).toEqual({ query, ...full.body });
  return fast;
}

/** Every page (and the first empty one after them) of `query` at each limit. */
async function expectAllPagesSame(world: World, query: string, limits: number[]): Promise<void> {
  for (const limit of limits) {
    const first = await expectSameAsFullRead(world, `${query}&limit=${limit}&page=1`);
    for (let page = 2; page <= first.body.totalPages + 1; page += 1) await expectSameAsFullRead(world, `${query}&limit=${limit}&page=${page}`);
  }
}

describe('fast board lists answer exactly what the full-read path answers', () => {
  let world: World;

  beforeAll(async () => {
    world = await newWorld();
    const { org, boardId, otherBoardId } = world;
    // An ACTIVE status marked isFinal (hidden without includeArchived) and a second FINAL column.
    const shipped = (await call(org, 'POST', '/api/v1/statuses', { name: 'Shipped', color: '#00aa88', category: 'ACTIVE', isFinal: true }, 201)).body;
    const cancelled = (await call(org, 'POST', '/api/v1/statuses', { name: 'Cancelled', color: '#555555', category: 'FINAL' }, 201)).body;
    world.statuses = await statusesOf(org);
    const s = world.statuses;
    expect(s.SHIPPED!.id).toBe(shipped.id);
    expect(s.CANCELLED!.id).toBe(cancelled.id);

    const ids: Record<string, string[]> = {};
    const fill = async (key: string, count: number, extra: Record<string, unknown> = {}) => {
      ids[key] ??= [];
      for (let index = 0; index < count; index += 1) ids[key]!.push(await newTicket(org, boardId, `${key} ${index}`, { statusId: s[key]!.id, ...extra }));
    };
    await fill('BACKLOG', 3);
    await fill('TODO', 2);
    await fill('IN_PROGRESS', 7);
    await fill('IN_REVIEW', 4);
    await fill('BLOCKED', 2);
    await fill('SHIPPED', 2);
    await fill('DONE', 3);
    await fill('CANCELLED', 2);
    // Archived at creation and by PATCH; one archived then restored.
    ids.archived = [await newTicket(org, boardId, 'archived at creation', { statusId: s.IN_PROGRESS!.id, isArchived: true })];
    await call(org, 'PATCH', `${ticketsOf(boardId)}/${ids.IN_PROGRESS![1]}`, { isArchived: true }, 200);
    await call(org, 'PATCH', `${ticketsOf(boardId)}/${ids.DONE![0]}`, { isArchived: true }, 200);
    await call(org, 'PATCH', `${ticketsOf(boardId)}/${ids.IN_REVIEW![0]}`, { isArchived: true }, 200);
    await call(org, 'PATCH', `${ticketsOf(boardId)}/${ids.IN_REVIEW![0]}`, { isArchived: false }, 200);
    // Deleted: a live one, an archived one (they stay in the index, flagged).
    await call(org, 'DELETE', `${ticketsOf(boardId)}/${ids.IN_PROGRESS![2]}`, undefined, 204);
    await call(org, 'DELETE', `${ticketsOf(boardId)}/${ids.DONE![0]}`, undefined, 204);
    // Moved out to the other board, and moved in from it.
    await call(org, 'POST', `${ticketsOf(boardId)}/${ids.IN_PROGRESS![3]}/move`, { targetBoardId: otherBoardId }, 200);
    await call(org, 'POST', `${ticketsOf(boardId)}/${ids.BACKLOG![0]}/move`, { targetBoardId: otherBoardId }, 200);
    for (const key of ['IN_PROGRESS', 'TODO', 'DONE']) {
      const incoming = await newTicket(org, otherBoardId, `incoming ${key}`, { statusId: s[key]!.id });
      await call(org, 'POST', `${ticketsOf(otherBoardId)}/${incoming}/move`, { targetBoardId: boardId }, 200);
    }
    // Status changes.
    await call(org, 'PATCH', `${ticketsOf(boardId)}/${ids.IN_PROGRESS![4]}/status`, { statusId: s.BLOCKED!.id }, 200);
    await call(org, 'PATCH', `${ticketsOf(boardId)}/${ids.TODO![0]}/status`, { statusId: s.DONE!.id }, 200);
    // Reordered: to the front, between two, a tie with another ticket, very large, and into another column.
    const reorder = (ticketId: string, position: number, statusId?: string) =>
      call(org, 'PATCH', `${ticketsOf(boardId)}/reorder`, { ticketId, position, ...(statusId ? { statusId } : {}) }, 200);
    await reorder(ids.IN_PROGRESS![6]!, 0);
    await reorder(ids.IN_PROGRESS![5]!, 0);
    await reorder(ids.IN_PROGRESS![0]!, 0.5);
    await reorder(ids.IN_REVIEW![3]!, 123.4567891);
    await reorder(ids.IN_REVIEW![2]!, 1e15 - 1);
    await reorder(ids.BLOCKED![0]!, 2.5, s.IN_PROGRESS!.id);
  });

  it('keeps the column counts equal to the live tickets of each status', async () => {
    const counts = await countsOf(world);
    expect(counts).toEqual(await countsFromTickets(world));
    expect(counts[world.statuses.IN_PROGRESS!.id]).toEqual({ total: 7, archived: 2 });
    expect(await countsOf(world, world.otherBoardId)).toEqual(await countsFromTickets(world, world.otherBoardId));
  });

  // One case per view and page size, so no case needs more than a fraction of its timeout on a busy machine.
  it.each(VIEWS.flatMap((flag) => [3, 7, 100].map((limit) => [flag, limit] as const)))(
    'lists every page of the default, planning and archived views like the full-read path (%s, limit %i)',
    async (flag, limit) => {
      await expectAllPagesSame(world, flag, [limit]);
    },
  );

  it('lists one ticket per page in index order (position, then ticket id on equal positions)', async () => {
    await expectAllPagesSame(world, 'includePlanning=true&includeArchived=true', [1]);
  });

  it.each([['IN_PROGRESS'], ['DONE'], ['SHIPPED'], ['DONE', 'BACKLOG', 'IN_PROGRESS', 'IN_PROGRESS'], ['IN_REVIEW', 'unknown']])(
    'lists status filters of any category like the full-read path, with and without the flags (%s …)',
    async (...keys: string[]) => {
      const filter = `statusId=${keys.map((key) => world.statuses[key]?.id ?? 'sts_unknown').join(',')}`;
      await expectAllPagesSame(world, filter, [2, 100]);
      await expectAllPagesSame(world, `${filter}&includeArchived=true`, [2]);
    },
  );

  it('answers an empty page with the exact total, and a board without tickets with zero', async () => {
    const response = await expectSameAsFullRead(world, 'page=50&limit=20');
    expect(response.body.data).toEqual([]);
    expect(response.body.total).toBeGreaterThan(0);
    const empty = await call(world.org, 'POST', '/api/v1/boards', { name: 'Empty', prefix: 'EMP' }, 201);
    const list = await call(world.org, 'GET', ticketsOf(empty.body.id), undefined, 200);
    expect(list.body).toEqual({ data: [], total: 0, page: 1, pageSize: 20, totalPages: 0 });
  });

  it('hides the isFinal ACTIVE column and the FINAL columns without includeArchived, and shows them with it', async () => {
    const s = world.statuses;
    const shown = async (query: string) => new Set(keysOf(world, await call(world.org, 'GET', `${ticketsOf(world.boardId)}?${query}&limit=100`, undefined, 200)));
    expect(await shown('')).toEqual(new Set(['IN_PROGRESS', 'IN_REVIEW', 'BLOCKED']));
    expect(await shown('includePlanning=true')).toEqual(new Set(['BACKLOG', 'TODO', 'IN_PROGRESS', 'IN_REVIEW', 'BLOCKED']));
    expect(await shown('includeArchived=true')).toEqual(new Set(['IN_PROGRESS', 'IN_REVIEW', 'BLOCKED', 'SHIPPED', 'DONE', 'CANCELLED']));
    expect(s.SHIPPED!.category).toBe('ACTIVE');
  });
});

describe('column counts follow every kind of ticket write', () => {
  let world: World;
  beforeAll(async () => {
    world = await newWorld();
  });

  it('counts creates, archive and restore, status changes, reorders into another column, moves and deletes', async () => {
    const { org, boardId, otherBoardId } = world;
    const s = world.statuses;
    const todo = s.TODO!.id;
    const progress = s.IN_PROGRESS!.id;
    const review = s.IN_REVIEW!.id;

    const a = await newTicket(org, boardId, 'a', { statusId: todo });
    const b = await newTicket(org, boardId, 'b', { statusId: todo });
    const c = await newTicket(org, boardId, 'c', { statusId: progress, isArchived: true });
    expect(await countsOf(world)).toEqual({ [todo]: { total: 2, archived: 0 }, [progress]: { total: 1, archived: 1 } });

    await call(org, 'PATCH', `${ticketsOf(boardId)}/${a}`, { isArchived: true }, 200);
    expect(await countsOf(world)).toEqual({ [todo]: { total: 2, archived: 1 }, [progress]: { total: 1, archived: 1 } });
    await call(org, 'PATCH', `${ticketsOf(boardId)}/${c}`, { isArchived: false }, 200);
    expect(await countsOf(world)).toEqual({ [todo]: { total: 2, archived: 1 }, [progress]: { total: 1, archived: 0 } });

    // An archived ticket changing status carries its archived mark to the new column.
    await call(org, 'PATCH', `${ticketsOf(boardId)}/${a}/status`, { statusId: progress }, 200);
    expect(await countsOf(world)).toEqual({ [todo]: { total: 1, archived: 0 }, [progress]: { total: 2, archived: 1 } });

    await call(org, 'PATCH', `${ticketsOf(boardId)}/reorder`, { ticketId: b, position: 5, statusId: review }, 200);
    expect(await countsOf(world)).toEqual({ [progress]: { total: 2, archived: 1 }, [review]: { total: 1, archived: 0 } });
    // A reorder within the column changes no count.
    await call(org, 'PATCH', `${ticketsOf(boardId)}/reorder`, { ticketId: b, position: 1 }, 200);
    expect(await countsOf(world)).toEqual({ [progress]: { total: 2, archived: 1 }, [review]: { total: 1, archived: 0 } });

    await call(org, 'POST', `${ticketsOf(boardId)}/${c}/move`, { targetBoardId: otherBoardId }, 200);
    expect(await countsOf(world)).toEqual({ [progress]: { total: 1, archived: 1 }, [review]: { total: 1, archived: 0 } });
    expect(await countsOf(world, otherBoardId)).toEqual({ [progress]: { total: 1, archived: 0 } });
    await call(org, 'POST', `${ticketsOf(otherBoardId)}/${c}/move`, { targetBoardId: boardId }, 200);
    expect(await countsOf(world)).toEqual({ [progress]: { total: 2, archived: 1 }, [review]: { total: 1, archived: 0 } });
    expect(await countsOf(world, otherBoardId)).toEqual({});

    await call(org, 'DELETE', `${ticketsOf(boardId)}/${a}`, undefined, 204);
    expect(await countsOf(world)).toEqual({ [progress]: { total: 1, archived: 0 }, [review]: { total: 1, archived: 0 } });
    await call(org, 'DELETE', `${ticketsOf(boardId)}/${b}`, undefined, 204);
    expect(await countsOf(world)).toEqual({ [progress]: { total: 1, archived: 0 } });
    expect(await countsOf(world)).toEqual(await countsFromTickets(world));
  });

  it('leaves the counts alone when a write is refused', async () => {
    const { org, boardId } = world;
    const before = await countsOf(world);
    expect((await org.call('POST', ticketsOf(boardId), { body: { title: 'refused', statusId: 'sts_unknown' } })).status).toBe(400);
    expect(await countsOf(world)).toEqual(before);
  });

  it('counts are unchanged by comments, and a status moved to another category keeps its tickets listed in order', async () => {
    const { org, boardId } = world;
    const status = (await call(org, 'POST', '/api/v1/statuses', { name: 'Triage', color: '#abcdef', category: 'ACTIVE' }, 201)).body;
    const first = await newTicket(org, boardId, 'triage first', { statusId: status.id });
    const second = await newTicket(org, boardId, 'triage second', { statusId: status.id });
    await call(org, 'PATCH', `${ticketsOf(boardId)}/reorder`, { ticketId: second, position: 0 }, 200);
    await call(org, 'POST', `${ticketsOf(boardId)}/${first}/comments`, { content: 'A comment' }, 201);
    const before = await countsOf(world);
    expect(before[status.id]).toEqual({ total: 2, archived: 0 });

    await call(org, 'PATCH', `/api/v1/statuses/${status.id}`, { category: 'PLANNING' }, 200);

    expect(await countsOf(world)).toEqual(before);
    const listed = await expectSameAsFullRead(world, `statusId=${status.id}`);
    expect(listed.body.data.map((ticket: any) => ticket.id)).toEqual([second, first]);
    expect(listed.body.data[0].status.category).toBe('PLANNING');
    const planning = await expectSameAsFullRead(world, 'includePlanning=true');
    expect(planning.body.data.map((ticket: any) => ticket.id)).toEqual(expect.arrayContaining([second, first]));
    expect((await expectSameAsFullRead(world, '')).body.data.map((ticket: any) => ticket.id)).not.toContain(first);
  });
});

describe('a board still holding tickets of a deleted status', () => {
  it('lists them after every known status, like the full-read path', async () => {
    const world = await newWorld();
    const { org, boardId } = world;
    const gone = (await call(org, 'POST', '/api/v1/statuses', { name: 'Gone', color: '#123456', category: 'ACTIVE' }, 201)).body;
    const orphan = await newTicket(org, boardId, 'orphan', { statusId: gone.id });
    await newTicket(org, boardId, 'known', { statusId: world.statuses.IN_PROGRESS!.id });
    await call(org, 'DELETE', `/api/v1/statuses/${gone.id}`, undefined, 204);

    const listed = await expectSameAsFullRead(world, '');
    expect(listed.body.data.map((ticket: any) => ticket.id).at(-1)).toBe(orphan);
    expect(listed.body.total).toBe(2);
    await expectAllPagesSame(world, 'includePlanning=true&includeArchived=true', [1]);
  });
});

describe('pages of the column path (their costs: round-trips/scenarios.test.ts)', () => {
  let world: World;
  beforeAll(async () => {
    world = await newWorld();
    const s = world.statuses;
    for (let index = 0; index < 6; index += 1) await newTicket(world.org, world.boardId, `progress ${index}`, { statusId: s.IN_PROGRESS!.id });
    // An archived ticket at the front of the review column: the column's Limit covers it.
    const archived = await newTicket(world.org, world.boardId, 'review archived', { statusId: s.IN_REVIEW!.id, isArchived: true });
    await call(world.org, 'PATCH', `${ticketsOf(world.boardId)}/reorder`, { ticketId: archived, position: 0 }, 200);
    for (let index = 0; index < 4; index += 1) await newTicket(world.org, world.boardId, `review ${index}`, { statusId: s.IN_REVIEW!.id });
    for (let index = 0; index < 3; index += 1) await newTicket(world.org, world.boardId, `blocked ${index}`, { statusId: s.BLOCKED!.id });
    for (let index = 0; index < 30; index += 1) await newTicket(world.org, world.boardId, `done ${index}`, { statusId: s.DONE!.id });
  });

  const list = (query: string) => world.org.call('GET', `${ticketsOf(world.boardId)}?${query}`);

  it('page 1 of a column', async () => {
    const response = await list(`statusId=${world.statuses.DONE!.id}&limit=5`);
    expect(response.body.total).toBe(30);
    expect(response.body.data).toHaveLength(5);
  });

  it('the default list takes each page from the columns it reaches', async () => {
    const first = await list('limit=5');
    expect(first.body.total).toBe(13);
    expect(keysOf(world, first)).toEqual(Array(5).fill('IN_PROGRESS'));
    // Page 2 (items 6–10) reaches IN_PROGRESS's last ticket and IN_REVIEW: two column Queries, in parallel.
    const second = await list('limit=5&page=2');
    expect(keysOf(world, second)).toEqual(['IN_PROGRESS', 'IN_REVIEW', 'IN_REVIEW', 'IN_REVIEW', 'IN_REVIEW']);
    // Page 3 (items 11–13) is BLOCKED only: the two columns before it are skipped by their counts.
    const third = await list('limit=5&page=3');
    expect(keysOf(world, third)).toEqual(['BLOCKED', 'BLOCKED', 'BLOCKED']);
  });

  it('a list with any other filter answers from the full-read path', async () => {
    const response = await list(`limit=5&needsReassignment=false`);
    expect(response.body.total).toBe(13);
  });
});

describe('reorder positions', () => {
  let world: World;
  let ticketId: string;
  beforeAll(async () => {
    world = await newWorld();
    ticketId = await newTicket(world.org, world.boardId, 'to reorder');
  });

  it.each([
    ['a negative position', -1],
    ['a position of 1e15', 1e15],
    ['a position above 1e15', 1e20],
  ])('rejects %s with 400 naming position and writes nothing', async (_name, position) => {
    const before = (await call(world.org, 'GET', `${ticketsOf(world.boardId)}/${ticketId}`, undefined, 200)).body.data.position;
    expectValidationError(await world.org.call('PATCH', `${ticketsOf(world.boardId)}/reorder`, { body: { ticketId, position } }), 'position');
    expect((await call(world.org, 'GET', `${ticketsOf(world.boardId)}/${ticketId}`, undefined, 200)).body.data.position).toBe(before);
  });

  it('accepts 0 and the largest position below 1e15', async () => {
    for (const position of [0, 1e15 - 1]) {
      const response = await world.org.call('PATCH', `${ticketsOf(world.boardId)}/reorder`, { body: { ticketId, position } });
      expect(response.status).toBe(200);
      expect(response.body.data.position).toBe(position);
    }
  });
});

describe('GET /api/v1/issues across boards answers exactly what the full-read path answers', () => {
  let world: World;
  let large: string[];
  let small: string;

  /** Marks a board large for /issues' column path (its counter is an upper bound of its tickets). */
  const makeLarge = (boardId: string) => db().entities.board.patch({ orgId: world.org.orgId, boardId }).set({ ticketCounter: 500 }).go();

  beforeAll(async () => {
    world = await newWorld();
    const { org } = world;
    const s = world.statuses;
    const third = (await call(org, 'POST', '/api/v1/boards', { name: 'Third', prefix: 'THR' }, 201)).body.id;
    large = [world.boardId, world.otherBoardId];
    small = third;
    for (const boardId of large) await makeLarge(boardId);

    const ids: Record<string, string[]> = {};
    const fill = async (boardId: string, key: string, count: number, extra: Record<string, unknown> = {}) => {
      for (let index = 0; index < count; index += 1) {
        ids[`${boardId}:${key}`] ??= [];
        ids[`${boardId}:${key}`]!.push(await newTicket(org, boardId, `${key} ${index}`, { statusId: s[key]!.id, ...extra }));
      }
    };
    for (const boardId of [...large, small]) {
      await fill(boardId, 'BACKLOG', 2);
      await fill(boardId, 'TODO', 1);
      await fill(boardId, 'IN_PROGRESS', 4);
      await fill(boardId, 'IN_REVIEW', 2);
      await fill(boardId, 'DONE', 2);
      await fill(boardId, 'IN_PROGRESS', 1, { isArchived: true });
    }
    // Interleaved and tied positions across boards in one column (ties break by ticket id).
    const reorder = (boardId: string, ticketId: string, position: number) => call(org, 'PATCH', `${ticketsOf(boardId)}/reorder`, { ticketId, position }, 200);
    const [a, b] = large as [string, string];
    for (const [index, boardId] of [a, b, small].entries()) {
      const column = ids[`${boardId}:IN_PROGRESS`]!;
      await reorder(boardId, column[0]!, 5);
      await reorder(boardId, column[1]!, index + 1);
      await reorder(boardId, column[2]!, 10 - index);
    }
    // A deleted ticket on a large board, a move from a large board to the small one, a status change.
    await call(org, 'DELETE', `${ticketsOf(a)}/${ids[`${a}:IN_REVIEW`]![0]}`, undefined, 204);
    await call(org, 'POST', `${ticketsOf(a)}/${ids[`${a}:TODO`]![0]}/move`, { targetBoardId: small }, 200);
    await call(org, 'PATCH', `${ticketsOf(b)}/${ids[`${b}:IN_PROGRESS`]![3]}/status`, { statusId: s.IN_REVIEW!.id }, 200);
  });

  async function expectIssuesSame(query: string): Promise<ApiResponse> {
    const fast = await world.org.call('GET', `/api/v1/issues?${query}`);
    const full = await world.org.call('GET', `/api/v1/issues?${query}&needsReassignment=false`);
    expect(fast.status, query).toBe(200);
    expect(full.status, query).toBe(200);
    expect({ query, ids: fast.body.data.map((ticket: any) => ticket.id) }).toEqual({ query, ids: full.body.data.map((ticket: any) => ticket.id) });
    expect({ query, ...fast.body }).toEqual({ query, ...full.body });
    return fast;
  }

  async function expectAllIssuePagesSame(query: string, limits: number[]): Promise<void> {
    for (const limit of limits) {
      const first = await expectIssuesSame(`${query}&limit=${limit}&page=1`);
      for (let page = 2; page <= first.body.totalPages + 1; page += 1) await expectIssuesSame(`${query}&limit=${limit}&page=${page}`);
    }
  }

  it.each(VIEWS.flatMap((flag) => [1, 4, 100].map((limit) => [flag, limit] as const)))(
    'lists every page of the default, planning and archived views over large and small boards (%s, limit %i)',
    async (flag, limit) => {
      await expectAllIssuePagesSame(flag, [limit]);
    },
  );

  it('lists status filters and board subsets the same way', async () => {
    const s = world.statuses;
    await expectAllIssuePagesSame(`statusId=${s.IN_PROGRESS!.id}`, [1, 5]);
    await expectAllIssuePagesSame(`statusId=${s.DONE!.id},${s.BACKLOG!.id}&includeArchived=true`, [3]);
    await expectAllIssuePagesSame(`boardId=${large[0]},${small}`, [2, 100]);
    await expectAllIssuePagesSame(`boardId=${large[1]}&includePlanning=true`, [3]);
  });

  describe('claimable', () => {
    beforeAll(async () => {
      const { org } = world;
      const [a] = large as [string, string];
      const listed = async (boardId: string, query = '') =>
        (await call(org, 'GET', `${ticketsOf(boardId)}?limit=100&includePlanning=true&includeArchived=true&needsReassignment=false${query}`, undefined, 200)).body.data as any[];
      const onA = await listed(a);
      const active = onA.filter((ticket) => ticket.status.id === world.statuses.IN_PROGRESS!.id);
      const archived = active.find((ticket) => ticket.isArchived);
      const live = active.filter((ticket) => !ticket.isArchived);
      const claim = (boardId: string, ticketId: string) => call(org, 'POST', `${ticketsOf(boardId)}/${ticketId}/claim`, {}, 201);
      await claim(a, live[0].id);
      await claim(a, live[1].id);
      await claim(a, archived.id);
      await claim(a, live[2].id);
      await lapseClaim(live[2].id);
      const onSmall = await listed(small);
      await claim(small, onSmall.find((ticket) => ticket.status.id === world.statuses.IN_PROGRESS!.id).id);
    });

    it.each(VIEWS.flatMap((flag) => [1, 4, 100].map((limit) => [`claimable=true${flag ? `&${flag}` : ''}`, limit] as const)))(
      'lists claimable tickets like the full-read path: live claims left out, lapsed ones back in (%s, limit %i)',
      async (flag, limit) => {
        await expectAllIssuePagesSame(flag, [limit]);
      },
    );

    it('lists claimable tickets of one status like the full-read path', async () => {
      await expectAllIssuePagesSame(`claimable=true&statusId=${world.statuses.IN_PROGRESS!.id}&includeArchived=true`, [2]);
    });
  });

  it('answers the first page over large boards with the full-read path\'s total', async () => {
    const first = await world.org.call('GET', '/api/v1/issues?limit=3');
    const full = await world.org.call('GET', `/api/v1/issues?limit=3&needsReassignment=false`);
    expect(first.body.total).toBe(full.body.total);
    expect(first.body.total).toBeGreaterThan(10);
  });
});
