import { beforeAll, describe, expect, it } from 'vitest';
import { expectValidationError, useInProcess } from '../support/api.js';
import { createTicket, createBoard } from '../support/factories.js';
import { boardSetup, type BoardSetup } from '../support/tickets.js';
import { db } from '../../lib/db/service.js';
import { waitUntil } from '../support/wait.js';

// In process, through the same route table and handlers (test/support/api.ts).
useInProcess();

/*
 * Milestones through the local runtime (docs/features.md, Milestones and releases): the board feature, names unique per
 * board, and progress kept exact by the ticket write path.
 */
let s: BoardSetup;
const M = () => `/api/v1/boards/${s.boardId}/milestones`;
const ticketPath = (ticketId: string) => `/api/v1/boards/${s.boardId}/tickets/${ticketId}`;

async function milestone(name: string, body: Record<string, unknown> = {}) {
  const created = await s.org.call('POST', M(), { body: { name, dueDate: '2026-12-31', ...body } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body;
}

/** The milestone's progress recounted from its tickets (the truth the counters must match). */
async function recount(milestoneId: string) {
  const { data } = await db().entities.ticket.query.byMilestone({ orgId: s.org.orgId, milestoneKey: milestoneId }).go({ pages: 'all' });
  const live = data.filter((ticket) => !ticket.isDeleted);
  return { total: live.length, completed: live.filter((ticket) => ticket.statusCategory === 'FINAL').length };
}

beforeAll(async () => {
  s = await boardSetup('Milestones');
  expect((await s.org.call('PATCH', `/api/v1/boards/${s.boardId}`, { body: { features: { milestonesAndReleases: true } } })).status).toBe(200);
}, 60_000);

describe('milestones', () => {
  it('need the board feature: every route and a ticket\'s milestoneId answer 403 FEATURE_DISABLED without it', async () => {
    const other = await boardSetup('No milestones');
    const base = `/api/v1/boards/${other.boardId}/milestones`;
    for (const [method, path, body] of [
      ['GET', base, undefined],
      ['POST', base, { name: 'Beta', dueDate: '2026-12-01' }],
      ['GET', `${base}/ms_X`, undefined],
      ['PATCH', `${base}/ms_X`, { name: 'X' }],
      ['DELETE', `${base}/ms_X`, undefined],
      ['GET', `${base}/ms_X/tickets`, undefined],
    ] as const) {
      const response = await other.org.call(method, path, body ? { body } : {});
      expect([method, path, response.status, response.body?.error?.code]).toEqual([method, path, 403, 'FEATURE_DISABLED']);
    }
    const ticket = await createTicket(other.org, other.boardId);
    const refused = await other.org.call('PATCH', `/api/v1/boards/${other.boardId}/tickets/${ticket.id}`, { body: { milestoneId: 'ms_X' } });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('FEATURE_DISABLED');
  });

  it('creates, lists, sorts, renames and soft-deletes, with names unique among the board\'s live milestones', async () => {
    const alpha = await milestone('Alpha', { dueDate: '2027-01-15', sortOrder: 2, color: '#112233', description: 'First cut' });
    expect(alpha).toMatchObject({ id: expect.stringMatching(/^ms_/), name: 'Alpha', dueDate: '2027-01-15', color: '#112233', sortOrder: 2, description: 'First cut', progress: { total: 0, completed: 0, percentage: 0 }, isDeleted: false });
    const beta = await milestone('Beta', { dueDate: '2026-12-01', sortOrder: 1 });
    expect((await s.org.call('POST', M(), { body: { name: 'alpha', dueDate: '2027-02-01' } })).status).toBe(409);
    expectValidationError(await s.org.call('POST', M(), { body: { name: 'No date' } }), 'dueDate');
    expectValidationError(await s.org.call('POST', M(), { body: { name: 'x'.repeat(201), dueDate: '2027-01-01' } }), 'name');
    expectValidationError(await s.org.call('POST', M(), { body: { name: 'Colour', dueDate: '2027-01-01', color: 'red' } }), 'color');
    expectValidationError(await s.org.call('POST', M(), { body: { name: 'Bad day', dueDate: '2027-02-30' } }), 'dueDate');

    const names = async (query = '') => (await s.org.call('GET', `${M()}${query}`)).body.map((m: any) => m.name);
    expect(await names()).toEqual(['Beta', 'Alpha']);
    expect(await names('?sortBy=dueDate&sortOrder=desc')).toEqual(['Alpha', 'Beta']);
    expect(await names('?sortBy=name')).toEqual(['Alpha', 'Beta']);

    expect((await s.org.call('PATCH', `${M()}/${beta.id}`, { body: { name: 'ALPHA' } })).status).toBe(409);
    const renamed = await s.org.call('PATCH', `${M()}/${beta.id}`, { body: { name: 'Gamma', description: null } });
    expect(renamed.body).toMatchObject({ name: 'Gamma', description: null });
    // The old name is free again.
    const betaAgain = await milestone('Beta');
    expect((await s.org.call('DELETE', `${M()}/${betaAgain.id}`)).status).toBe(204);
    expect((await s.org.call('GET', `${M()}/${betaAgain.id}`)).status).toBe(404);
    expect((await s.org.call('DELETE', `${M()}/${betaAgain.id}`)).status).toBe(404);
    expect(await names()).not.toContain('Beta');
    expect(await names('?includeDeleted=true')).toContain('Beta');
    await milestone('Beta');
    expect((await s.org.call('GET', `${M()}/ms_UNKNOWN`)).status).toBe(404);
    expect(alpha.id).toBeTruthy();
  });

  it('keeps progress exact through entering, finishing, leaving, deleting, and refuses another board\'s milestone', async () => {
    const target = await milestone('Progress');
    const done = s.statuses.DONE.id;
    const inProgress = s.statuses.IN_PROGRESS.id;
    const a = await createTicket(s.org, s.boardId, { title: 'A', milestoneId: target.id, statusId: inProgress });
    const b = await createTicket(s.org, s.boardId, { title: 'B', statusId: inProgress });
    await s.org.call('PATCH', ticketPath(b.id), { body: { milestoneId: target.id } });
    await s.org.call('PATCH', `${ticketPath(a.id)}/status`, { body: { statusId: done } });
    let got = (await s.org.call('GET', `${M()}/${target.id}`)).body.progress;
    expect(got).toEqual({ total: 2, completed: 1, percentage: 50 });

    const category = async (status: string) => (await s.org.call('GET', `${M()}/${target.id}/tickets?status=${status}`)).body.data.map((t: any) => t.id);
    expect(await category('FINAL')).toEqual([a.id]);
    expect(await category('ACTIVE')).toEqual([b.id]);
    expect((await s.org.call('GET', `${M()}/${target.id}/tickets`)).body.total).toBe(2);

    await s.org.call('PATCH', ticketPath(b.id), { body: { milestoneId: null } });
    await s.org.call('DELETE', ticketPath(a.id));
    got = (await s.org.call('GET', `${M()}/${target.id}`)).body.progress;
    expect(got).toEqual({ total: 0, completed: 0, percentage: 0 });

    const elsewhere = await boardSetup('Elsewhere');
    await elsewhere.org.call('PATCH', `/api/v1/boards/${elsewhere.boardId}`, { body: { features: { milestonesAndReleases: true } } });
    const foreign = (await elsewhere.org.call('POST', `/api/v1/boards/${elsewhere.boardId}/milestones`, { body: { name: 'Foreign', dueDate: '2027-01-01' } })).body;
    expectValidationError(await s.org.call('PATCH', ticketPath(b.id), { body: { milestoneId: foreign.id } }), 'milestoneId');
    const sibling = (await createBoard(s.org, { name: 'Sibling', prefix: 'SIB' }));
    await s.org.call('PATCH', `/api/v1/boards/${sibling.id}`, { body: { features: { milestonesAndReleases: true } } });
    const siblingMilestone = (await s.org.call('POST', `/api/v1/boards/${sibling.id}/milestones`, { body: { name: 'Sibling one', dueDate: '2027-01-01' } })).body;
    expectValidationError(await s.org.call('PATCH', ticketPath(b.id), { body: { milestoneId: siblingMilestone.id } }), 'milestoneId');
    expect((await s.org.call('GET', `/api/v1/boards/${sibling.id}/milestones/${siblingMilestone.id}`)).body.progress.total).toBe(0);
  });

  it('pages its tickets by id from the index, every category and each, with exact totals', async () => {
    const paged = await milestone('Paged');
    const statusIds = [s.statuses.BACKLOG.id, s.statuses.IN_PROGRESS.id, s.statuses.DONE.id, s.statuses.IN_PROGRESS.id];
    const created: string[] = [];
    for (let index = 0; index < 13; index += 1) created.push((await createTicket(s.org, s.boardId, { title: `Paged ${index}`, milestoneId: paged.id, statusId: statusIds[index % statusIds.length] })).id);
    // One deleted and one taken out: neither is listed nor counted.
    expect((await s.org.call('DELETE', ticketPath(created[0]!))).status).toBe(204);
    expect((await s.org.call('PATCH', ticketPath(created[1]!), { body: { milestoneId: null } })).status).toBe(200);
    const stored = (await db().entities.ticket.query.byMilestone({ orgId: s.org.orgId, milestoneKey: paged.id }).go({ pages: 'all' })).data;
    for (const status of ['', 'PLANNING', 'ACTIVE', 'FINAL']) {
      const expected = stored.filter((ticket) => !status || ticket.statusCategory === status).map((ticket) => ticket.ticketId).sort();
      const ids: string[] = [];
      for (let page = 1; page <= Math.ceil(expected.length / 3) + 1; page += 1) {
        const answer = await s.org.call('GET', `${M()}/${paged.id}/tickets?limit=3&page=${page}${status ? `&status=${status}` : ''}`);
        expect(answer.status).toBe(200);
        expect({ status, page, total: answer.body.total, totalPages: answer.body.totalPages }).toEqual({ status, page, total: expected.length, totalPages: Math.ceil(expected.length / 3) });
        ids.push(...answer.body.data.map((ticket: { id: string }) => ticket.id));
      }
      expect({ status, ids }).toEqual({ status, ids: expected });
    }
    expect(stored.length).toBe(11);
  });

  it('names the milestone on the full ticket, and filters the board\'s tickets by milestone', async () => {
    const named = await milestone('Named');
    const inIt = await createTicket(s.org, s.boardId, { title: 'Inside', milestoneId: named.id });
    await createTicket(s.org, s.boardId, { title: 'Outside' });
    expect(inIt).toMatchObject({ milestoneId: named.id, milestone: { id: named.id, name: 'Named' } });
    await s.org.call('PATCH', `${M()}/${named.id}`, { body: { name: 'Renamed' } });
    expect((await s.org.call('GET', ticketPath(inIt.id))).body.data.milestone).toEqual({ id: named.id, name: 'Renamed' });
    const listed = await s.org.call('GET', `/api/v1/boards/${s.boardId}/tickets?milestoneId=${named.id}&includePlanning=true`);
    expect(listed.body.data.map((ticket: any) => ticket.id)).toEqual([inIt.id]);
    expect((await s.org.call('GET', `/api/v1/boards/${s.boardId}/tickets/${(await createTicket(s.org, s.boardId)).id}`)).body.data.milestone).toBeNull();
  });

  it('clears a deleted milestone from its tickets', async () => {
    const doomed = await milestone('Doomed');
    const tickets = await Promise.all([1, 2, 3].map((n) => createTicket(s.org, s.boardId, { title: `In ${n}`, milestoneId: doomed.id })));
    expect((await s.org.call('DELETE', `${M()}/${doomed.id}`)).status).toBe(204);
    // Gone from reads at once; the tickets themselves are cleared in the background.
    for (const ticket of tickets) expect((await s.org.call('GET', ticketPath(ticket.id))).body.data).toMatchObject({ milestoneId: null, milestone: null });
    expect((await s.org.call('GET', `/api/v1/boards/${s.boardId}/tickets?milestoneId=${doomed.id}&includePlanning=true`)).body.total).toBe(0);
    for (const ticket of tickets) {
      await waitUntil(() => db().entities.ticket.get({ ticketId: ticket.id }).go({ consistent: true }), (stored) => stored.data?.milestoneId === undefined);
    }
    expectValidationError(await s.org.call('PATCH', ticketPath(tickets[0].id), { body: { milestoneId: doomed.id } }), 'milestoneId');
  });

  it('stays exact under 20 concurrent status changes and milestone moves', async () => {
    const [one, two] = [await milestone('Race one'), await milestone('Race two')];
    const tickets = await Promise.all(Array.from({ length: 10 }, (_, n) => createTicket(s.org, s.boardId, { title: `Race ${n}`, milestoneId: one.id })));
    const done = s.statuses.DONE.id;
    await Promise.all(
      tickets.flatMap((ticket, n) => [
        s.org.call('PATCH', `${ticketPath(ticket.id)}/status`, { body: { statusId: n % 2 === 0 ? done : s.statuses.IN_PROGRESS.id } }),
        s.org.call('PATCH', ticketPath(ticket.id), { body: { milestoneId: n % 3 === 0 ? two.id : one.id } }),
      ]),
    );
    for (const m of [one, two]) {
      const progress = (await s.org.call('GET', `${M()}/${m.id}`)).body.progress;
      const truth = await recount(m.id);
      expect({ total: progress.total, completed: progress.completed }).toEqual(truth);
    }
    const totals = (await Promise.all([one, two].map(async (m) => (await recount(m.id)).total))).reduce((sum, n) => sum + n, 0);
    expect(totals).toBe(10);
  });
});
