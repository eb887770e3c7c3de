import { beforeAll, describe, expect, it } from 'vitest';
import { api, createMember, createToken, expectValidationError, setPlan, signupOrg, type TestOrg, useInProcess } from '../support/api.js';
import { boardSetup, type BoardSetup as Setup } from '../support/tickets.js';
import { dispatchedEventsOf } from '../support/events.js';
import { waitUntil } from '../support/wait.js';
import { db } from '../../lib/db/service.js';
import { seedBoard } from '../bench/seed.js';
import { createTicket, createBoard, createBoardMember } from '../support/factories.js';

// In process, through the same route table and handlers (test/support/api.ts).
useInProcess();

async function setup(): Promise<Setup> {
  return boardSetup('Workflow board');
}

const ticketsOf = (boardId: string) => `/api/v1/boards/${boardId}/tickets`;

/** The board's list of tickets needing reassignment, once it holds `total` (they are flagged in the background). */
const flaggedOn = (org: TestOrg, boardId: string, total: number) =>
  waitUntil(() => org.call('GET', `${ticketsOf(boardId)}/needing-reassignment`), (list) => list.body?.total === total);

async function getTicket(org: TestOrg, boardId: string, ticketId: string) {
  return (await org.call('GET', `${ticketsOf(boardId)}/${ticketId}`)).body.data;
}

const timelineOf = async (ticketId: string) =>
  (await db().entities.timelineEntry.query.byTicket({ ticketId }).go({ pages: 'all' })).data.sort((a, b) => a.entryId.localeCompare(b.entryId));

const eventTypes = async (org: TestOrg, ticketId: string, count: number) =>
  (await dispatchedEventsOf(org.orgId, ticketId, count)).map((event) => event.type).sort();

describe('changing a ticket’s status (PATCH …/status)', () => {
  let s: Setup;
  beforeAll(async () => {
    s = await setup();
  });

  it('pages the timeline oldest first, reading up to the page, with the exact total', async () => {
    const ticket = await createTicket(s.org, s.boardId);
    for (const key of ['IN_PROGRESS', 'IN_REVIEW', 'IN_PROGRESS', 'DONE', 'IN_PROGRESS']) {
      expect((await s.org.call('PATCH', `${ticketsOf(s.boardId)}/${ticket.id}/status`, { body: { statusId: s.statuses[key].id } })).status).toBe(200);
    }
    const stored = (await timelineOf(ticket.id)).map((entry) => entry.entryId);
    expect(stored).toHaveLength(6);
    const ids: string[] = [];
    for (const page of [1, 2, 3, 4]) {
      const body = (await s.org.call('GET', `${ticketsOf(s.boardId)}/${ticket.id}/timeline?limit=2&page=${page}`)).body;
      expect({ page, total: body.total, totalPages: body.totalPages, length: body.data.length }).toEqual({ page, total: 6, totalPages: 3, length: page <= 3 ? 2 : 0 });
      ids.push(...body.data.map((entry: { id: string }) => entry.id));
    }
    expect(ids).toEqual(stored);
  });

  it('moves the ticket to the status, stores the reason, and records the change on the timeline and as events', async () => {
    const ticket = await createTicket(s.org, s.boardId);

    const response = await s.org.call('PATCH', `${ticketsOf(s.boardId)}/${ticket.id}/status`, {
      body: { statusId: s.statuses.IN_PROGRESS.id, reason: 'Picked up for the sprint' },
    });

    expect(response.status).toBe(200);
    expect(response.body.data).toMatchObject({
      id: ticket.id,
      status: { id: s.statuses.IN_PROGRESS.id, category: 'ACTIVE' },
      statusChangeReason: 'Picked up for the sprint',
      claim: null,
    });
    const timeline = await timelineOf(ticket.id);
    expect(timeline.map((entry) => entry.kind)).toEqual(['CREATED', 'STATUS_CHANGED']);
    expect(timeline[1]!.details).toEqual({ fromStatusId: s.statuses.BACKLOG.id, toStatusId: s.statuses.IN_PROGRESS.id, reason: 'Picked up for the sprint' });
    expect(await eventTypes(s.org, ticket.id, 3)).toEqual(['ticket.created', 'ticket.status_changed', 'ticket.updated']);
    const changed = (await dispatchedEventsOf(s.org.orgId, ticket.id, 3)).find((event) => event.type === 'ticket.status_changed')!;
    expect(changed.data).toEqual({
      ticketId: ticket.id, boardId: s.boardId, projectId: s.boardId, organizationId: s.org.orgId, claimCount: 0,
      oldStatusId: s.statuses.BACKLOG.id, newStatusId: s.statuses.IN_PROGRESS.id, actorId: s.org.adminId,
    });
  });

  it.each([
    ['an unknown status', () => ({ statusId: 'sts_unknown' }), 'statusId'],
    ['a missing status', () => ({}), 'statusId'],
    ['a reason over 500 characters', (st: Setup) => ({ statusId: st.statuses.TODO.id, reason: 'x'.repeat(501) }), 'reason'],
    ['an unknown field', (st: Setup) => ({ statusId: st.statuses.TODO.id, note: 'x' }), 'note'],
  ])('rejects %s with 400 naming the field and writes nothing', async (_name, body, field) => {
    const ticket = await createTicket(s.org, s.boardId);
    const response = await s.org.call('PATCH', `${ticketsOf(s.boardId)}/${ticket.id}/status`, { body: body(s) });
    expectValidationError(response, field);
    expect((await getTicket(s.org, s.boardId, ticket.id)).updatedAt).toBe(ticket.updatedAt);
    expect(await timelineOf(ticket.id)).toHaveLength(1);
  });

  it('rejects a status the board does not show (disabled with PUT /boards/{id}/statuses) with 400 naming statusId', async () => {
    const board = await createBoard(s.org, { name: 'Without review' });
    const shown = Object.values(s.statuses).filter((status: any) => status.key !== 'IN_REVIEW').map((status: any) => status.id);
    expect((await s.org.call('PUT', `/api/v1/boards/${board.id}/statuses`, { body: { statusIds: shown } })).status).toBe(200);
    const ticket = await createTicket(s.org, board.id);

    const response = await s.org.call('PATCH', `${ticketsOf(board.id)}/${ticket.id}/status`, { body: { statusId: s.statuses.IN_REVIEW.id } });

    expectValidationError(response, 'statusId');
    expect((await getTicket(s.org, board.id, ticket.id)).status.id).toBe(s.statuses.BACKLOG.id);
  });

  it('answers 404 for an unknown ticket, a ticket of another board, and another organization', async () => {
    const ticket = await createTicket(s.org, s.boardId);
    const otherBoard = await createBoard(s.org, { name: 'Elsewhere' });
    const other = await signupOrg();
    const body = { statusId: s.statuses.TODO.id };
    expect((await s.org.call('PATCH', `${ticketsOf(s.boardId)}/tkt_unknown/status`, { body })).status).toBe(404);
    expect((await s.org.call('PATCH', `${ticketsOf(otherBoard.id)}/${ticket.id}/status`, { body })).status).toBe(404);
    expect((await other.call('PATCH', `${ticketsOf(s.boardId)}/${ticket.id}/status`, { body })).status).toBe(404);
  });
});

describe('assigning a ticket (PATCH …/assign)', () => {
  let s: Setup;
  beforeAll(async () => {
    s = await setup();
  });

  it('assigns a board member, then unassigns with null; each emits ticket.assigned and an ASSIGNED timeline entry', async () => {
    const member = await createBoardMember(s.org, s.boardId, { name: 'Grace Assignee' });
    const ticket = await createTicket(s.org, s.boardId);

    const assigned = await s.org.call('PATCH', `${ticketsOf(s.boardId)}/${ticket.id}/assign`, { body: { assigneeId: member.id } });
    const unassigned = await s.org.call('PATCH', `${ticketsOf(s.boardId)}/${ticket.id}/assign`, { body: { assigneeId: null } });

    expect(assigned.status).toBe(200);
    expect(assigned.body.data.assignee).toEqual({ id: member.id, name: 'Grace Assignee' });
    expect(unassigned.status).toBe(200);
    expect(unassigned.body.data.assignee).toBeNull();
    const timeline = await timelineOf(ticket.id);
    expect(timeline.filter((entry) => entry.kind === 'ASSIGNED').map((entry) => entry.details)).toEqual([
      { fromAssigneeId: null, toAssigneeId: member.id },
      { fromAssigneeId: member.id, toAssigneeId: null },
    ]);
    const events = await dispatchedEventsOf(s.org.orgId, ticket.id, 5);
    expect(events.map((event) => event.type).sort()).toEqual(['ticket.assigned', 'ticket.assigned', 'ticket.created', 'ticket.updated', 'ticket.updated']);
    expect(events.filter((event) => event.type === 'ticket.assigned').map((event) => [event.data.oldAssigneeId, event.data.newAssigneeId])).toEqual(
      expect.arrayContaining([[null, member.id], [member.id, null]]),
    );
  });

  it.each([
    ['a missing assigneeId', {}, 'assigneeId'],
    ['an unknown user', { assigneeId: 'usr_unknown' }, 'assigneeId'],
    ['a non-string assigneeId', { assigneeId: 42 }, 'assigneeId'],
  ])('rejects %s with 400 naming assigneeId', async (_name, body, field) => {
    const ticket = await createTicket(s.org, s.boardId);
    expectValidationError(await s.org.call('PATCH', `${ticketsOf(s.boardId)}/${ticket.id}/assign`, { body }), field);
    expect((await getTicket(s.org, s.boardId, ticket.id)).updatedAt).toBe(ticket.updatedAt);
  });

  it('rejects a user who cannot see the board with 400 naming assigneeId', async () => {
    const outsider = await createMember(s.org);
    const ticket = await createTicket(s.org, s.boardId);
    expectValidationError(await s.org.call('PATCH', `${ticketsOf(s.boardId)}/${ticket.id}/assign`, { body: { assigneeId: outsider.id } }), 'assigneeId');
  });
});

describe('transitions (POST …/transition)', () => {
  let s: Setup;
  beforeAll(async () => {
    s = await setup();
  });

  const transition = (boardId: string, ticketId: string, body: unknown) => s.org.call('POST', `${ticketsOf(boardId)}/${ticketId}/transition`, { body });

  it('moves the ticket when no rule forbids it, with the reason on the ticket, the timeline and the events', async () => {
    const ticket = await createTicket(s.org, s.boardId);

    const response = await transition(s.boardId, ticket.id, { toStatusId: s.statuses.TODO.id, reason: 'Ready' });

    expect(response.status).toBe(200);
    expect(response.body.data).toMatchObject({ status: { id: s.statuses.TODO.id }, statusChangeReason: 'Ready', blockerInfo: null });
    expect((await timelineOf(ticket.id)).at(-1)).toMatchObject({ kind: 'STATUS_CHANGED', details: { toStatusId: s.statuses.TODO.id, reason: 'Ready' } });
    expect(await eventTypes(s.org, ticket.id, 3)).toEqual(['ticket.created', 'ticket.status_changed', 'ticket.updated']);
  });

  it('refuses a transition the board’s rules forbid with 409 CONFLICT naming both statuses, and allows the listed one', async () => {
    const board = await createBoard(s.org, { name: 'Strict flow' });
    const rules = [{ fromStatusId: s.statuses.TODO.id, toStatusIds: [s.statuses.IN_PROGRESS.id] }];
    expect((await s.org.call('PUT', `/api/v1/boards/${board.id}/transitions`, { body: { rules } })).status).toBe(200);
    const ticket = await createTicket(s.org, board.id, { statusId: s.statuses.TODO.id });

    const refused = await transition(board.id, ticket.id, { toStatusId: s.statuses.DONE.id });
    const allowed = await transition(board.id, ticket.id, { toStatusId: s.statuses.IN_PROGRESS.id });

    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ code: 'CONFLICT', details: { fromStatusId: s.statuses.TODO.id, toStatusId: s.statuses.DONE.id } });
    expect(allowed.status).toBe(200);
    expect(allowed.body.data.status.id).toBe(s.statuses.IN_PROGRESS.id);
    expect((await timelineOf(ticket.id)).map((entry) => entry.kind)).toEqual(['CREATED', 'STATUS_CHANGED']);
  });

  it('requires a reason when the board has Explainable Status on', async () => {
    const board = await createBoard(s.org, { name: 'Explained' });
    expect((await s.org.call('PATCH', `/api/v1/boards/${board.id}`, { body: { features: { explainableStatus: true } } })).status).toBe(200);
    const ticket = await createTicket(s.org, board.id);

    const missing = await transition(board.id, ticket.id, { toStatusId: s.statuses.TODO.id });
    const blank = await transition(board.id, ticket.id, { toStatusId: s.statuses.TODO.id, reason: '   ' });
    const given = await transition(board.id, ticket.id, { toStatusId: s.statuses.TODO.id, reason: 'Customer asked' });

    expectValidationError(missing, 'reason');
    expectValidationError(blank, 'reason');
    expect(given.status).toBe(200);
    expect(given.body.data.statusChangeReason).toBe('Customer asked');
  });

  it('requires blockerInfo.reason for BLOCKED, stores the blocker info, and clears it when the ticket leaves BLOCKED', async () => {
    const member = await createBoardMember(s.org, s.boardId, { name: 'Blocker' });
    const ticket = await createTicket(s.org, s.boardId, { statusId: s.statuses.IN_PROGRESS.id });

    const withoutInfo = await transition(s.boardId, ticket.id, { toStatusId: s.statuses.BLOCKED.id });
    const withoutReason = await transition(s.boardId, ticket.id, { toStatusId: s.statuses.BLOCKED.id, blockerInfo: { blockedBy: member.id } });
    const unknownBlocker = await transition(s.boardId, ticket.id, { toStatusId: s.statuses.BLOCKED.id, blockerInfo: { reason: 'Waiting', blockedBy: 'usr_unknown' } });
    expectValidationError(withoutInfo, 'blockerInfo.reason');
    expectValidationError(withoutReason, 'blockerInfo.reason');
    expectValidationError(unknownBlocker, 'blockerInfo.blockedBy');
    expect(await timelineOf(ticket.id)).toHaveLength(1);

    const blocked = await transition(s.boardId, ticket.id, { toStatusId: s.statuses.BLOCKED.id, blockerInfo: { reason: 'Waiting for the vendor', blockedBy: member.id } });
    expect(blocked.status).toBe(200);
    expect(blocked.body.data).toMatchObject({ status: { id: s.statuses.BLOCKED.id }, blockerInfo: { reason: 'Waiting for the vendor', blockedBy: member.id } });
    expect((await getTicket(s.org, s.boardId, ticket.id)).blockerInfo).toEqual({ reason: 'Waiting for the vendor', blockedBy: member.id });

    const unblocked = await transition(s.boardId, ticket.id, { toStatusId: s.statuses.IN_PROGRESS.id });
    expect(unblocked.status).toBe(200);
    expect(unblocked.body.data.blockerInfo).toBeNull();
    expect((await getTicket(s.org, s.boardId, ticket.id)).blockerInfo).toBeNull();
  });

  it('clears the blocker info when PATCH …/status takes the ticket out of BLOCKED', async () => {
    const ticket = await createTicket(s.org, s.boardId, { statusId: s.statuses.IN_PROGRESS.id });
    await transition(s.boardId, ticket.id, { toStatusId: s.statuses.BLOCKED.id, blockerInfo: { reason: 'Stuck' } });
    const response = await s.org.call('PATCH', `${ticketsOf(s.boardId)}/${ticket.id}/status`, { body: { statusId: s.statuses.DONE.id } });
    expect(response.body.data.blockerInfo).toBeNull();
  });

  it.each([
    ['an unknown target status', () => ({ toStatusId: 'sts_unknown' }), 'toStatusId'],
    ['a missing target status', () => ({ reason: 'why' }), 'toStatusId'],
    ['a reason over 500 characters', (st: Setup) => ({ toStatusId: st.statuses.TODO.id, reason: 'x'.repeat(501) }), 'reason'],
    ['blocker info for a status other than BLOCKED', (st: Setup) => ({ toStatusId: st.statuses.TODO.id, blockerInfo: { reason: 'x' } }), 'blockerInfo'],
    ['an empty blocker reason', (st: Setup) => ({ toStatusId: st.statuses.BLOCKED.id, blockerInfo: { reason: '' } }), 'blockerInfo.reason'],
  ])('rejects %s with 400 naming the field', async (_name, body, field) => {
    const ticket = await createTicket(s.org, s.boardId);
    expectValidationError(await transition(s.boardId, ticket.id, body(s)), field);
    expect(await timelineOf(ticket.id)).toHaveLength(1);
  });

  it('rejects a target status the board does not show with 400 naming toStatusId', async () => {
    const board = await createBoard(s.org, { name: 'No blocked column' });
    const shown = Object.values(s.statuses).filter((status: any) => status.key !== 'BLOCKED').map((status: any) => status.id);
    await s.org.call('PUT', `/api/v1/boards/${board.id}/statuses`, { body: { statusIds: shown } });
    const ticket = await createTicket(s.org, board.id);
    expectValidationError(await transition(board.id, ticket.id, { toStatusId: s.statuses.BLOCKED.id, blockerInfo: { reason: 'x' } }), 'toStatusId');
  });
});

describe('approving a planned ticket (POST …/approve)', () => {
  let s: Setup;
  let activeInOrder: any[];
  beforeAll(async () => {
    s = await setup();
    activeInOrder = (await s.org.call('GET', '/api/v1/statuses')).body.data.filter((status: any) => status.category === 'ACTIVE');
  });

  it('moves a PLANNING ticket to the board’s first ACTIVE status by order', async () => {
    const ticket = await createTicket(s.org, s.boardId);

    const response = await s.org.call('POST', `${ticketsOf(s.boardId)}/${ticket.id}/approve`);

    expect(response.status).toBe(200);
    expect(response.body.data.status).toMatchObject({ id: activeInOrder[0].id, category: 'ACTIVE' });
    expect((await timelineOf(ticket.id)).at(-1)).toMatchObject({ kind: 'STATUS_CHANGED', details: { fromStatusId: s.statuses.BACKLOG.id, toStatusId: activeInOrder[0].id } });
    expect(await eventTypes(s.org, ticket.id, 3)).toEqual(['ticket.created', 'ticket.status_changed', 'ticket.updated']);
  });

  it('skips ACTIVE statuses the board does not show', async () => {
    const board = await createBoard(s.org, { name: 'Skips first active' });
    const shown = Object.values(s.statuses).filter((status: any) => status.id !== activeInOrder[0].id).map((status: any) => status.id);
    await s.org.call('PUT', `/api/v1/boards/${board.id}/statuses`, { body: { statusIds: shown } });
    const ticket = await createTicket(s.org, board.id, { statusId: s.statuses.TODO.id });

    const response = await s.org.call('POST', `${ticketsOf(board.id)}/${ticket.id}/approve`);

    expect(response.body.data.status.id).toBe(activeInOrder[1].id);
  });

  it('answers 409 CONFLICT for a ticket that is not in a PLANNING status, and writes nothing', async () => {
    const ticket = await createTicket(s.org, s.boardId, { statusId: s.statuses.IN_REVIEW.id });
    const response = await s.org.call('POST', `${ticketsOf(s.boardId)}/${ticket.id}/approve`);
    expect(response.status).toBe(409);
    expect(response.body.error.code).toBe('CONFLICT');
    expect((await getTicket(s.org, s.boardId, ticket.id)).status.id).toBe(s.statuses.IN_REVIEW.id);
  });
});

describe('reordering (PATCH …/reorder)', () => {
  let s: Setup;
  beforeAll(async () => {
    s = await setup();
  });

  const reorder = (boardId: string, body: unknown) => s.org.call('PATCH', `${ticketsOf(boardId)}/reorder`, { body });

  it('places a ticket at a float position within its column', async () => {
    const first = await createTicket(s.org, s.boardId, { statusId: s.statuses.IN_PROGRESS.id, title: 'first' });
    const second = await createTicket(s.org, s.boardId, { statusId: s.statuses.IN_PROGRESS.id, title: 'second' });
    const between = first.position - 0.5;

    const response = await reorder(s.boardId, { ticketId: second.id, position: between });

    expect(response.status).toBe(200);
    expect(response.body.data).toMatchObject({ id: second.id, position: between, status: { id: s.statuses.IN_PROGRESS.id } });
    const listed = await s.org.call('GET', `${ticketsOf(s.boardId)}?statusId=${s.statuses.IN_PROGRESS.id}`);
    expect(listed.body.data.map((ticket: any) => ticket.id)).toEqual([second.id, first.id]);
    expect(await eventTypes(s.org, second.id, 2)).toEqual(['ticket.created', 'ticket.updated']);
  });

  it('moves a ticket to another column with statusId, recorded as a status change', async () => {
    const ticket = await createTicket(s.org, s.boardId, { statusId: s.statuses.TODO.id });
    const response = await reorder(s.boardId, { ticketId: ticket.id, position: 1.25, statusId: s.statuses.IN_REVIEW.id });
    expect(response.status).toBe(200);
    expect(response.body.data).toMatchObject({ position: 1.25, status: { id: s.statuses.IN_REVIEW.id } });
    expect((await timelineOf(ticket.id)).map((entry) => entry.kind)).toEqual(['CREATED', 'STATUS_CHANGED']);
    expect(await eventTypes(s.org, ticket.id, 3)).toEqual(['ticket.created', 'ticket.status_changed', 'ticket.updated']);
  });

  it.each([
    ['a position that is not a number', (id: string) => ({ ticketId: id, position: 'abc' }), 'position'],
    ['a missing position', (id: string) => ({ ticketId: id }), 'position'],
    ['a missing ticketId', () => ({ position: 1 }), 'ticketId'],
    ['an unknown status', (id: string) => ({ ticketId: id, position: 1, statusId: 'sts_unknown' }), 'statusId'],
  ])('rejects %s with 400 naming the field and writes nothing', async (_name, body, field) => {
    const ticket = await createTicket(s.org, s.boardId);
    expectValidationError(await reorder(s.boardId, body(ticket.id)), field);
    expect((await getTicket(s.org, s.boardId, ticket.id)).position).toBe(ticket.position);
  });

  it('rejects a status the board does not show with 400 naming statusId', async () => {
    const board = await createBoard(s.org, { name: 'Reorder without review' });
    const shown = Object.values(s.statuses).filter((status: any) => status.key !== 'IN_REVIEW').map((status: any) => status.id);
    await s.org.call('PUT', `/api/v1/boards/${board.id}/statuses`, { body: { statusIds: shown } });
    const ticket = await createTicket(s.org, board.id);
    expectValidationError(await reorder(board.id, { ticketId: ticket.id, position: 3, statusId: s.statuses.IN_REVIEW.id }), 'statusId');
  });

  it('answers 404 for a ticket of another board', async () => {
    const other = await createBoard(s.org, { name: 'Other column board' });
    const ticket = await createTicket(s.org, other.id);
    expect((await reorder(s.boardId, { ticketId: ticket.id, position: 1 })).status).toBe(404);
  });
});

describe('inline editing with optimistic locking (PATCH …/inline)', () => {
  let s: Setup;
  beforeAll(async () => {
    s = await setup();
  });

  const inline = (ticketId: string, body: unknown) => s.org.call('PATCH', `${ticketsOf(s.boardId)}/${ticketId}/inline`, { body });

  it('changes title, description, status, assignee and due date when expectedUpdatedAt matches', async () => {
    const member = await createBoardMember(s.org, s.boardId, { name: 'Inline Person' });
    const ticket = await createTicket(s.org, s.boardId);

    const response = await inline(ticket.id, {
      title: 'Edited inline', description: 'New words', statusId: s.statuses.IN_PROGRESS.id, assigneeId: member.id, dueDate: '2031-03-04', expectedUpdatedAt: ticket.updatedAt,
    });

    expect(response.status).toBe(200);
    expect(response.body.data).toMatchObject({
      title: 'Edited inline', description: 'New words', status: { id: s.statuses.IN_PROGRESS.id }, assignee: { id: member.id }, dueDate: '2031-03-04T00:00:00.000Z',
    });
    expect(response.body.data.updatedAt).not.toBe(ticket.updatedAt);
    expect(await eventTypes(s.org, ticket.id, 4)).toEqual(['ticket.assigned', 'ticket.created', 'ticket.status_changed', 'ticket.updated']);
  });

  it('clears the assignee and due date with null, without expectedUpdatedAt', async () => {
    const member = await createBoardMember(s.org, s.boardId);
    const ticket = await createTicket(s.org, s.boardId, { assigneeId: member.id, dueDate: '2030-01-01' });
    const response = await inline(ticket.id, { assigneeId: null, dueDate: null });
    expect(response.status).toBe(200);
    expect(response.body.data).toMatchObject({ assignee: null, dueDate: null });
  });

  it('answers a stale expectedUpdatedAt with 409 STALE_UPDATE carrying the current updatedAt, and writes nothing', async () => {
    const ticket = await createTicket(s.org, s.boardId);
    const edited = (await inline(ticket.id, { title: 'Someone else was first' })).body.data;

    const response = await inline(ticket.id, { title: 'Mine', expectedUpdatedAt: ticket.updatedAt });

    expect(response.status).toBe(409);
    expect(response.body.error).toMatchObject({ code: 'STALE_UPDATE', details: { currentUpdatedAt: edited.updatedAt } });
    const current = await getTicket(s.org, s.boardId, ticket.id);
    expect(current).toMatchObject({ title: 'Someone else was first', updatedAt: edited.updatedAt });
    expect(await eventTypes(s.org, ticket.id, 2)).toEqual(['ticket.created', 'ticket.updated']);
  });

  it('lets only one of concurrent edits from the same read win: the others get 409 STALE_UPDATE and overwrite nothing', async () => {
    const ticket = await createTicket(s.org, s.boardId);

    const responses = await Promise.all(Array.from({ length: 6 }, (_, index) => inline(ticket.id, { title: `Edit ${index}`, expectedUpdatedAt: ticket.updatedAt })));

    const won = responses.filter((response) => response.status === 200);
    const lost = responses.filter((response) => response.status !== 200);
    expect(won).toHaveLength(1);
    for (const response of lost) {
      expect(response.status).toBe(409);
      expect(response.body.error).toMatchObject({ code: 'STALE_UPDATE', details: { currentUpdatedAt: expect.any(String) } });
    }
    const events = await dispatchedEventsOf(s.org.orgId, ticket.id, 2);
    expect(events.filter((event) => event.type === 'ticket.updated')).toHaveLength(1);
    expect((await getTicket(s.org, s.boardId, ticket.id)).title).toBe(won[0]!.body.data.title);
  });

  it('applies every one of concurrent edits sent without expectedUpdatedAt (no optimistic lock asked for, no conflict)', async () => {
    const ticket = await createTicket(s.org, s.boardId);
    const responses = await Promise.all(Array.from({ length: 4 }, (_, index) => inline(ticket.id, { title: `Unguarded ${index}` })));
    expect(responses.map((response) => response.status)).toEqual([200, 200, 200, 200]);
    const events = await dispatchedEventsOf(s.org.orgId, ticket.id, 5);
    expect(events.filter((event) => event.type === 'ticket.updated')).toHaveLength(4);
  });

  it('guards a full PATCH with expectedUpdatedAt too: a stale one is 409 STALE_UPDATE and writes nothing, a current one applies', async () => {
    const ticket = await createTicket(s.org, s.boardId);
    const edited = (await inline(ticket.id, { title: 'First' })).body.data;
    const path = `${ticketsOf(s.boardId)}/${ticket.id}`;

    const stale = await s.org.call('PATCH', path, { body: { priority: 'high', expectedUpdatedAt: ticket.updatedAt } });
    expect(stale.status).toBe(409);
    expect(stale.body.error).toMatchObject({ code: 'STALE_UPDATE', details: { currentUpdatedAt: edited.updatedAt } });
    expect(await getTicket(s.org, s.boardId, ticket.id)).toMatchObject({ priority: ticket.priority, updatedAt: edited.updatedAt });

    const current = await s.org.call('PATCH', path, { body: { priority: 'high', expectedUpdatedAt: edited.updatedAt } });
    expect(current.status).toBe(200);
    expect(current.body.data).toMatchObject({ priority: 'high', title: 'First' });
  });

  it.each([
    ['a title over 200 characters', { title: 'x'.repeat(201) }, 'title'],
    ['an empty title', { title: '  ' }, 'title'],
    ['a malformed expectedUpdatedAt', { title: 'x', expectedUpdatedAt: 'yesterday' }, 'expectedUpdatedAt'],
    ['a malformed due date', { dueDate: 'soon' }, 'dueDate'],
    ['an unknown status', { statusId: 'sts_unknown' }, 'statusId'],
    ['an unknown assignee', { assigneeId: 'usr_unknown' }, 'assigneeId'],
    ['a field inline editing does not take', { priority: 'high' }, 'priority'],
    ['nothing to change', { expectedUpdatedAt: '2030-01-01T00:00:00.000Z' }, 'body'],
  ])('rejects %s with 400 naming it', async (_name, body, field) => {
    const ticket = await createTicket(s.org, s.boardId);
    expectValidationError(await inline(ticket.id, body), field);
    expect((await getTicket(s.org, s.boardId, ticket.id)).updatedAt).toBe(ticket.updatedAt);
  });
});

describe('moving a ticket to another board (POST …/move)', () => {
  let s: Setup;
  beforeAll(async () => {
    s = await setup();
  });

  const move = (boardId: string, ticketId: string, targetBoardId: unknown, token?: string) =>
    api('POST', `${ticketsOf(boardId)}/${ticketId}/move`, { token: token ?? s.org.adminToken, org: s.org.slug, body: { targetBoardId } });

  it('gives the ticket the target board’s next number and display id, and keeps the old display id resolving', async () => {
    const target = await createBoard(s.org, { name: 'Target', prefix: 'DST' });
    const already = await createTicket(s.org, target.id);
    const ticket = await createTicket(s.org, s.boardId, { statusId: s.statuses.IN_PROGRESS.id, title: 'Travels' });

    const response = await move(s.boardId, ticket.id, target.id);

    expect(response.status).toBe(200);
    expect(response.body).toEqual({ data: { id: ticket.id, displayId: `DST-${Number(already.displayId.split('-')[1]) + 1}`, title: 'Travels', boardId: target.id } });
    const moved = await getTicket(s.org, target.id, ticket.id);
    expect(moved).toMatchObject({ boardId: target.id, displayId: response.body.data.displayId, status: { id: s.statuses.IN_PROGRESS.id }, needsReassignment: false });
    expect((await s.org.call('GET', `${ticketsOf(s.boardId)}/${ticket.id}`)).status).toBe(404);
    const keys = db().entities.ticketKey;
    expect((await keys.get({ orgId: s.org.orgId, displayId: ticket.displayId }).go()).data?.ticketId).toBe(ticket.id);
    expect((await keys.get({ orgId: s.org.orgId, displayId: response.body.data.displayId }).go()).data?.ticketId).toBe(ticket.id);
    expect((await timelineOf(ticket.id)).at(-1)).toMatchObject({
      kind: 'MOVED',
      details: { fromBoardId: s.boardId, toBoardId: target.id, fromDisplayId: ticket.displayId, toDisplayId: response.body.data.displayId },
    });
    const events = await dispatchedEventsOf(s.org.orgId, ticket.id, 2);
    expect(events.map((event) => event.type).sort()).toEqual(['ticket.created', 'ticket.updated']);
    expect(events.find((event) => event.type === 'ticket.updated')!.data).toMatchObject({ boardId: target.id, projectId: target.id });
  });

  it('moves the ticket to the target’s default status when the target does not show its status', async () => {
    const target = await createBoard(s.org, { name: 'No review here' });
    const shown = Object.values(s.statuses).filter((status: any) => status.key !== 'IN_REVIEW').map((status: any) => status.id);
    await s.org.call('PUT', `/api/v1/boards/${target.id}/statuses`, { body: { statusIds: shown } });
    const ticket = await createTicket(s.org, s.boardId, { statusId: s.statuses.IN_REVIEW.id });

    const response = await move(s.boardId, ticket.id, target.id);

    expect(response.status).toBe(200);
    expect((await getTicket(s.org, target.id, ticket.id)).status.id).toBe(s.statuses.BACKLOG.id);
    const kinds = (await timelineOf(ticket.id)).map((entry) => entry.kind);
    expect(kinds).toEqual(['CREATED', 'STATUS_CHANGED', 'MOVED']);
    expect(await eventTypes(s.org, ticket.id, 3)).toEqual(['ticket.created', 'ticket.status_changed', 'ticket.updated']);
  });

  it('keeps an assignee who cannot see the target board and flags the ticket needsReassignment', async () => {
    const member = await createBoardMember(s.org, s.boardId, { name: 'Stays Behind' });
    const target = await createBoard(s.org, { name: 'Member cannot see' });
    const ticket = await createTicket(s.org, s.boardId, { assigneeId: member.id });

    const response = await move(s.boardId, ticket.id, target.id);

    expect(response.status).toBe(200);
    expect(await getTicket(s.org, target.id, ticket.id)).toMatchObject({ assignee: { id: member.id }, needsReassignment: true });
    const flagged = await s.org.call('GET', `${ticketsOf(target.id)}/needing-reassignment`);
    expect(flagged.body.data.map((item: any) => item.id)).toEqual([ticket.id]);
  });

  it('does not flag a ticket whose assignee can see the target board', async () => {
    const member = await createBoardMember(s.org, s.boardId);
    const target = await createBoard(s.org, { name: 'Member sees this too' });
    await s.org.call('POST', `/api/v1/boards/${target.id}/members`, { body: { userId: member.id } });
    const ticket = await createTicket(s.org, s.boardId, { assigneeId: member.id });
    expect((await move(s.boardId, ticket.id, target.id)).status).toBe(200);
    expect((await getTicket(s.org, target.id, ticket.id)).needsReassignment).toBe(false);
  });

  it('refuses to move a subticket or a ticket with subtickets with 409 CONFLICT', async () => {
    const target = await createBoard(s.org, { name: 'Subtickets target' });
    const parent = await createTicket(s.org, s.boardId, { title: 'Parent' });
    const created = await s.org.call('POST', `${ticketsOf(s.boardId)}/${parent.id}/subtickets`, { body: { title: 'Child' } });
    expect(created.status).toBe(201);
    const child = created.body.data;

    const movedChild = await move(s.boardId, child.id, target.id);
    const movedParent = await move(s.boardId, parent.id, target.id);

    expect(movedChild.status).toBe(409);
    expect(movedChild.body.error).toMatchObject({ code: 'CONFLICT', details: { reason: 'SUBTICKET' } });
    expect(movedParent.status).toBe(409);
    expect(movedParent.body.error).toMatchObject({ code: 'CONFLICT', details: { reason: 'HAS_SUBTICKETS' } });
    expect((await getTicket(s.org, s.boardId, parent.id)).boardId).toBe(s.boardId);
  });

  it('answers 404 for a target board the caller cannot see, leaving the target’s counter untouched', async () => {
    const member = await createBoardMember(s.org, s.boardId);
    const hidden = await createBoard(s.org, { name: 'Hidden target' });
    const before = await createTicket(s.org, hidden.id);
    const ticket = await createTicket(s.org, s.boardId);
    const restricted = await createToken(s.org, s.org.adminToken, { allowedBoardIds: [s.boardId] });

    const asMember = await move(s.boardId, ticket.id, hidden.id, member.token);
    const asRestrictedToken = await move(s.boardId, ticket.id, hidden.id, restricted.token);
    const unknown = await move(s.boardId, ticket.id, 'brd_unknown');
    const foreign = await move(s.boardId, ticket.id, (await createBoard(await signupOrg(), { name: 'Foreign' })).id);

    expect([asMember.status, asRestrictedToken.status, unknown.status, foreign.status]).toEqual([404, 404, 404, 404]);
    const after = await createTicket(s.org, hidden.id);
    expect(Number(after.displayId.split('-')[1])).toBe(Number(before.displayId.split('-')[1]) + 1);
    expect((await getTicket(s.org, s.boardId, ticket.id)).boardId).toBe(s.boardId);
  });

  it('rejects an archived target, the ticket’s own board and a missing target with 400 naming targetBoardId', async () => {
    const archived = await createBoard(s.org, { name: 'Archived target' });
    await s.org.call('POST', `/api/v1/boards/${archived.id}/archive`);
    const ticket = await createTicket(s.org, s.boardId);
    expectValidationError(await move(s.boardId, ticket.id, archived.id), 'targetBoardId');
    expectValidationError(await move(s.boardId, ticket.id, s.boardId), 'targetBoardId');
    expectValidationError(await move(s.boardId, ticket.id, undefined), 'targetBoardId');
    expect(await timelineOf(ticket.id)).toHaveLength(1);
  });
});

describe('tickets needing reassignment', () => {
  let s: Setup;
  beforeAll(async () => {
    s = await setup();
    await setPlan(s.org.slug, 'PRO');
  });

  it('flags the live tickets of a removed direct member on that board only, each with ticket.updated', async () => {
    const board = await createBoard(s.org, { name: 'Members leave' });
    const elsewhere = await createBoard(s.org, { name: 'Members stay' });
    const member = await createBoardMember(s.org, board.id, { name: 'Leaver' });
    await s.org.call('POST', `/api/v1/boards/${elsewhere.id}/members`, { body: { userId: member.id } });
    const first = await createTicket(s.org, board.id, { assigneeId: member.id });
    const planned = await createTicket(s.org, board.id, { assigneeId: member.id, statusId: s.statuses.BACKLOG.id });
    const deleted = await createTicket(s.org, board.id, { assigneeId: member.id });
    await s.org.call('DELETE', `${ticketsOf(board.id)}/${deleted.id}`);
    const unrelated = await createTicket(s.org, board.id);
    const otherBoard = await createTicket(s.org, elsewhere.id, { assigneeId: member.id });

    const removed = await s.org.call('DELETE', `/api/v1/boards/${board.id}/members/${member.id}`);

    expect(removed.status).toBe(204);
    // Flagged in the background, by the events function.
    const list = await flaggedOn(s.org, board.id, 2);
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ total: 2, page: 1, pageSize: 20, totalPages: 1 });
    expect(list.body.data.map((ticket: any) => ticket.id).sort()).toEqual([first.id, planned.id].sort());
    expect(list.body.data[0]).toMatchObject({ needsReassignment: true, assignee: { id: member.id }, claim: null });
    expect((await getTicket(s.org, board.id, unrelated.id)).needsReassignment).toBe(false);
    expect((await getTicket(s.org, elsewhere.id, otherBoard.id)).needsReassignment).toBe(false);
    const events = await dispatchedEventsOf(s.org.orgId, first.id, 2);
    expect(events.map((event) => event.type).sort()).toEqual(['ticket.created', 'ticket.updated']);
    expect(events.find((event) => event.type === 'ticket.updated')!.data).toEqual({
      // Written by the background job: the service is the actor, as for a deleted milestone's tickets.
      ticketId: first.id, boardId: board.id, projectId: board.id, organizationId: s.org.orgId, claimCount: 0, actorId: 'system',
    });
  });

  it('answers removing a team with flaggedTicketCount, and assigning someone else clears the flag', async () => {
    const board = await createBoard(s.org, { name: 'Team leaves' });
    const member = await createMember(s.org, { name: 'Team Person' });
    const team = await s.org.call('POST', '/api/v1/teams', { body: { name: 'Leaving team', memberIds: [member.id] } });
    await s.org.call('POST', `/api/v1/boards/${board.id}/teams`, { body: { teamId: team.body.id } });
    const tickets = [await createTicket(s.org, board.id, { assigneeId: member.id }), await createTicket(s.org, board.id, { assigneeId: member.id })];

    const removed = await s.org.call('DELETE', `/api/v1/boards/${board.id}/teams/${team.body.id}`);

    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({ flaggedTicketCount: 2 });
    expect((await flaggedOn(s.org, board.id, 2)).body.total).toBe(2);
    const reassigned = await s.org.call('PATCH', `${ticketsOf(board.id)}/${tickets[0]!.id}/assign`, { body: { assigneeId: s.org.adminId } });
    expect(reassigned.body.data.needsReassignment).toBe(false);
    const list = await s.org.call('GET', `${ticketsOf(board.id)}/needing-reassignment`);
    expect(list.body.data.map((ticket: any) => ticket.id)).toEqual([tickets[1]!.id]);
  });

  it('answers flaggedTicketCount 0 when the removed team’s members keep access or have no tickets', async () => {
    const board = await createBoard(s.org, { name: 'Direct members stay' });
    const member = await createMember(s.org);
    const team = await s.org.call('POST', '/api/v1/teams', { body: { name: 'Redundant team', memberIds: [member.id] } });
    await s.org.call('POST', `/api/v1/boards/${board.id}/teams`, { body: { teamId: team.body.id } });
    await s.org.call('POST', `/api/v1/boards/${board.id}/members`, { body: { userId: member.id } });
    const ticket = await createTicket(s.org, board.id, { assigneeId: member.id });

    const removed = await s.org.call('DELETE', `/api/v1/boards/${board.id}/teams/${team.body.id}`);

    expect(removed.body).toEqual({ flaggedTicketCount: 0 });
    expect((await getTicket(s.org, board.id, ticket.id)).needsReassignment).toBe(false);
    // No job was recorded: nobody lost access.
    const recorded = (await db().entities.event.query.bySubject({ orgId: s.org.orgId, subjectId: board.id }).go({ pages: 'all' })).data;
    expect(recorded.filter((event) => event.type === 'boards.lostAssignees')).toEqual([]);
  });

  it('answers removing a team at once, whatever its members hold, and flags each of their tickets once in the background', async () => {
    const board = await createBoard(s.org, { name: 'Many flags' });
    const members = [await createMember(s.org, { name: 'Busy one' }), await createMember(s.org, { name: 'Busy two' })];
    const team = await s.org.call('POST', '/api/v1/teams', { body: { name: 'Busy team', memberIds: members.map((member) => member.id) } });
    await s.org.call('POST', `/api/v1/boards/${board.id}/teams`, { body: { teamId: team.body.id } });
    // More than one step of the job (200 tickets) for the first member, a few for the second,
    // written in batches as the write path shapes them (the job is under test, not the creates).
    const seeded = { orgId: s.org.orgId, boardId: board.id, prefix: board.prefix };
    const vocabulary = { activeStatusIds: [s.statuses.IN_PROGRESS.id], typeId: (await s.org.call('GET', '/api/v1/ticket-types')).body.data[0].id, createdById: s.org.adminId };
    await seedBoard(seeded, { ...vocabulary, assignee: { id: members[0]!.id, name: 'Busy one' } }, 203, 1, { assignEvery: 1 });
    await seedBoard(seeded, { ...vocabulary, assignee: { id: members[1]!.id, name: 'Busy two' } }, 4, 204, { assignEvery: 1 });

    const started = Date.now();
    const removed = await s.org.call('DELETE', `/api/v1/boards/${board.id}/teams/${team.body.id}`);
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(removed.body).toEqual({ flaggedTicketCount: 207 });

    const list = await waitUntil(() => s.org.call('GET', `${ticketsOf(board.id)}/needing-reassignment?limit=1`), (answer) => answer.body?.total === 207, 60_000);
    expect(list.body.total).toBe(207);
    // Each written once: created at version 1, flagged at version 2.
    const stored = (await db().entities.ticket.query.byBoard({ orgId: s.org.orgId, boardId: board.id }).go({ pages: 'all', attributes: ['ticketId', 'version', 'needsReassignment'] })).data;
    expect(stored).toHaveLength(207);
    expect(stored.filter((ticket) => ticket.version !== 2 || !ticket.needsReassignment)).toEqual([]);
  }, 120_000);

  it('pages the list (limit clamped to 100) and rejects unknown query parameters', async () => {
    const board = await createBoard(s.org, { name: 'Paged flags' });
    const member = await createBoardMember(s.org, board.id);
    for (let index = 0; index < 3; index++) await createTicket(s.org, board.id, { assigneeId: member.id, statusId: s.statuses.TODO.id });
    await s.org.call('DELETE', `/api/v1/boards/${board.id}/members/${member.id}`);
    await flaggedOn(s.org, board.id, 3);

    const page2 = await s.org.call('GET', `${ticketsOf(board.id)}/needing-reassignment?page=2&limit=2`);
    const clamped = await s.org.call('GET', `${ticketsOf(board.id)}/needing-reassignment?limit=500`);
    const unknown = await s.org.call('GET', `${ticketsOf(board.id)}/needing-reassignment?status=x`);

    expect(page2.body).toMatchObject({ total: 3, page: 2, pageSize: 2, totalPages: 2 });
    expect(page2.body.data).toHaveLength(1);
    expect(clamped.body.pageSize).toBe(100);
    expect(unknown.status).toBe(400);
  });

  it('answers 404 for a board of another organization or one the caller cannot see', async () => {
    const other = await signupOrg();
    const member = await createMember(s.org);
    expect((await other.call('GET', `${ticketsOf(s.boardId)}/needing-reassignment`)).status).toBe(404);
    expect((await api('GET', `${ticketsOf(s.boardId)}/needing-reassignment`, { token: member.token, org: s.org.slug })).status).toBe(404);
  });
});

describe('deleting a ticket type with a replacement', () => {
  let s: Setup;
  beforeAll(async () => {
    s = await setup();
  });

  it('gives every ticket of the type the replacement — on every board, deleted boards included — and then deletes the type', async () => {
    const bug = (await s.org.call('POST', '/api/v1/ticket-types', { body: { name: 'Bug', color: '#FF0000' } })).body;
    const fallback = (await s.org.call('GET', '/api/v1/ticket-types/default')).body;
    const second = await createBoard(s.org, { name: 'Second' });
    const doomedBoard = await createBoard(s.org, { name: 'Doomed' });
    const tickets = [
      await createTicket(s.org, s.boardId, { typeId: bug.id }),
      await createTicket(s.org, s.boardId, { typeId: bug.id, statusId: s.statuses.DONE.id }),
      await createTicket(s.org, second.id, { typeId: bug.id, statusId: s.statuses.IN_PROGRESS.id }),
    ];
    const onDeletedBoard = await createTicket(s.org, doomedBoard.id, { typeId: bug.id });
    await s.org.call('DELETE', `/api/v1/boards/${doomedBoard.id}`);
    const deletedTicket = await createTicket(s.org, s.boardId, { typeId: bug.id });
    await s.org.call('DELETE', `${ticketsOf(s.boardId)}/${deletedTicket.id}`);
    const untouched = await createTicket(s.org, s.boardId);
    const countBefore = (await s.org.call('GET', `/api/v1/ticket-types/${fallback.id}/ticket-count`)).body.data.count;
    expect((await s.org.call('GET', `/api/v1/ticket-types/${bug.id}/ticket-count`)).body.data.count).toBe(4);

    const refused = await s.org.call('DELETE', `/api/v1/ticket-types/${bug.id}`);
    const deleted = await s.org.call('DELETE', `/api/v1/ticket-types/${bug.id}?replacementTypeId=${fallback.id}`);

    expectValidationError(refused, 'replacementTypeId');
    expect(deleted.status).toBe(204);
    // At once: the type is gone and its tickets show the replacement.
    expect((await s.org.call('GET', `/api/v1/ticket-types/${bug.id}`)).status).toBe(404);
    for (const ticket of tickets) {
      expect((await getTicket(s.org, ticket.boardId, ticket.id)).type).toEqual({ id: fallback.id, name: fallback.name });
    }
    // Then the events function moves them and deletes the type: the counts are exact at the end.
    await waitUntil(async () => (await db().entities.ticketType.get({ orgId: s.org.orgId, typeId: bug.id }).go({ consistent: true })).data, (item) => item === null, 30_000);
    expect((await s.org.call('GET', `/api/v1/ticket-types/${fallback.id}/ticket-count`)).body.data.count).toBe(countBefore + 4);
    expect((await db().entities.ticket.get({ ticketId: onDeletedBoard.id }).go()).data?.typeId).toBe(fallback.id);
    expect((await db().entities.ticket.get({ ticketId: deletedTicket.id }).go()).data?.typeId).toBe(bug.id);
    expect((await getTicket(s.org, s.boardId, untouched.id)).type.id).toBe(fallback.id);
    expect(await eventTypes(s.org, tickets[0]!.id, 2)).toEqual(['ticket.created', 'ticket.updated']);
  });
});

describe('permissions and token restrictions on the workflow routes', () => {
  let s: Setup;
  let ticketId: string;
  let targetBoardId: string;
  let updatedAt: string;
  beforeAll(async () => {
    s = await setup();
    const ticket = await createTicket(s.org, s.boardId);
    ticketId = ticket.id;
    updatedAt = ticket.updatedAt;
    targetBoardId = (await createBoard(s.org, { name: 'Permission target' })).id;
  });

  const writes = (st: Setup, id: string, target: string): [string, string, unknown][] => [
    ['PATCH', `${ticketsOf(st.boardId)}/${id}/status`, { statusId: st.statuses.TODO.id }],
    ['PATCH', `${ticketsOf(st.boardId)}/${id}/assign`, { assigneeId: null }],
    ['POST', `${ticketsOf(st.boardId)}/${id}/move`, { targetBoardId: target }],
    ['POST', `${ticketsOf(st.boardId)}/${id}/transition`, { toStatusId: st.statuses.TODO.id }],
    ['POST', `${ticketsOf(st.boardId)}/${id}/approve`, undefined],
    ['PATCH', `${ticketsOf(st.boardId)}/reorder`, { ticketId: id, position: 2 }],
    ['PATCH', `${ticketsOf(st.boardId)}/${id}/inline`, { title: 'x' }],
  ];

  it('refuses every write to a member whose groups lack tickets:edit, and lets them read the list', async () => {
    const group = await s.org.call('POST', '/api/v1/permission-groups', { body: { name: 'Creators only', color: '#123456', permissions: ['tickets:create'] } });
    expect(group.status).toBe(201);
    const creator = await createMember(s.org, { permissionGroupIds: [group.body.id] });
    await s.org.call('POST', `/api/v1/boards/${s.boardId}/members`, { body: { userId: creator.id } });
    await s.org.call('POST', `/api/v1/boards/${targetBoardId}/members`, { body: { userId: creator.id } });

    for (const [method, path, body] of writes(s, ticketId, targetBoardId)) {
      const response = await api(method, path, { token: creator.token, org: s.org.slug, body });
      expect(response.status, `${method} ${path}`).toBe(403);
      expect(response.body.error.code).toBe('FORBIDDEN');
    }
    expect((await api('GET', `${ticketsOf(s.boardId)}/needing-reassignment`, { token: creator.token, org: s.org.slug })).status).toBe(200);
    expect((await getTicket(s.org, s.boardId, ticketId)).status.id).toBe(s.statuses.BACKLOG.id);
  });

  it('refuses every write through a readOnly token, which may still read', async () => {
    const { token } = await createToken(s.org, s.org.adminToken, { readOnly: true });
    for (const [method, path, body] of writes(s, ticketId, targetBoardId)) {
      const response = await api(method, path, { token, org: s.org.slug, body });
      expect(response.status, `${method} ${path}`).toBe(403);
      expect(response.body.error.code).toBe('PAT_READ_ONLY');
    }
    expect((await api('GET', `${ticketsOf(s.boardId)}/needing-reassignment`, { token, org: s.org.slug })).status).toBe(200);
  });

  it('answers 404 to another organization on every route, and to a member who cannot see the board', async () => {
    const other = await signupOrg();
    const outsider = await createMember(s.org);
    for (const [method, path, body] of writes(s, ticketId, targetBoardId)) {
      expect((await other.call(method, path, { body })).status, `${method} ${path}`).toBe(404);
      expect((await api(method, path, { token: outsider.token, org: s.org.slug, body })).status, `${method} ${path}`).toBe(404);
    }
    expect((await getTicket(s.org, s.boardId, ticketId)).updatedAt).toBe(updatedAt);
    expect(await timelineOf(ticketId)).toHaveLength(1);
  });
});
