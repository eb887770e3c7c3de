import { beforeAll, describe, expect, it } from 'vitest';
import type { TestOrg } from '../support/api.js';
import { createBoard, createMemberWith, createOrg, createTicket as createAnyTicket } from '../support/factories.js';
import { dispatchedEventsOf } from '../support/events.js';
import { waitUntil } from '../support/wait.js';
import { seedBoard } from '../bench/seed.js';
import { db } from '../../lib/db/service.js';
import { useInProcess } from '../support/api.js';
import { propagateReadiness } from '../../lib/tickets/dependencies/propagate.js';
import { systemClock } from '../../lib/core/clock.js';

// In process, through the same route table and handlers (test/support/api.ts).
useInProcess();

/**
 * Ticket dependencies through the real HTTP interface: PUT/DELETE/GET …/dependencies, cycles,
 * limits and visibility, the counts and readiness on the full ticket, the blocker endpoint, and
 * what the events function carries on when a blocker finishes or is deleted.
 */
let org: TestOrg;
let board: { id: string; prefix?: string };
let otherBoard: { id: string };
let statuses: Record<string, { id: string; category: string }>;

const ticketPath = (ticket: { id: string; boardId?: string }, boardId = board.id) => `/api/v1/boards/${ticket.boardId ?? boardId}/tickets/${ticket.id}`;
const depend = (ticket: { id: string; boardId?: string }, blockerRef: string) => org.call('PUT', `${ticketPath(ticket)}/dependencies/${blockerRef}`);
const full = async (ticket: { id: string; boardId?: string }) => (await org.call('GET', ticketPath(ticket))).body.data;
const moveTo = (ticket: { id: string; boardId?: string }, key: string) => org.call('PATCH', `${ticketPath(ticket)}/status`, { body: { statusId: statuses[key]!.id } });

/** Tickets start In Progress (ACTIVE): in the default workflow, Backlog and To Do are PLANNING, never ready. */
const createTicket = (owner: TestOrg, boardId: string, overrides: Record<string, unknown> = {}) =>
  createAnyTicket(owner, boardId, { statusId: statuses.IN_PROGRESS!.id, ...overrides });

beforeAll(async () => {
  org = await createOrg({ plan: 'PRO' });
  board = await createBoard(org);
  otherBoard = await createBoard(org);
  const listed = (await org.call('GET', '/api/v1/statuses')).body.data as { id: string; key: string; category: string }[];
  statuses = Object.fromEntries(listed.map((status) => [status.key, status]));
});

describe('adding, listing and removing dependencies', () => {
  it('records a dependency across boards, idempotently, and shows it from both ends', async () => {
    const ticket = await createTicket(org, board.id, { title: 'Ship it' });
    const blocker = { ...(await createTicket(org, otherBoard.id, { title: 'Build it' })), boardId: otherBoard.id };
    expect((await full(ticket)).isReady).toBe(true);

    const added = await depend(ticket, blocker.displayId);
    expect(added.status, JSON.stringify(added.body)).toBe(200);
    expect(added.body.data.blockedBy).toEqual([
      { id: blocker.id, displayId: blocker.displayId, title: 'Build it', boardId: otherBoard.id, status: expect.objectContaining({ category: 'ACTIVE' }), done: false },
    ]);
    expect(added.body.data.blocks).toEqual([]);
    // Again, by id this time: the same answer, nothing added twice.
    const again = await depend(ticket, blocker.id);
    expect(again.status).toBe(200);
    expect(again.body.data).toEqual(added.body.data);

    const fromBlocker = await org.call('GET', `${ticketPath(blocker)}/dependencies`);
    expect(fromBlocker.status).toBe(200);
    expect(fromBlocker.body.data).toEqual({ blockedBy: [], blocks: [expect.objectContaining({ id: ticket.id, displayId: ticket.displayId, boardId: board.id, done: false })] });

    const shown = await full(ticket);
    expect(shown.openBlockerCount).toBe(1);
    expect(shown.isReady).toBe(false);
    const blockerInfo = (await org.call('GET', `${ticketPath(ticket)}/blocker`)).body.data;
    expect(blockerInfo.isBlocked).toBe(true);
    expect(blockerInfo.blockingTickets.map((entry: { id: string }) => entry.id)).toEqual([blocker.id]);
    expect(blockerInfo.blockerCount).toBe(1);

    const timeline = (await org.call('GET', `${ticketPath(ticket)}/timeline`)).body;
    const kinds = (timeline.data ?? timeline.items ?? []).map((entry: { kind: string }) => entry.kind);
    expect(kinds.filter((kind: string) => kind === 'DEPENDENCY_ADDED')).toHaveLength(1);

    expect((await org.call('DELETE', `${ticketPath(ticket)}/dependencies/${blocker.id}`)).status).toBe(204);
    expect((await org.call('DELETE', `${ticketPath(ticket)}/dependencies/${blocker.id}`)).status).toBe(404);
    const after = await full(ticket);
    expect(after.openBlockerCount).toBe(0);
    expect(after.isReady).toBe(true);
    expect((await org.call('GET', `${ticketPath(ticket)}/dependencies`)).body.data).toEqual({ blockedBy: [], blocks: [] });

    const events = await dispatchedEventsOf(org.orgId, ticket.id, 4);
    const added_ = events.filter((event) => event.type === 'ticket.dependency_added');
    expect(added_).toHaveLength(1);
    expect(added_[0]!.data).toMatchObject({ ticketId: ticket.id, boardId: board.id, projectId: board.id, organizationId: org.orgId, blockerId: blocker.id, claimCount: 0 });
    expect(events.filter((event) => event.type === 'ticket.dependency_removed').map((event) => event.data.blockerId)).toEqual([blocker.id]);
    // Removing the last open blocker unblocks the ticket at once.
    expect(events.filter((event) => event.type === 'ticket.unblocked').map((event) => event.data.lastBlockerId)).toEqual([blocker.id]);
  });

  it('refuses a ticket depending on itself, unknown tickets and a 51st blocker, changing nothing', async () => {
    const ticket = await createTicket(org, board.id);
    const self = await depend(ticket, ticket.displayId);
    expect(self.status).toBe(400);
    expect(self.body.error.code).toBe('VALIDATION_ERROR');
    expect((await depend(ticket, 'tkt_doesnotexist')).status).toBe(404);
    expect((await depend(ticket, 'NOPE-999')).status).toBe(404);
    expect((await org.call('DELETE', `${ticketPath(ticket)}/dependencies/tkt_doesnotexist`)).status).toBe(404);

    // 51 blockers on a board of their own, written in batches as the write path shapes tickets (the limit is under test, not the creates).
    const parts = await createBoard(org);
    const typeId = (await org.call('GET', '/api/v1/ticket-types')).body.data[0].id as string;
    const vocabulary = { activeStatusIds: [statuses.IN_PROGRESS!.id], typeId, assignee: { id: org.adminId, name: 'Unused' }, createdById: org.adminId };
    await seedBoard({ orgId: org.orgId, boardId: parts.id, prefix: parts.prefix }, vocabulary, 51, 1, { assignEvery: Number.MAX_SAFE_INTEGER, searchIndex: false });
    const seeded = (await db().entities.ticket.query.byBoard({ orgId: org.orgId, boardId: parts.id }).go({ pages: 'all' })).data;
    const blockers = seeded.sort((a, b) => a.number - b.number).map((blocker) => ({ id: blocker.ticketId }));
    expect(blockers).toHaveLength(51);
    for (const blocker of blockers.slice(0, 50)) expect((await depend(ticket, blocker.id)).status).toBe(200);
    const tooMany = await depend(ticket, blockers[50]!.id);
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error.code).toBe('VALIDATION_ERROR');
    const listed = (await org.call('GET', `${ticketPath(ticket)}/dependencies`)).body.data;
    expect(listed.blockedBy).toHaveLength(50);
    expect((await full(ticket)).openBlockerCount).toBe(50);
  });

  it('refuses a cycle with 409 DEPENDENCY_CYCLE and the path around it', async () => {
    const [a, b, c] = [await createTicket(org, board.id, { title: 'A' }), await createTicket(org, board.id, { title: 'B' }), await createTicket(org, board.id, { title: 'C' })];
    expect((await depend(a, b.id)).status).toBe(200); // A waits for B
    expect((await depend(b, c.id)).status).toBe(200); // B waits for C
    const direct = await depend(b, a.id);
    expect(direct.status).toBe(409);
    expect(direct.body.error.code).toBe('DEPENDENCY_CYCLE');
    expect(direct.body.error.details.path).toEqual([b.displayId, a.displayId, b.displayId]);
    const around = await depend(c, a.id);
    expect(around.status).toBe(409);
    expect(around.body.error.details.path).toEqual([c.displayId, a.displayId, b.displayId, c.displayId]);
    expect((await org.call('GET', `${ticketPath(c)}/dependencies`)).body.data.blockedBy).toEqual([]);
    expect((await full(c)).openBlockerCount).toBe(0);
  });

  it('lets exactly one of two concurrent opposite dependencies through', async () => {
    for (let round = 0; round < 3; round += 1) {
      const [a, b] = [await createTicket(org, board.id), await createTicket(org, board.id)];
      const answers = await Promise.all([depend(a, b.id), depend(b, a.id)]);
      expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409]);
      const [fromA, fromB] = await Promise.all([org.call('GET', `${ticketPath(a)}/dependencies`), org.call('GET', `${ticketPath(b)}/dependencies`)]);
      expect(fromA.body.data.blockedBy.length + fromB.body.data.blockedBy.length).toBe(1);
    }
  });

  it('refuses none of six concurrent additions of different blockers to one ticket: no contention on its version, every one counted', async () => {
    for (let round = 0; round < 3; round += 1) {
      const ticket = await createTicket(org, board.id, { title: `Waits on six, round ${round}` });
      const blockers = await Promise.all(Array.from({ length: 6 }, (_, index) => createTicket(org, board.id, { title: `Blocker ${index}` })));
      const answers = await Promise.all(blockers.map((blocker) => depend(ticket, blocker.id)));
      expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200, 200]);
      const shown = await full(ticket);
      expect(shown.openBlockerCount).toBe(6);
      // That none of them retried once the ticket was blocked is held by round trips in test/http/round-trips/.
      expect(shown.isReady).toBe(false);
      // Removed at once too: each counted off, the last one unblocks it.
      const removed = await Promise.all(blockers.map((blocker) => org.call('DELETE', `${ticketPath(ticket)}/dependencies/${blocker.id}`)));
      expect(removed.map((answer) => answer.status)).toEqual(blockers.map(() => 204));
      const after = await full(ticket);
      expect([after.openBlockerCount, after.isReady]).toEqual([0, true]);
    }
  });

  it('lets exactly one of two concurrent opposite dependencies through between tickets already blocked (their counts move in place)', async () => {
    for (let round = 0; round < 3; round += 1) {
      const [a, b, c] = [await createTicket(org, board.id), await createTicket(org, board.id), await createTicket(org, board.id)];
      expect([(await depend(a, c.id)).status, (await depend(b, c.id)).status]).toEqual([200, 200]);
      const answers = await Promise.all([depend(a, b.id), depend(b, a.id)]);
      expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409]);
      const [fromA, fromB] = await Promise.all([org.call('GET', `${ticketPath(a)}/dependencies`), org.call('GET', `${ticketPath(b)}/dependencies`)]);
      expect(fromA.body.data.blockedBy.length + fromB.body.data.blockedBy.length).toBe(3);
      expect([(await full(a)).openBlockerCount + (await full(b)).openBlockerCount]).toEqual([3]);
    }
  });

  it('needs tickets:edit, and answers 404 for a blocker on a board the caller cannot see', async () => {
    const ticket = await createTicket(org, board.id);
    const hidden = await createTicket(org, otherBoard.id);
    const reader = await createMemberWith(org, [], { boardIds: [board.id] });
    const editor = await createMemberWith(org, ['tickets:edit'], { boardIds: [board.id] });
    const visible = await createTicket(org, board.id);
    expect((await reader.call('PUT', `${ticketPath(ticket)}/dependencies/${visible.id}`)).status).toBe(403);
    expect((await editor.call('PUT', `${ticketPath(ticket)}/dependencies/${hidden.id}`)).status).toBe(404);
    expect((await editor.call('PUT', `${ticketPath(ticket)}/dependencies/${visible.id}`)).status).toBe(200);
    // What the editor cannot see stays out of the lists.
    expect((await depend(ticket, hidden.id)).status).toBe(200);
    const seen = (await editor.call('GET', `${ticketPath(ticket)}/dependencies`)).body.data;
    expect(seen.blockedBy.map((ref: { id: string }) => ref.id)).toEqual([visible.id]);
  });
});

describe('what a blocker finishing, reopening or going away does', () => {
  it('unblocks the ticket when its last open blocker becomes FINAL, and blocks it again when one reopens', async () => {
    const ticket = await createTicket(org, board.id, { title: 'Waits for two' });
    const [first, second] = [await createTicket(org, board.id), await createTicket(org, otherBoard.id)];
    const secondRef = { ...second, boardId: otherBoard.id };
    expect((await depend(ticket, first.id)).status).toBe(200);
    expect((await depend(ticket, second.id)).status).toBe(200);
    expect((await moveTo(first, 'DONE')).status).toBe(200);
    expect((await waitUntil(() => full(ticket), (shown) => shown.openBlockerCount === 1)).openBlockerCount).toBe(1);
    expect((await full(ticket)).isReady).toBe(false);
    expect((await moveTo(secondRef, 'DONE')).status).toBe(200);
    const ready = await waitUntil(() => full(ticket), (shown) => shown.isReady === true);
    expect(ready.openBlockerCount).toBe(0);
    expect(ready.isReady).toBe(true);
    const refs = (await org.call('GET', `${ticketPath(ticket)}/dependencies`)).body.data.blockedBy;
    expect(refs.map((ref: { done: boolean }) => ref.done)).toEqual([true, true]);
    expect((await org.call('GET', `${ticketPath(ticket)}/blocker`)).body.data.isBlocked).toBe(false);

    const events = await waitUntil(() => dispatchedEventsOf(org.orgId, ticket.id, 3), (found) => found.some((event) => event.type === 'ticket.unblocked'));
    expect(events.filter((event) => event.type === 'ticket.unblocked').map((event) => event.data.lastBlockerId)).toEqual([second.id]);

    expect((await moveTo(first, 'TODO')).status).toBe(200);
    const blocked = await waitUntil(() => full(ticket), (shown) => shown.openBlockerCount === 1);
    expect(blocked.isReady).toBe(false);
  });

  it('names the blocker that closed last when an earlier close\'s backstop is the recount that finds none open', async () => {
    const ticket = await createTicket(org, board.id);
    const [first, second] = [await createTicket(org, board.id), await createTicket(org, board.id)];
    expect((await depend(ticket, first.id)).status).toBe(200);
    expect((await depend(ticket, second.id)).status).toBe(200);
    expect((await moveTo(first, 'DONE')).status).toBe(200);
    await waitUntil(() => full(ticket), (shown) => shown.openBlockerCount === 1);
    // The second blocker is stored as finished, a moment before its own write recounts: then the
    // events function runs the first blocker's backstop.
    const later = new Date(Date.now() + 1000).toISOString();
    const stored = (await db().entities.ticket.get({ ticketId: second.id }).go()).data!;
    await db().entities.ticket.put({ ...stored, statusCategory: 'FINAL', statusChangedAt: later }).go();
    await propagateReadiness({ eventId: 'evt_backstop', orgId: org.orgId, subjectId: first.id, type: 'tickets.readiness', occurredAt: later, data: { ticketId: first.id, parentIds: [], deleted: false, dependents: true, sameParent: true } }, systemClock);
    expect((await full(ticket)).openBlockerCount).toBe(0);
    const events = await waitUntil(() => dispatchedEventsOf(org.orgId, ticket.id, 3), (found) => found.some((event) => event.type === 'ticket.unblocked'));
    expect(events.filter((event) => event.type === 'ticket.unblocked').map((event) => event.data.lastBlockerId)).toEqual([second.id]);
  });

  it('removes a deleted ticket\'s dependencies in both directions and unblocks what waited for it', async () => {
    const [waiting, middle, first] = [await createTicket(org, board.id), await createTicket(org, board.id), await createTicket(org, board.id)];
    expect((await depend(waiting, middle.id)).status).toBe(200);
    expect((await depend(middle, first.id)).status).toBe(200);
    expect((await org.call('DELETE', ticketPath(middle))).status).toBe(204);
    const unblocked = await waitUntil(() => full(waiting), (shown) => shown.isReady === true);
    expect(unblocked.openBlockerCount).toBe(0);
    await waitUntil(
      () => org.call('GET', `${ticketPath(first)}/dependencies`),
      (answer) => answer.body.data.blocks.length === 0,
    );
    expect((await org.call('GET', `${ticketPath(first)}/dependencies`)).body.data).toEqual({ blockedBy: [], blocks: [] });
    expect((await org.call('GET', `${ticketPath(waiting)}/dependencies`)).body.data).toEqual({ blockedBy: [], blocks: [] });
    const events = await waitUntil(() => dispatchedEventsOf(org.orgId, waiting.id, 2), (found) => found.some((event) => event.type === 'ticket.unblocked'));
    expect(events.find((event) => event.type === 'ticket.unblocked')!.data.lastBlockerId).toBe(middle.id);
  });

  it('keeps a parent out of ready work while a subticket is open', async () => {
    const parent = await createTicket(org, board.id, { title: 'Epic' });
    const created = await org.call('POST', `${ticketPath(parent)}/subtickets`, { body: { title: 'Part' } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const sub = created.body.data;
    expect((await waitUntil(() => full(parent), (shown) => shown.isReady === false)).isReady).toBe(false);
    expect((await moveTo(sub, 'DONE')).status).toBe(200);
    expect((await waitUntil(() => full(parent), (shown) => shown.isReady === true)).isReady).toBe(true);
  });
});
