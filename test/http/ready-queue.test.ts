import { beforeAll, describe, expect, it } from 'vitest';
import { api, setPlan, useInProcess } from '../support/api.js';
import { boardSetup, lapseClaim, type BoardSetup } from '../support/tickets.js';
import { dispatchedEventsOf } from '../support/events.js';
import { createAgent, createBoard, createLabel, createTicket as createAnyTicket, createTicketType } from '../support/factories.js';
import { waitUntil } from '../support/wait.js';

// In process, through the same route table and handlers (test/support/api.ts).
useInProcess();

/**
 * Ready work, claim-next and handoffs through the real HTTP interface: `GET /issues?ready=true`,
 * `POST /claims/next`, `DELETE …/claim` with a handoff, heartbeat notes, automatic handoffs of
 * lapsed leases and `GET …/handoffs`.
 */
let s: BoardSetup;

const ticketPath = (boardId: string, ticketId: string) => `/api/v1/boards/${boardId}/tickets/${ticketId}`;
/** A ticket In Progress (ACTIVE): the default workflow's Backlog and To Do are PLANNING, never ready. */
const createTicket = (boardId: string, overrides: Record<string, unknown> = {}) => createAnyTicket(s.org, boardId, { statusId: s.statuses.IN_PROGRESS.id, ...overrides });
const readyIds = async (query = '', call = s.org.call) => {
  const answer = await call('GET', `/api/v1/issues?ready=true&limit=100${query}`);
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return { ids: (answer.body.data as { id: string }[]).map((ticket) => ticket.id), total: answer.body.total as number };
};

beforeAll(async () => {
  s = await boardSetup('Ready work', 'RDY');
  await setPlan(s.org.slug, 'PRO');
});

describe('GET /api/v1/issues?ready=true', () => {
  it('lists exactly the ready tickets, by priority, then due date, then position', async () => {
    const board = await createBoard(s.org, { name: 'Queue order' });
    const mk = (overrides: Record<string, unknown>) => createTicket(board.id, overrides);
    const low = await mk({ title: 'low', priority: 'low' });
    const mediumLate = await mk({ title: 'medium, due late', priority: 'medium', dueDate: '2027-03-01T00:00:00.000Z' });
    const mediumNone = await mk({ title: 'medium, no due date', priority: 'medium' });
    const mediumSoon = await mk({ title: 'medium, due soon', priority: 'medium', dueDate: '2027-01-01T00:00:00.000Z' });
    const critical = await mk({ title: 'critical', priority: 'critical' });
    const high = await mk({ title: 'high', priority: 'high' });
    // Never ready: planning, the BLOCKED status, final, archived, claimed, waiting for another ticket, a parent with an open subticket.
    await mk({ title: 'planning', statusId: s.statuses.TODO.id });
    await mk({ title: 'blocked status', statusId: s.statuses.BLOCKED.id });
    await mk({ title: 'done', statusId: s.statuses.DONE.id });
    const archived = await mk({ title: 'archived' });
    expect((await s.org.call('PATCH', ticketPath(board.id, archived.id), { body: { isArchived: true } })).status).toBe(200);
    const claimed = await mk({ title: 'claimed', priority: 'critical' });
    expect((await s.org.call('POST', `${ticketPath(board.id, claimed.id)}/claim`, { body: {} })).status).toBe(201);
    const waiting = await mk({ title: 'waiting', priority: 'critical' });
    expect((await s.org.call('PUT', `${ticketPath(board.id, waiting.id)}/dependencies/${low.id}`)).status).toBe(200);
    const parent = await mk({ title: 'parent', priority: 'critical' });
    const sub = await s.org.call('POST', `${ticketPath(board.id, parent.id)}/subtickets`, { body: { title: 'sub' } });
    expect(sub.status).toBe(201);
    const expected = [critical.id, high.id, mediumSoon.id, mediumLate.id, mediumNone.id, low.id];
    const listed = await waitUntil(() => readyIds(`&boardId=${board.id}`), (found) => found.ids.join() === expected.join());
    expect(listed.ids).toEqual(expected);
    expect(listed.total).toBe(6);

    // Pages of the same order, with the exact total.
    const page2 = await s.org.call('GET', `/api/v1/issues?ready=true&boardId=${board.id}&limit=4&page=2`);
    expect(page2.body.data.map((ticket: { id: string }) => ticket.id)).toEqual(expected.slice(4));
    expect(page2.body).toMatchObject({ total: 6, page: 2, pageSize: 4, totalPages: 2 });

    // A lapsed, unswept claim is ready again at once.
    await lapseClaim(claimed.id);
    const withLapsed = await readyIds(`&boardId=${board.id}`);
    expect(withLapsed.ids).toEqual([critical.id, claimed.id, ...expected.slice(1)]);
    expect(withLapsed.total).toBe(7);
  });

  it('answers the same pages and exact total from the counts as from a full read of the ready work, through every change of readiness', async () => {
    const world = await boardSetup('Counted ready', 'CRD');
    const [one, two] = [world.boardId, (await createBoard(world.org, { name: 'Counted two' })).id];
    const mk = (boardId: string, n: number, overrides: Record<string, unknown> = {}) =>
      createAnyTicket(world.org, boardId, { title: `Counted ${n}`, statusId: world.statuses.IN_PROGRESS.id, priority: ['low', 'medium', 'high', 'critical'][n % 4], ...overrides });
    const tickets: Awaited<ReturnType<typeof mk>>[] = [];
    for (let n = 0; n < 14; n += 1) tickets.push(await mk(n % 2 === 0 ? one : two, n));
    const path = (ticket: { id: string; boardId: string }) => ticketPath(ticket.boardId, ticket.id);
    // Every way in and out of the queue: a claim, a lapsed claim, a dependency, the BLOCKED
    // status, a PLANNING status, archiving, deleting, a move to the other board, a finished blocker.
    expect((await world.org.call('POST', `${path(tickets[0]!)}/claim`, { body: {} })).status).toBe(201);
    expect((await world.org.call('POST', `${path(tickets[1]!)}/claim`, { body: {} })).status).toBe(201);
    await lapseClaim(tickets[1]!.id);
    expect((await world.org.call('PUT', `${path(tickets[2]!)}/dependencies/${tickets[3]!.id}`)).status).toBe(200);
    expect((await world.org.call('PATCH', `${path(tickets[4]!)}/status`, { body: { statusId: world.statuses.BLOCKED.id } })).status).toBe(200);
    expect((await world.org.call('PATCH', `${path(tickets[5]!)}/status`, { body: { statusId: world.statuses.TODO.id } })).status).toBe(200);
    expect((await world.org.call('PATCH', path(tickets[6]!), { body: { isArchived: true } })).status).toBe(200);
    expect((await world.org.call('DELETE', path(tickets[7]!))).status).toBe(204);
    expect((await world.org.call('POST', `${path(tickets[8]!)}/move`, { body: { targetBoardId: tickets[8]!.boardId === one ? two : one } })).status).toBe(200);
    expect((await world.org.call('PUT', `${path(tickets[9]!)}/dependencies/${tickets[10]!.id}`)).status).toBe(200);
    expect((await world.org.call('PATCH', `${path(tickets[10]!)}/status`, { body: { statusId: world.statuses.DONE.id } })).status).toBe(200);
    // The recount of tickets[9]'s blockers is carried by the events function.
    await waitUntil(() => world.org.call('GET', path(tickets[9]!)), (answer) => answer.body.data.openBlockerCount === 0);

    const every = 'priority=critical,high,medium,low';
    const pages = async (filter: string, limit: number) => {
      const first = await world.org.call('GET', `/api/v1/issues?ready=true&limit=${limit}${filter}`);
      const ids: string[] = [];
      for (let page = 1; page <= Math.max(1, first.body.totalPages); page += 1) {
        const answer = page === 1 ? first : await world.org.call('GET', `/api/v1/issues?ready=true&limit=${limit}&page=${page}${filter}`);
        expect(answer.status, JSON.stringify(answer.body)).toBe(200);
        ids.push(...answer.body.data.map((ticket: { id: string }) => ticket.id));
      }
      return { total: first.body.total as number, ids };
    };
    for (const limit of [3, 100]) {
      const counted = await pages('', limit);
      const fullRead = await pages(`&${every}`, limit);
      expect(counted).toEqual(fullRead);
      // 14 made; out of the queue: claimed, waiting, BLOCKED status, PLANNING, archived, deleted, finished.
      expect(counted.total).toBe(7);
      expect(new Set(counted.ids).size).toBe(7);
      const onOne = await pages(`&boardId=${one}`, limit);
      expect(onOne).toEqual(await pages(`&boardId=${one}&${every}`, limit));
    }
  });

  it('combines with the label, type and priority filters and shows only boards the caller may see', async () => {
    const board = await createBoard(s.org, { name: 'Filtered' });
    const hiddenBoard = await createBoard(s.org, { name: 'Hidden' });
    const label = await createLabel(s.org);
    const type = await createTicketType(s.org);
    const labelled = await createTicket(board.id, { labelIds: [label.id], priority: 'high' });
    const typed = await createTicket(board.id, { typeId: type.id, priority: 'low' });
    const plain = await createTicket(board.id, { priority: 'high' });
    const hidden = await createTicket(hiddenBoard.id);
    expect((await readyIds(`&boardId=${board.id}&labelId=${label.id}`)).ids).toEqual([labelled.id]);
    expect((await readyIds(`&boardId=${board.id}&typeId=${type.id}`)).ids).toEqual([typed.id]);
    expect((await readyIds(`&boardId=${board.id}&priority=high`)).ids.sort()).toEqual([labelled.id, plain.id].sort());
    const agent = await createAgent(s.org, { boardIds: [board.id] });
    const seen = await readyIds('', (method, path) => agent.call(method, path));
    expect(seen.ids).toContain(plain.id);
    expect(seen.ids).not.toContain(hidden.id);
  });
});

describe('POST /api/v1/claims/next', () => {
  it('claims the first ready ticket, answers the claim with the latest handoff, and 204 when nothing is left', async () => {
    const board = await createBoard(s.org, { name: 'Claim next' });
    const agent = await createAgent(s.org, { boardIds: [board.id] });
    const first = await createTicket(board.id, { title: 'First', priority: 'critical' });
    const second = await createTicket(board.id, { title: 'Second', priority: 'medium' });
    await waitUntil(() => readyIds(`&boardId=${board.id}`), (found) => found.total === 2);

    const taken = await agent.call('POST', '/api/v1/claims/next', { boardIds: [board.id], leaseSeconds: 600 });
    expect(taken.status, JSON.stringify(taken.body)).toBe(201);
    expect(taken.body).toMatchObject({
      ticket: { id: first.id, displayId: first.displayId, boardId: board.id },
      claim: { claimedBy: { id: agent.id, isAgent: true }, claimCount: 1 },
      alreadyHeld: false,
      assigned: false,
      handoff: null,
    });
    // Release with a handoff: the next claim of the ticket starts from it.
    const handoff = { summary: 'Parser half done', nextSteps: 'Wire the lexer', branch: 'feat/parser', links: ['https://example.com/pr/1'] };
    const released = await agent.call('DELETE', `${ticketPath(board.id, first.id)}/claim`, { reason: 'end of shift', handoff });
    expect(released.status, JSON.stringify(released.body)).toBe(200);

    const again = await agent.call('POST', '/api/v1/claims/next', { boardIds: [board.id], assign: true });
    expect(again.status).toBe(201);
    expect(again.body.ticket.id).toBe(first.id);
    expect(again.body.assigned).toBe(true);
    expect(again.body.claim.claimCount).toBe(2);
    expect(again.body.handoff).toMatchObject({ ...handoff, ticketId: first.id, from: { id: agent.id, isAgent: true }, claimCount: 1, auto: false, lastNote: null });

    const third = await agent.call('POST', '/api/v1/claims/next', { boardIds: [board.id] });
    expect(third.body.ticket.id).toBe(second.id);
    const none = await agent.call('POST', '/api/v1/claims/next', { boardIds: [board.id] });
    expect(none.status).toBe(204);
    expect(none.body).toBeUndefined();

    const events = await dispatchedEventsOf(s.org.orgId, first.id, 4);
    const releasedEvent = events.find((event) => event.type === 'ticket.claim_released')!;
    expect(releasedEvent.data.handoffId).toBe(again.body.handoff.id);
  });

  it('takes only matching work, only on the boards a token may reach, and refuses read-only tokens and full agents', async () => {
    const board = await createBoard(s.org, { name: 'Restricted' });
    const other = await createBoard(s.org, { name: 'Elsewhere' });
    const label = await createLabel(s.org);
    const onOther = await createTicket(other.id, { priority: 'critical' });
    const unlabelled = await createTicket(board.id, { priority: 'critical' });
    const labelled = await createTicket(board.id, { priority: 'low', labelIds: [label.id] });
    await waitUntil(() => readyIds(`&boardId=${board.id},${other.id}`), (found) => found.total === 3);
    const restricted = await createAgent(s.org, { boardIds: [board.id, other.id], token: { allowedBoardIds: [board.id] }, settings: { maxConcurrentClaims: 1 } });
    const byLabel = await restricted.call('POST', '/api/v1/claims/next', { labelIds: [label.id] });
    expect(byLabel.status).toBe(201);
    expect(byLabel.body.ticket.id).toBe(labelled.id);
    // Its one slot is taken: a ready ticket remains, so the limit answers.
    const full = await restricted.call('POST', '/api/v1/claims/next', {});
    expect(full.status).toBe(403);
    expect(full.body.error.code).toBe('CLAIM_LIMIT_REACHED');
    expect((await restricted.call('DELETE', `${ticketPath(board.id, labelled.id)}/claim`, {})).status).toBe(200);
    const next = await restricted.call('POST', '/api/v1/claims/next', { priorities: ['critical'] });
    expect(next.body.ticket.id).toBe(unlabelled.id);
    expect(next.body.ticket.id).not.toBe(onOther.id);

    // Only the statuses asked for: a more urgent ticket In Review is left for the reviewers.
    const inReview = await createTicket(board.id, { priority: 'critical', statusId: s.statuses.IN_REVIEW.id });
    const working = await createTicket(board.id, { priority: 'low' });
    expect((await restricted.call('DELETE', `${ticketPath(board.id, unlabelled.id)}/claim`, {})).status).toBe(200);
    expect((await s.org.call('PATCH', `${ticketPath(board.id, unlabelled.id)}/status`, { body: { statusId: s.statuses.DONE.id } })).status).toBe(200);
    expect((await s.org.call('PATCH', `${ticketPath(board.id, labelled.id)}/status`, { body: { statusId: s.statuses.DONE.id } })).status).toBe(200);
    const byStatus = await restricted.call('POST', '/api/v1/claims/next', { statusIds: [s.statuses.IN_PROGRESS.id] });
    expect(byStatus.status, JSON.stringify(byStatus.body)).toBe(201);
    expect(byStatus.body.ticket.id).toBe(working.id);
    expect(byStatus.body.ticket.id).not.toBe(inReview.id);

    const reader = await createAgent(s.org, { boardIds: [board.id], token: { readOnly: true } });
    const refused = await reader.call('POST', '/api/v1/claims/next', {});
    expect(refused.status).toBe(403);
    const invalid = await s.org.call('POST', '/api/v1/claims/next', { body: { priorities: ['urgent'] } });
    expect(invalid.status).toBe(400);
  });

  it('gives 12 concurrent agents 12 different tickets and never answers a conflict while work is free', async () => {
    const board = await createBoard(s.org, { name: 'Contended' });
    const tickets = [];
    for (let index = 0; index < 15; index += 1) tickets.push(await createTicket(board.id, { title: `Job ${index}` }));
    await waitUntil(() => readyIds(`&boardId=${board.id}`), (found) => found.total === 15);
    const agents = await Promise.all(Array.from({ length: 12 }, () => createAgent(s.org, { boardIds: [board.id] })));
    const answers = await Promise.all(agents.map((agent) => agent.call('POST', '/api/v1/claims/next', { boardIds: [board.id] })));
    for (const answer of answers) expect(answer.status, JSON.stringify(answer.body)).toBe(201);
    const claimedIds = answers.map((answer) => answer.body.ticket.id);
    expect(new Set(claimedIds).size).toBe(12);
    expect((await readyIds(`&boardId=${board.id}`)).total).toBe(3);
  });

  it('spreads a fleet asking at once over the head of the queue, never further behind it than the window of 32', async () => {
    // An organization of its own: the agents of this file's organization are near its limit.
    const wide = await boardSetup('Wide queue', 'WDQ');
    await setPlan(wide.org.slug, 'PRO');
    const board = { id: wide.boardId };
    for (let batch = 0; batch < 6; batch += 1) {
      await Promise.all(Array.from({ length: 10 }, (_, index) => createAnyTicket(wide.org, board.id, { title: `Queued ${batch * 10 + index}`, statusId: wide.statuses.IN_PROGRESS.id })));
    }
    // The queue's order, as the ready list reads it.
    const queued = await waitUntil(() => readyIds(`&boardId=${board.id}`, wide.org.call), (found) => found.total === 60);
    const agents = await Promise.all(Array.from({ length: 12 }, () => createAgent(wide.org, { boardIds: [board.id], settings: { maxConcurrentClaims: 2 } })));
    const place = new Map(queued.ids.map((id, index) => [id, index]));
    let takenBefore = 0;
    for (let wave = 0; wave < 2; wave += 1) {
      const answers = await Promise.all(agents.map((agent) => agent.call('POST', '/api/v1/claims/next', { boardIds: [board.id] })));
      for (const answer of answers) expect(answer.status, JSON.stringify(answer.body)).toBe(201);
      // A candidate is the head or one of the 32 behind it when the agent read the queue, and the others of this
      // wave and the ones before can only have moved that head on: nothing is taken further down than that.
      for (const answer of answers) expect(place.get(answer.body.ticket.id)!).toBeLessThan(takenBefore + agents.length - 1 + 33);
      takenBefore += agents.length;
    }
    expect((await readyIds(`&boardId=${board.id}`, wide.org.call)).total).toBe(60 - 24);
  });
});

describe('handoffs', () => {
  it('keeps the heartbeat note and leaves an automatic handoff when a lease lapses', async () => {
    const ticket = await createTicket(s.boardId, { title: 'Long job' });
    const agent = await createAgent(s.org, { boardIds: [s.boardId] });
    const path = ticketPath(s.boardId, ticket.id);
    expect((await agent.call('POST', `${path}/claim`, {})).status).toBe(201);
    const beat = await agent.call('POST', `${path}/claim/heartbeat`, { note: 'Tests green; docs next' });
    expect(beat.status).toBe(200);
    await lapseClaim(ticket.id);
    // Another agent's claim ends the lapsed lease: its answer carries the automatic handoff.
    const successor = await createAgent(s.org, { boardIds: [s.boardId] });
    const taken = await successor.call('POST', `${path}/claim`, {});
    expect(taken.status).toBe(201);
    expect(taken.body.handoff).toMatchObject({ auto: true, lastNote: 'Tests green; docs next', lastHeartbeatAt: beat.body.claimHeartbeatAt, claimCount: 1, summary: null, from: { id: agent.id } });
    const listed = await s.org.call('GET', `${path}/handoffs`);
    expect(listed.status).toBe(200);
    expect(listed.body.data).toEqual([taken.body.handoff]);
    const events = await dispatchedEventsOf(s.org.orgId, ticket.id, 3);
    expect(events.find((event) => event.type === 'ticket.claim_expired')!.data.handoffId).toBe(taken.body.handoff.id);
    const timeline = await s.org.call('GET', `${path}/timeline`);
    expect(JSON.stringify(timeline.body)).toContain('HANDOFF');
  });

  it('refuses a bad handoff or note with 400 and changes nothing', async () => {
    const ticket = await createTicket(s.boardId);
    const path = ticketPath(s.boardId, ticket.id);
    expect((await s.org.call('POST', `${path}/claim`, { body: {} })).status).toBe(201);
    for (const handoff of [{}, { summary: '' }, { summary: 'x'.repeat(4001) }, { summary: 'ok', links: ['ftp://example.com'] }, { summary: 'ok', links: Array(11).fill('https://example.com') }, { summary: 'ok', branch: 'b'.repeat(201) }]) {
      const refused = await s.org.call('DELETE', `${path}/claim`, { body: { handoff } });
      expect(refused.status, JSON.stringify(handoff)).toBe(400);
    }
    expect((await s.org.call('POST', `${path}/claim/heartbeat`, { body: { note: 'n'.repeat(1001) } })).status).toBe(400);
    const still = (await s.org.call('GET', path)).body.data;
    expect(still.claim).not.toBeNull();
    expect((await s.org.call('GET', `${path}/handoffs`)).body.data).toEqual([]);
    expect((await api('GET', `${path}/handoffs`, { org: s.org.slug })).status).toBe(401);
  });
});

describe('the fence on comments and time entries (REST)', () => {
  it('refuses a stale X-Claim-Count with CLAIM_SUPERSEDED and a lapsed own lease with CLAIM_NOT_HELD, writing nothing', async () => {
    const ticket = await createTicket(s.boardId, { title: 'Fenced notes' });
    const path = ticketPath(s.boardId, ticket.id);
    const first = await createAgent(s.org, { boardIds: [s.boardId] });
    const second = await createAgent(s.org, { boardIds: [s.boardId] });
    const fenced = (agent: typeof first, method: string, url: string, body: unknown, count: number) =>
      api(method, url, { token: agent.token, org: s.org.slug, body, headers: { 'x-claim-count': String(count) } });
    expect((await first.call('POST', `${path}/claim`, {})).status).toBe(201);
    expect((await fenced(first, 'POST', `${path}/comments`, { content: 'Under my lease' }, 1)).status).toBe(201);
    await lapseClaim(ticket.id);
    const lapsed = await fenced(first, 'POST', `${path}/comments`, { content: 'Too late' }, 1);
    expect(lapsed.status).toBe(409);
    expect(lapsed.body.error.code).toBe('CLAIM_NOT_HELD');
    expect((await second.call('POST', `${path}/claim`, {})).status).toBe(201);
    const comment = await fenced(first, 'POST', `${path}/comments`, { content: 'Overwrites nothing' }, 1);
    expect(comment.status).toBe(409);
    expect(comment.body.error.code).toBe('CLAIM_SUPERSEDED');
    const time = await fenced(first, 'POST', '/api/v1/time-tracking/entries', { ticketId: ticket.id, durationMinutes: 20 }, 1);
    expect(time.status).toBe(409);
    expect(time.body.error.code).toBe('CLAIM_SUPERSEDED');
    expect((await fenced(second, 'POST', '/api/v1/time-tracking/entries', { ticketId: ticket.displayId, durationMinutes: 20 }, 2)).status).toBe(201);
    const onItem = await s.org.call('POST', '/api/v1/time-tracking/booking-items', { body: { name: 'Meetings' } });
    const notATicket = await fenced(second, 'POST', '/api/v1/time-tracking/entries', { bookingItemId: onItem.body.id, durationMinutes: 5 }, 2);
    expect(notATicket.status).toBe(400);
    const comments = await s.org.call('GET', `${path}/comments`);
    expect(comments.body.data.map((entry: { content: string }) => entry.content)).toEqual(['Under my lease']);
    expect((await s.org.call('GET', path)).body.data.commentCount).toBe(1);
    expect((await s.org.call('GET', `${path}/time-entries`)).body.total).toBe(1);
  });
});

describe('readiness is read-your-writes', () => {
  it('refuses to count a finished blocker: its dependent is ready for the very next request, and blocked again the moment the blocker reopens', async () => {
    const board = (await createBoard(s.org, { name: 'Read your writes', prefix: 'RYW' })).id;
    const blocker = await createTicket(board, { title: 'Blocker' });
    const dependent = await createTicket(board, { title: 'Dependent' });
    expect((await s.org.call('PUT', `${ticketPath(board, dependent.id)}/dependencies/${blocker.id}`)).status).toBe(200);
    const agent = await createAgent(s.org, { agent: { name: 'Next request' }, boardIds: [board] });
    const dependentNow = async () => (await s.org.call('GET', ticketPath(board, dependent.id))).body.data;

    expect((await s.org.call('PATCH', `${ticketPath(board, blocker.id)}/status`, { body: { statusId: s.statuses.DONE.id } })).status).toBe(200);
    const unblocked = await dependentNow();
    expect(unblocked.openBlockerCount).toBe(0);
    expect(unblocked.isReady).toBe(true);
    const blockerInfo = (await s.org.call('GET', `${ticketPath(board, dependent.id)}/blocker`)).body.data;
    expect(blockerInfo.blockingTickets).toEqual([]);
    expect(blockerInfo.isBlocked).toBe(false);
    expect((await readyIds()).ids).toContain(dependent.id);

    // Reopened: blocked again before the write answers; claim-next passes it over.
    expect((await s.org.call('PATCH', `${ticketPath(board, blocker.id)}/status`, { body: { statusId: s.statuses.IN_PROGRESS.id } })).status).toBe(200);
    const blocked = await dependentNow();
    expect(blocked.openBlockerCount).toBe(1);
    expect(blocked.isReady).toBe(false);
    expect((await readyIds()).ids).not.toContain(dependent.id);
    const next = await agent.call('POST', '/api/v1/claims/next', { boardIds: [board] });
    expect(next.status).toBe(201);
    expect(next.body.ticket.id).toBe(blocker.id);
    expect((await agent.call('POST', '/api/v1/claims/next', { boardIds: [board] })).status).toBe(204);
  });

  it('refuses to leave any of 30 dependents waiting: more than a batch of recounts is still settled before the write answers', async () => {
    const board = (await createBoard(s.org, { name: 'Wide blocker', prefix: 'RYM' })).id;
    const blocker = await createTicket(board, { title: 'Holds up thirty' });
    const dependents = await Promise.all(Array.from({ length: 30 }, (_, i) => createTicket(board, { title: `Waiting ${i}` })));
    for (const dependent of dependents) {
      expect((await s.org.call('PUT', `${ticketPath(board, dependent.id)}/dependencies/${blocker.id}`)).status).toBe(200);
    }
    expect((await readyIds(`&boardId=${board}`)).ids).toEqual([blocker.id]);
    expect((await s.org.call('PATCH', `${ticketPath(board, blocker.id)}/status`, { body: { statusId: s.statuses.DONE.id } })).status).toBe(200);
    const ready = new Set((await readyIds(`&boardId=${board}`)).ids);
    expect(dependents.filter((d) => !ready.has(d.id)).map((d) => d.id)).toEqual([]);
  });

  it('refuses to keep a deleted blocker counted: its dependent is ready at once', async () => {
    const board = (await createBoard(s.org, { name: 'Deleted blocker', prefix: 'RYD' })).id;
    const blocker = await createTicket(board, { title: 'Going away' });
    const dependent = await createTicket(board, { title: 'Left waiting' });
    expect((await s.org.call('PUT', `${ticketPath(board, dependent.id)}/dependencies/${blocker.id}`)).status).toBe(200);
    expect((await s.org.call('DELETE', ticketPath(board, blocker.id))).status).toBe(204);
    const after = (await s.org.call('GET', ticketPath(board, dependent.id))).body.data;
    expect(after.openBlockerCount).toBe(0);
    expect(after.isReady).toBe(true);
  });
});
