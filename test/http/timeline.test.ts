import { beforeAll, describe, expect, it } from 'vitest';
import { api, createMember, createToken, expectValidationError, signupOrg, type TestOrg, useInProcess } from '../support/api.js';
import { createTicket } from '../support/factories.js';

// In process, through the same route table and handlers (test/support/api.ts).
useInProcess();

interface Setup {
  org: TestOrg;
  boardId: string;
  statuses: Record<string, any>;
}

async function setup(): Promise<Setup> {
  const org = await signupOrg({ name: 'Ada Admin' });
  const board = await org.call('POST', '/api/v1/boards', { body: { name: 'Timeline board', prefix: 'TML' } });
  const statuses = (await org.call('GET', '/api/v1/statuses')).body.data;
  return { org, boardId: board.body.id, statuses: Object.fromEntries(statuses.map((status: any) => [status.key, status])) };
}

const ticketPath = (s: Setup, ticketId: string) => `/api/v1/boards/${s.boardId}/tickets/${ticketId}`;
const timelinePath = (s: Setup, ticketId: string) => `${ticketPath(s, ticketId)}/timeline`;

async function patchTicket(s: Setup, ticketId: string, body: Record<string, unknown>) {
  const response = await s.org.call('PATCH', ticketPath(s, ticketId), { body });
  if (response.status !== 200) throw new Error(`patch ticket: ${response.status} ${JSON.stringify(response.body)}`);
}

describe('the ticket timeline', () => {
  let s: Setup;
  beforeAll(async () => {
    s = await setup();
  });

  it('shows creation, a status change with its reason and an assignment, oldest first, with the actor', async () => {
    const ticketId = (await createTicket(s.org, s.boardId, { title: 'Tracked ticket' })).id;
    await patchTicket(s, ticketId, { statusId: s.statuses.IN_PROGRESS.id, statusChangeReason: 'Picked up for the sprint' });
    await patchTicket(s, ticketId, { assigneeId: s.org.adminId });

    const response = await s.org.call('GET', timelinePath(s, ticketId));

    expect(response.status).toBe(200);
    const actor = { id: s.org.adminId, name: 'Ada Admin' };
    expect(response.body.data).toEqual([
      {
        id: expect.stringMatching(/^tle_/),
        kind: 'CREATED',
        actor,
        details: { statusId: s.statuses.BACKLOG.id, statusName: 'Backlog', assigneeId: null },
        createdAt: expect.any(String),
      },
      {
        id: expect.stringMatching(/^tle_/),
        kind: 'STATUS_CHANGED',
        actor,
        details: {
          fromStatusId: s.statuses.BACKLOG.id,
          fromStatusName: 'Backlog',
          toStatusId: s.statuses.IN_PROGRESS.id,
          toStatusName: 'In Progress',
          reason: 'Picked up for the sprint',
        },
        createdAt: expect.any(String),
      },
      {
        id: expect.stringMatching(/^tle_/),
        kind: 'ASSIGNED',
        actor,
        details: { fromAssigneeId: null, toAssigneeId: s.org.adminId },
        createdAt: expect.any(String),
      },
    ]);
    expect(response.body).toMatchObject({ total: 3, page: 1, pageSize: 50, totalPages: 1 });
  });

  it('records a status change without a reason with a null reason', async () => {
    const ticketId = (await createTicket(s.org, s.boardId, { title: 'Tracked ticket' })).id;
    await patchTicket(s, ticketId, { statusId: s.statuses.TODO.id });

    const response = await s.org.call('GET', timelinePath(s, ticketId));

    expect(response.body.data[1]).toMatchObject({ kind: 'STATUS_CHANGED', details: { toStatusId: s.statuses.TODO.id, reason: null } });
  });

  it('reads the ticket, its timeline and the status names in parallel: four round trips in all', async () => {
    const ticketId = (await createTicket(s.org, s.boardId, { title: 'Tracked ticket' })).id;

    const response = await s.org.call('GET', timelinePath(s, ticketId));

    expect(response.status).toBe(200);
  });

  it('pages through the timeline and clamps the limit to 200', async () => {
    const ticketId = (await createTicket(s.org, s.boardId, { title: 'Tracked ticket' })).id;
    await patchTicket(s, ticketId, { statusId: s.statuses.TODO.id });
    await patchTicket(s, ticketId, { statusId: s.statuses.IN_PROGRESS.id });
    const all = (await s.org.call('GET', timelinePath(s, ticketId))).body.data;

    const second = await s.org.call('GET', `${timelinePath(s, ticketId)}?page=2&limit=2`);
    const clamped = await s.org.call('GET', `${timelinePath(s, ticketId)}?limit=5000`);

    expect(second.body).toEqual({ data: [all[2]], total: 3, page: 2, pageSize: 2, totalPages: 2 });
    expect(clamped.body.pageSize).toBe(200);
  });

  it.each([
    ['page=0', 'page'],
    ['limit=abc', 'limit'],
    ['kind=CREATED', 'kind'],
  ])('rejects the query %s with 400 naming the parameter', async (query, field) => {
    const ticketId = (await createTicket(s.org, s.boardId, { title: 'Tracked ticket' })).id;

    expectValidationError(await s.org.call('GET', `${timelinePath(s, ticketId)}?${query}`), field);
  });

  it('shows the timeline to a member who can see the board', async () => {
    const member = await createMember(s.org);
    await s.org.call('POST', `/api/v1/boards/${s.boardId}/members`, { body: { userId: member.id } });
    const ticketId = (await createTicket(s.org, s.boardId, { title: 'Tracked ticket' })).id;

    const response = await api('GET', timelinePath(s, ticketId), { token: member.token, org: s.org.slug });

    expect(response.status).toBe(200);
    expect(response.body.data.map((entry: any) => entry.kind)).toEqual(['CREATED']);
  });
});

describe('timeline access', () => {
  let s: Setup;
  let ticketId: string;
  beforeAll(async () => {
    s = await setup();
    ticketId = (await createTicket(s.org, s.boardId, { title: 'Tracked ticket' })).id;
  });

  it('answers an unknown ticket and a deleted ticket with 404', async () => {
    const doomed = (await createTicket(s.org, s.boardId, { title: 'Tracked ticket' })).id;
    await s.org.call('DELETE', ticketPath(s, doomed));

    const unknown = await s.org.call('GET', timelinePath(s, 'tkt_unknown'));
    const deleted = await s.org.call('GET', timelinePath(s, doomed));

    expect([unknown.status, deleted.status]).toEqual([404, 404]);
  });

  it("answers another organization's board or ticket with 404", async () => {
    const other = await setup();
    const foreignTicket = (await createTicket(other.org, other.boardId, { title: 'Tracked ticket' })).id;

    const theirPath = await s.org.call('GET', timelinePath(other, foreignTicket));
    const ourBoard = await s.org.call('GET', timelinePath(s, foreignTicket));

    expect([theirPath.status, ourBoard.status]).toEqual([404, 404]);
    expect((await other.org.call('GET', timelinePath(other, foreignTicket))).status).toBe(200);
  });

  it('answers a member who cannot see the board, and a token restricted to other boards, with 404', async () => {
    const outsider = await createMember(s.org);
    const otherBoard = await s.org.call('POST', '/api/v1/boards', { body: { name: 'Elsewhere', prefix: 'ELS' } });
    const restricted = await createToken(s.org, s.org.adminToken, { allowedBoardIds: [otherBoard.body.id] });

    const byOutsider = await api('GET', timelinePath(s, ticketId), { token: outsider.token, org: s.org.slug });
    const byRestricted = await api('GET', timelinePath(s, ticketId), { token: restricted.token, org: s.org.slug });

    expect([byOutsider.status, byRestricted.status]).toEqual([404, 404]);
  });

  it('lets a read-only token read the timeline', async () => {
    const readOnly = await createToken(s.org, s.org.adminToken, { readOnly: true });

    const response = await api('GET', timelinePath(s, ticketId), { token: readOnly.token, org: s.org.slug });

    expect(response.status).toBe(200);
  });
});
