import { beforeAll, describe, expect, it } from 'vitest';
import { api, createMember, createToken, expectValidationError, signupOrg, useInProcess } from '../support/api.js';
import { boardSetup, type BoardSetup as Setup } from '../support/tickets.js';
import { dispatchedEventsOf } from '../support/events.js';
import { createTicket } from '../support/factories.js';

// In process, through the same route table and handlers (test/support/api.ts).
useInProcess();

async function setup(): Promise<Setup> {
  return boardSetup('Tickets board', 'TIX');
}

const ticketsPath = (s: Setup) => `/api/v1/boards/${s.boardId}/tickets`;

describe('creating tickets', () => {
  let s: Setup;
  beforeAll(async () => {
    s = await setup();
    // Milestones are a board feature: with it on, an unknown milestone id is a bad reference (400).
    await s.org.call('PATCH', `/api/v1/boards/${s.boardId}`, { body: { features: { milestonesAndReleases: true } } });
  });

  it('creates a ticket with a display id from the board counter, the default status and type, and a null claim', async () => {
    const response = await s.org.call('POST', ticketsPath(s), { body: { title: 'First' } });
    expect(response.status).toBe(201);
    const ticket = response.body.data;
    expect(ticket).toMatchObject({
      id: expect.stringMatching(/^tkt_/),
      displayId: expect.stringMatching(/^TIX-\d+$/),
      title: 'First',
      status: { id: s.statuses.BACKLOG.id, name: 'Backlog', category: 'PLANNING' },
      priority: 'medium',
      assignee: null,
      type: { name: 'Task' },
      labels: [],
      claim: null,
    });
    const second = await createTicket(s.org, s.boardId, { title: 'Second' });
    expect(Number(second.displayId.split('-')[1])).toBe(Number(ticket.displayId.split('-')[1]) + 1);
  });

  it('sets every field of the API reference on create', async () => {
    const member = await createMember(s.org);
    await s.org.call('POST', `/api/v1/boards/${s.boardId}/members`, { body: { userId: member.id } });
    const ticket = await createTicket(s.org, s.boardId, {
      title: 'Full',
      description: 'Details',
      statusId: s.statuses.IN_PROGRESS.id,
      assigneeId: member.id,
      priority: 'high',
      dueDate: '2030-01-31',
      startDate: '2030-01-01T09:00:00Z',
      estimatedHours: 2.5,
      storyPoints: 3,
      externalReference: 'JIRA-123',
      impactLevel: 'critical',
    });
    expect(ticket).toMatchObject({
      description: 'Details',
      status: { id: s.statuses.IN_PROGRESS.id, category: 'ACTIVE' },
      assignee: { id: member.id, name: 'Member' },
      priority: 'high',
      dueDate: '2030-01-31T00:00:00.000Z',
      startDate: '2030-01-01T09:00:00.000Z',
      estimatedHours: 2.5,
      storyPoints: 3,
      externalReference: 'JIRA-123',
      impactLevel: 'critical',
    });
  });

  it.each([
    [{ title: '' }, 'title'],
    [{ title: 'x'.repeat(201) }, 'title'],
    [{ description: 'x'.repeat(50_001) }, 'description'],
    [{ estimatedHours: 0.05 }, 'estimatedHours'],
    [{ priority: 'urgent' }, 'priority'],
    [{ resolutionType: 'fixed-ish' }, 'resolutionType'],
    [{ dueDate: 'next tuesday' }, 'dueDate'],
    [{ statusId: 'sts_unknown' }, 'statusId'],
    [{ typeId: 'typ_unknown' }, 'typeId'],
    [{ labelIds: ['lbl_unknown'] }, 'labelIds.0'],
    [{ assigneeId: 'usr_unknown' }, 'assigneeId'],
    [{ customerId: 'cst_unknown' }, 'customerId'],
    [{ milestoneId: 'ms_unknown' }, 'milestoneId'],
    [{ externalReference: 'x'.repeat(201) }, 'externalReference'],
    [{ color: 'red' }, 'color'],
  ].map(([override, field]) => [field as string, override as Record<string, unknown>] as const))('rejects a bad %s (case %#) with 400 naming it and writes nothing', async (field, override) => {
    const before = await s.org.call('GET', `${ticketsPath(s)}?includePlanning=true&includeArchived=true&limit=100`);
    const response = await s.org.call('POST', ticketsPath(s), { body: { title: 'Bad', ...override } });
    expectValidationError(response, field);
    const after = await s.org.call('GET', `${ticketsPath(s)}?includePlanning=true&includeArchived=true&limit=100`);
    expect(after.body.total).toBe(before.body.total);
  });

  it('answers 404 for a board of another organization and for an unknown board', async () => {
    const other = await signupOrg();
    expect((await other.call('POST', ticketsPath(s), { body: { title: 'x' } })).status).toBe(404);
    expect((await s.org.call('POST', '/api/v1/boards/brd_unknown/tickets', { body: { title: 'x' } })).status).toBe(404);
  });

  it('emits ticket.created with ids only, through the outbox and the stream consumer', async () => {
    const ticket = await createTicket(s.org, s.boardId, { description: 'secret plans' });
    const events = await dispatchedEventsOf(s.org.orgId, ticket.id, 1);
    expect(events.map((event) => event.type)).toEqual(['ticket.created']);
    expect(events[0]!.data).toEqual({ ticketId: ticket.id, boardId: s.boardId, projectId: s.boardId, organizationId: s.org.orgId, claimCount: 0 });
    expect(JSON.stringify(events)).not.toContain('secret plans');
  });
});

describe('reading, updating and deleting tickets', () => {
  let s: Setup;
  beforeAll(async () => {
    s = await setup();
  });

  it('returns the full ticket wrapped in data', async () => {
    const created = await createTicket(s.org, s.boardId, { title: 'Readable' });
    const response = await s.org.call('GET', `${ticketsPath(s)}/${created.id}`);
    expect(response.status).toBe(200);
    expect(response.body.data).toMatchObject({ id: created.id, title: 'Readable', commentCount: 0, attachmentCount: 0, claim: null, customFieldValues: [] });
  });

  it('patches fields, clears nullable ones, and emits updated, status_changed and assigned events', async () => {
    const member = await createMember(s.org);
    await s.org.call('POST', `/api/v1/boards/${s.boardId}/members`, { body: { userId: member.id } });
    const created = await createTicket(s.org, s.boardId, { title: 'Patch me', dueDate: '2031-05-05' });
    const response = await s.org.call('PATCH', `${ticketsPath(s)}/${created.id}`, {
      body: { title: 'Patched', statusId: s.statuses.IN_PROGRESS.id, statusChangeReason: 'Started work', assigneeId: member.id, dueDate: null, timeSpent: 1.5 },
    });
    expect(response.status).toBe(200);
    expect(response.body.data).toMatchObject({ title: 'Patched', status: { id: s.statuses.IN_PROGRESS.id }, assignee: { id: member.id }, dueDate: null, timeSpent: 1.5, statusChangeReason: 'Started work' });
    const events = await dispatchedEventsOf(s.org.orgId, created.id, 4);
    expect(events.map((event) => event.type).sort()).toEqual(['ticket.assigned', 'ticket.created', 'ticket.status_changed', 'ticket.updated']);
    const statusChanged = events.find((event) => event.type === 'ticket.status_changed')!;
    expect(statusChanged.data).toMatchObject({ oldStatusId: s.statuses.BACKLOG.id, newStatusId: s.statuses.IN_PROGRESS.id, actorId: s.org.adminId });
    const assigned = events.find((event) => event.type === 'ticket.assigned')!;
    expect(assigned.data).toMatchObject({ oldAssigneeId: null, newAssigneeId: member.id });
  });

  it('soft-deletes a ticket: 404 afterwards, gone from lists, ticket.deleted emitted', async () => {
    const created = await createTicket(s.org, s.boardId, { title: 'Doomed', statusId: s.statuses.TODO.id });
    expect((await s.org.call('DELETE', `${ticketsPath(s)}/${created.id}`)).status).toBe(204);
    expect((await s.org.call('GET', `${ticketsPath(s)}/${created.id}`)).status).toBe(404);
    expect((await s.org.call('PATCH', `${ticketsPath(s)}/${created.id}`, { body: { title: 'x' } })).status).toBe(404);
    const list = await s.org.call('GET', `${ticketsPath(s)}?includePlanning=true&includeArchived=true&limit=100`);
    expect(list.body.data.map((ticket: any) => ticket.id)).not.toContain(created.id);
    expect((await dispatchedEventsOf(s.org.orgId, created.id, 2)).map((event) => event.type)).toContain('ticket.deleted');
  });

  it('keeps tickets of one board out of another board’s path', async () => {
    const created = await createTicket(s.org, s.boardId);
    const other = await s.org.call('POST', '/api/v1/boards', { body: { name: 'Other board' } });
    expect((await s.org.call('GET', `/api/v1/boards/${other.body.id}/tickets/${created.id}`)).status).toBe(404);
  });

  it('refuses a readOnly token and a member without tickets:delete', async () => {
    const created = await createTicket(s.org, s.boardId);
    const { token } = await createToken(s.org, s.org.adminToken, { readOnly: true });
    expect((await api('PATCH', `${ticketsPath(s)}/${created.id}`, { token, org: s.org.slug, body: { title: 'x' } })).status).toBe(403);
    expect((await api('GET', `${ticketsPath(s)}/${created.id}`, { token, org: s.org.slug })).status).toBe(200);
  });
});

describe('listing a board’s tickets', () => {
  let s: Setup;
  beforeAll(async () => {
    s = await setup();
  });

  it('hides PLANNING tickets unless includePlanning, and done or archived ones unless includeArchived', async () => {
    const backlog = await createTicket(s.org, s.boardId, { title: 'backlog' });
    const active = await createTicket(s.org, s.boardId, { title: 'active', statusId: s.statuses.IN_PROGRESS.id });
    const done = await createTicket(s.org, s.boardId, { title: 'done', statusId: s.statuses.DONE.id });
    const archived = await createTicket(s.org, s.boardId, { title: 'archived', statusId: s.statuses.IN_PROGRESS.id, isArchived: true });
    const ids = async (query: string) => (await s.org.call('GET', `${ticketsPath(s)}${query}`)).body.data.map((ticket: any) => ticket.id);
    expect(await ids('')).toEqual([active.id]);
    expect((await ids('?includePlanning=true')).sort()).toEqual([backlog.id, active.id].sort());
    expect((await ids('?includePlanning=true&includeArchived=true')).sort()).toEqual([backlog.id, active.id, done.id, archived.id].sort());
  });
});

describe('a status that changes category', () => {
  it('moves its tickets with it: a status turned PLANNING leaves the default list', async () => {
    const s = await setup();
    const status = await s.org.call('POST', '/api/v1/statuses', { body: { name: 'Triage', color: '#123456', category: 'ACTIVE' } });
    const ticket = await createTicket(s.org, s.boardId, { title: 'In triage', statusId: status.body.id });
    const ids = async (query: string) => (await s.org.call('GET', `${ticketsPath(s)}${query}`)).body.data.map((t: any) => t.id);
    expect(await ids('')).toEqual([ticket.id]);
    expect((await s.org.call('PATCH', `/api/v1/statuses/${status.body.id}`, { body: { category: 'PLANNING' } })).status).toBe(200);
    expect(await ids('')).toEqual([]);
    expect(await ids('?includePlanning=true')).toContain(ticket.id);
    expect(await ids(`?statusId=${status.body.id}`)).toEqual([ticket.id]);
    const fetched = await s.org.call('GET', `${ticketsPath(s)}/${ticket.id}`);
    expect(fetched.body.data.status.category).toBe('PLANNING');
  });
});
