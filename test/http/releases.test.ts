import { beforeAll, describe, expect, it } from 'vitest';
import { api, createMember, expectValidationError, setPlan, useInProcess } from '../support/api.js';
import { createAgent, createTicket, createBoard, createMilestone } from '../support/factories.js';
import { boardSetup, type BoardSetup } from '../support/tickets.js';
import { db } from '../../lib/db/service.js';
import { systemClock } from '../../lib/core/clock.js';
import { detachDeletedRelease, RELEASE_DETACHING_JOB } from '../../lib/releases/releases.js';
import { waitUntil } from '../support/wait.js';

// In process, through the same route table and handlers (test/support/api.ts).
useInProcess();

/*
 * Releases through the local runtime (docs/features.md, Milestones and releases): the board feature, CRUD, milestones
 * and tickets attached and detached, and `ticketCount` kept exact by every write that moves a
 * ticket in or out (attach, detach, ticket deletion and move, release deletion).
 */
let s: BoardSetup;
const R = () => `/api/v1/boards/${s.boardId}/releases`;
const ticketPath = (ticketId: string) => `/api/v1/boards/${s.boardId}/tickets/${ticketId}`;

async function release(name: string, body: Record<string, unknown> = {}) {
  const created = await s.org.call('POST', R(), { body: { name, ...body } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body;
}

async function withFeature(setup: BoardSetup): Promise<BoardSetup> {
  expect((await setup.org.call('PATCH', `/api/v1/boards/${setup.boardId}`, { body: { features: { milestonesAndReleases: true } } })).status).toBe(200);
  return setup;
}

/**
 * The truth the counter must match: the release's membership items, each a live ticket of the
 * board whose `releaseIds` names the release, and no other live ticket of the board naming it.
 */
async function recount(releaseId: string): Promise<number> {
  const members = (await db().entities.releaseTicket.query.byRelease({ orgId: s.org.orgId, releaseId }).go({ pages: 'all' })).data;
  const tickets = (await db().entities.ticket.query.byBoard({ orgId: s.org.orgId, boardId: s.boardId }).go({ pages: 'all' })).data.filter((ticket) => !ticket.isDeleted);
  const naming = tickets.filter((ticket) => (ticket.releaseIds ?? []).includes(releaseId)).map((ticket) => ticket.ticketId).sort();
  expect(members.map((member) => member.ticketId).sort()).toEqual(naming);
  return naming.length;
}

const countOf = async (releaseId: string) => (await s.org.call('GET', `${R()}/${releaseId}`)).body.ticketCount;

beforeAll(async () => {
  s = await withFeature(await boardSetup('Releases'));
}, 60_000);

describe('releases', () => {
  it('need the board feature: every route answers 403 FEATURE_DISABLED without it, and nothing is written', async () => {
    const other = await boardSetup('No releases');
    const base = `/api/v1/boards/${other.boardId}/releases`;
    for (const [method, path, body] of [
      ['GET', base, undefined],
      ['POST', base, { name: 'One' }],
      ['GET', `${base}/rel_X`, undefined],
      ['PATCH', `${base}/rel_X`, { name: 'X' }],
      ['DELETE', `${base}/rel_X`, undefined],
      ['POST', `${base}/rel_X/milestones`, { milestoneId: 'ms_X' }],
      ['DELETE', `${base}/rel_X/milestones/ms_X`, undefined],
      ['POST', `${base}/rel_X/tickets`, { ticketId: 'tkt_X' }],
      ['DELETE', `${base}/rel_X/tickets/tkt_X`, undefined],
      ['GET', `${base}/rel_X/tickets`, undefined],
    ] as const) {
      const response = await other.org.call(method, path, body ? { body } : {});
      expect([method, path, response.status, response.body?.error?.code]).toEqual([method, path, 403, 'FEATURE_DISABLED']);
    }
    expect((await db().entities.release.query.byBoard({ orgId: other.org.orgId, boardId: other.boardId }).go()).data).toEqual([]);
  });

  it('creates, lists, gets, changes and deletes releases; bad input changes nothing', async () => {
    const spring = await release('Spring', { version: '2.4.0-rc.1', description: 'Spring cut', releaseDate: '2027-03-01T00:00:00.000Z' });
    expect(spring).toEqual({
      id: expect.stringMatching(/^rel_/),
      boardId: s.boardId,
      name: 'Spring',
      version: '2.4.0-rc.1',
      description: 'Spring cut',
      releaseDate: '2027-03-01T00:00:00.000Z',
      milestones: [],
      ticketCount: 0,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const undated = await release('Someday');
    expect(undated).toMatchObject({ version: null, description: null, releaseDate: null });
    const summer = await release('Summer', { releaseDate: '2027-06-01T00:00:00.000Z' });

    const before = (await db().entities.release.query.byBoard({ orgId: s.org.orgId, boardId: s.boardId }).go({ pages: 'all' })).data.length;
    expectValidationError(await s.org.call('POST', R(), { body: {} }), 'name');
    expectValidationError(await s.org.call('POST', R(), { body: { name: 'x'.repeat(201) } }), 'name');
    expectValidationError(await s.org.call('POST', R(), { body: { name: 'Long', version: 'v'.repeat(51) } }), 'version');
    expectValidationError(await s.org.call('POST', R(), { body: { name: 'Dated', releaseDate: 'next week' } }), 'releaseDate');
    expectValidationError(await s.org.call('POST', R(), { body: { name: 'Ghost', milestoneIds: ['ms_UNKNOWN'] } }), 'milestoneIds.0');
    expectValidationError(await s.org.call('PATCH', `${R()}/${spring.id}`, { body: { version: 'v'.repeat(51) } }), 'version');
    expect((await s.org.call('POST', R(), { body: { name: 'Extra', ticketCount: 5 } })).status).toBe(400);
    expect((await db().entities.release.query.byBoard({ orgId: s.org.orgId, boardId: s.boardId }).go({ pages: 'all' })).data.length).toBe(before);

    const listed = await s.org.call('GET', R());
    expect(listed.status).toBe(200);
    // A bare array, newest release date first, undated last.
    expect(listed.body.filter((r: any) => [spring.id, undated.id, summer.id].includes(r.id)).map((r: any) => r.name)).toEqual(['Summer', 'Spring', 'Someday']);
    expect((await s.org.call('GET', `${R()}/${spring.id}`)).body).toEqual(spring);

    const changed = await s.org.call('PATCH', `${R()}/${spring.id}`, { body: { name: 'Spring final', version: '2.4.0', description: null } });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ name: 'Spring final', version: '2.4.0', description: null, releaseDate: '2027-03-01T00:00:00.000Z' });
    expect((await s.org.call('GET', `${R()}/${spring.id}`)).body).toEqual(changed.body);
    expect((await s.org.call('PATCH', `${R()}/${spring.id}`, { body: { releaseDate: null } })).body.releaseDate).toBeNull();

    expect((await s.org.call('DELETE', `${R()}/${undated.id}`)).status).toBe(204);
    for (const [method, path] of [
      ['GET', `${R()}/${undated.id}`],
      ['PATCH', `${R()}/${undated.id}`],
      ['DELETE', `${R()}/${undated.id}`],
      ['GET', `${R()}/rel_UNKNOWN`],
    ] as const) {
      expect([method, path, (await s.org.call(method, path, method === 'PATCH' ? { body: { name: 'Back' } } : {})).status]).toEqual([method, path, 404]);
    }
    expect((await s.org.call('GET', R())).body.map((r: any) => r.id)).not.toContain(undated.id);
  });

  it('attaches and detaches milestones of the board: idempotent, by current name, never a deleted one', async () => {
    const rc = await release('Milestoned');
    const [alpha, beta] = [await createMilestone(s.org, s.boardId, { name: 'Release alpha' }), await createMilestone(s.org, s.boardId, { name: 'Release beta' })];
    const path = `${R()}/${rc.id}/milestones`;
    const first = await s.org.call('POST', path, { body: { milestoneId: beta.id } });
    expect(first.status).toBe(200);
    expect(first.body.milestones).toEqual([{ id: beta.id, name: 'Release beta' }]);
    expect((await s.org.call('POST', path, { body: { milestoneId: beta.id } })).body.milestones).toEqual([{ id: beta.id, name: 'Release beta' }]);
    expect((await s.org.call('POST', path, { body: { milestoneId: alpha.id } })).body.milestones.map((m: any) => m.name)).toEqual(['Release alpha', 'Release beta']);

    const created = await release('Born with milestones', { milestoneIds: [alpha.id, alpha.id] });
    expect(created.milestones).toEqual([{ id: alpha.id, name: 'Release alpha' }]);

    const elsewhere = await withFeature(await boardSetup('Elsewhere releases'));
    const foreign = await createMilestone(elsewhere.org, elsewhere.boardId, { name: 'Foreign' });
    const sibling = (await createBoard(s.org, { name: 'Sibling', prefix: 'RSB' }));
    await s.org.call('PATCH', `/api/v1/boards/${sibling.id}`, { body: { features: { milestonesAndReleases: true } } });
    const siblings = (await s.org.call('POST', `/api/v1/boards/${sibling.id}/milestones`, { body: { name: 'Sibling one', dueDate: '2027-01-01' } })).body;
    for (const milestoneId of [foreign.id, siblings.id, 'ms_UNKNOWN']) expectValidationError(await s.org.call('POST', path, { body: { milestoneId } }), 'milestoneId');
    expectValidationError(await s.org.call('POST', R(), { body: { name: 'Borrowing', milestoneIds: [alpha.id, siblings.id] } }), 'milestoneIds.1');

    // A rename shows at once; a deleted milestone leaves every release and cannot be attached.
    await s.org.call('PATCH', `/api/v1/boards/${s.boardId}/milestones/${alpha.id}`, { body: { name: 'Release alpha two' } });
    expect((await s.org.call('GET', `${R()}/${rc.id}`)).body.milestones.map((m: any) => m.name)).toEqual(['Release alpha two', 'Release beta']);
    expect((await s.org.call('DELETE', `/api/v1/boards/${s.boardId}/milestones/${beta.id}`)).status).toBe(204);
    expect((await s.org.call('GET', `${R()}/${rc.id}`)).body.milestones).toEqual([{ id: alpha.id, name: 'Release alpha two' }]);
    expectValidationError(await s.org.call('POST', path, { body: { milestoneId: beta.id } }), 'milestoneId');
    expect((await s.org.call('DELETE', `${path}/${beta.id}`)).status).toBe(404);

    expect((await s.org.call('DELETE', `${path}/${alpha.id}`)).status).toBe(204);
    expect((await s.org.call('GET', `${R()}/${rc.id}`)).body.milestones).toEqual([]);
    expect((await s.org.call('DELETE', `${path}/${alpha.id}`)).status).toBe(404);
    expect((await s.org.call('POST', `${R()}/rel_UNKNOWN/milestones`, { body: { milestoneId: alpha.id } })).status).toBe(404);
  });

  it('attaches and detaches tickets of the board: idempotent, lists them, and refuses another board\'s ticket', async () => {
    const rc = await release('Ticketed');
    const [a, b] = [await createTicket(s.org, s.boardId, { title: 'Rel A' }), await createTicket(s.org, s.boardId, { title: 'Rel B' })];
    const path = `${R()}/${rc.id}/tickets`;
    const attached = await s.org.call('POST', path, { body: { ticketId: a.id } });
    expect(attached.status).toBe(200);
    expect(attached.body).toMatchObject({ id: rc.id, ticketCount: 1 });
    expect((await s.org.call('POST', path, { body: { ticketId: a.id } })).body.ticketCount).toBe(1);
    expect((await s.org.call('POST', path, { body: { ticketId: b.id } })).body.ticketCount).toBe(2);
    expect(await countOf(rc.id)).toBe(2);
    expect(await recount(rc.id)).toBe(2);

    // Attaching is not a change of the ticket's fields: no new `updatedAt`, no timeline entry.
    const ticketAfter = (await s.org.call('GET', ticketPath(a.id))).body.data;
    expect(ticketAfter.updatedAt).toBe(a.updatedAt);
    expect((await s.org.call('GET', `${ticketPath(a.id)}/timeline`)).body.data.map((entry: any) => entry.kind)).toEqual(['CREATED']);

    const listed = await s.org.call('GET', `${path}?limit=1`);
    expect(listed.body).toMatchObject({ total: 2, page: 1, pageSize: 1, totalPages: 2 });
    const both = (await s.org.call('GET', path)).body.data.map((ticket: any) => ticket.id);
    expect(both.sort()).toEqual([a.id, b.id].sort());

    const elsewhere = await boardSetup('Tickets elsewhere');
    const foreign = await createTicket(elsewhere.org, elsewhere.boardId);
    const sibling = (await createBoard(s.org, { name: 'Sibling tickets', prefix: 'RST' }));
    const siblingTicket = await createTicket(s.org, sibling.id);
    const deleted = await createTicket(s.org, s.boardId, { title: 'Gone' });
    await s.org.call('DELETE', ticketPath(deleted.id));
    for (const ticketId of [foreign.id, siblingTicket.id, deleted.id, 'tkt_UNKNOWN']) expectValidationError(await s.org.call('POST', path, { body: { ticketId } }), 'ticketId');
    expect(await countOf(rc.id)).toBe(2);

    expect((await s.org.call('DELETE', `${path}/${b.id}`)).status).toBe(204);
    expect((await s.org.call('DELETE', `${path}/${b.id}`)).status).toBe(404);
    expect((await s.org.call('DELETE', `${path}/${siblingTicket.id}`)).status).toBe(404);
    expect(await countOf(rc.id)).toBe(1);
    expect(await recount(rc.id)).toBe(1);
    expect((await s.org.call('POST', `${R()}/rel_UNKNOWN/tickets`, { body: { ticketId: a.id } })).status).toBe(404);
  });

  it('loses a ticket when it is deleted or moved to another board', async () => {
    const [one, two] = [await release('Leaving one'), await release('Leaving two')];
    const [gone, moved, stays] = [await createTicket(s.org, s.boardId, { title: 'Deleted' }), await createTicket(s.org, s.boardId, { title: 'Moved' }), await createTicket(s.org, s.boardId, { title: 'Stays' })];
    for (const r of [one, two]) for (const t of [gone, moved, stays]) expect((await s.org.call('POST', `${R()}/${r.id}/tickets`, { body: { ticketId: t.id } })).status).toBe(200);
    expect([await countOf(one.id), await countOf(two.id)]).toEqual([3, 3]);

    expect((await s.org.call('DELETE', ticketPath(gone.id))).status).toBe(204);
    const target = (await createBoard(s.org, { name: 'Move target', prefix: 'RMT' }));
    expect((await s.org.call('POST', `${ticketPath(moved.id)}/move`, { body: { targetBoardId: target.id } })).status).toBe(200);
    for (const r of [one, two]) {
      expect(await countOf(r.id)).toBe(1);
      expect(await recount(r.id)).toBe(1);
      expect((await s.org.call('GET', `${R()}/${r.id}/tickets`)).body.data.map((t: any) => t.id)).toEqual([stays.id]);
    }
  });

  it('pages its tickets by id, reading only up to the page, with the exact total', async () => {
    const paged = await release('Paged');
    const attached: string[] = [];
    for (let index = 0; index < 8; index += 1) {
      const ticket = await createTicket(s.org, s.boardId, { title: `Paged ${index}` });
      expect((await s.org.call('POST', `${R()}/${paged.id}/tickets`, { body: { ticketId: ticket.id } })).status).toBe(200);
      attached.push(ticket.id);
    }
    // One detached, one deleted: neither is listed nor counted.
    expect((await s.org.call('DELETE', `${R()}/${paged.id}/tickets/${attached[2]}`)).status).toBe(204);
    expect((await s.org.call('DELETE', ticketPath(attached[5]!))).status).toBe(204);
    const expected = attached.filter((_, index) => index !== 2 && index !== 5).sort();
    const ids: string[] = [];
    for (let page = 1; page <= 3; page += 1) {
      const answer = (await s.org.call('GET', `${R()}/${paged.id}/tickets?limit=3&page=${page}`)).body;
      expect({ page, total: answer.total, totalPages: answer.totalPages }).toEqual({ page, total: 6, totalPages: 2 });
      ids.push(...answer.data.map((ticket: { id: string }) => ticket.id));
    }
    expect(ids).toEqual(expected);
  });

  it('deletes a release with its memberships, leaving its tickets and milestones in place', async () => {
    const doomed = await release('Doomed');
    const kept = await createMilestone(s.org, s.boardId, { name: 'Survives the release' });
    await s.org.call('POST', `${R()}/${doomed.id}/milestones`, { body: { milestoneId: kept.id } });
    const tickets = await Promise.all(Array.from({ length: 12 }, (_, n) => createTicket(s.org, s.boardId, { title: `Doomed ${n}` })));
    for (const t of tickets) await s.org.call('POST', `${R()}/${doomed.id}/tickets`, { body: { ticketId: t.id } });
    expect(await countOf(doomed.id)).toBe(12);

    expect((await s.org.call('DELETE', `${R()}/${doomed.id}`)).status).toBe(204);
    // Gone from reads at once; its tickets are detached and the item removed in the background.
    expect((await s.org.call('GET', `${R()}/${doomed.id}`)).status).toBe(404);
    expect((await s.org.call('DELETE', `${R()}/${doomed.id}`)).status).toBe(404);
    await waitUntil(() => db().entities.release.get({ orgId: s.org.orgId, boardId: s.boardId, releaseId: doomed.id }).go({ consistent: true }), (found) => found.data === null);
    expect((await db().entities.releaseTicket.query.byRelease({ orgId: s.org.orgId, releaseId: doomed.id }).go()).data).toEqual([]);
    for (const t of tickets) {
      const stored = (await db().entities.ticket.get({ ticketId: t.id }).go({ consistent: true })).data!;
      expect(stored.isDeleted).toBe(false);
      expect(stored.releaseIds ?? []).not.toContain(doomed.id);
    }
    expect((await s.org.call('GET', `/api/v1/boards/${s.boardId}/milestones/${kept.id}`)).status).toBe(200);
  });

  it('detaches a deleted release in steps, each safe to run again after a crash', async () => {
    const half = await release('Half deleted');
    const members = await Promise.all(Array.from({ length: 5 }, (_, n) => createTicket(s.org, s.boardId, { title: `Half ${n}` })));
    for (const t of members) await s.org.call('POST', `${R()}/${half.id}/tickets`, { body: { ticketId: t.id } });
    // As if DELETE had marked it and the job's first step (two memberships a step here) ran, then
    // ran again: the consumer died before marking the step done, and the replay redoes it.
    await db().entities.release.patch({ orgId: s.org.orgId, boardId: s.boardId, releaseId: half.id }).set({ isDeleted: true }).go();
    expect((await s.org.call('GET', `${R()}/${half.id}`)).status).toBe(404);
    expect((await s.org.call('POST', `${R()}/${half.id}/tickets`, { body: { ticketId: members[0]!.id } })).status).toBe(404);
    const step = { eventId: `evt_STEP${Date.now()}`, orgId: s.org.orgId, subjectId: half.id, type: RELEASE_DETACHING_JOB.name, occurredAt: new Date().toISOString(), data: { boardId: s.boardId, releaseId: half.id } };
    await detachDeletedRelease(step, systemClock, 2);
    await detachDeletedRelease(step, systemClock, 2);
    // One continuation, whichever run wrote it; the stream consumer runs it and the item goes.
    const continuations = (await db().entities.event.query.bySubject({ orgId: s.org.orgId, subjectId: half.id }).go()).data.filter((event) => event.type === RELEASE_DETACHING_JOB.name);
    expect(continuations).toHaveLength(1);
    await waitUntil(() => db().entities.release.get({ orgId: s.org.orgId, boardId: s.boardId, releaseId: half.id }).go({ consistent: true }), (found) => found.data === null);
    for (const t of members) expect((await db().entities.ticket.get({ ticketId: t.id }).go({ consistent: true })).data!.releaseIds ?? []).toEqual([]);
    expect((await s.org.call('DELETE', `${R()}/${half.id}`)).status).toBe(404);
  });

  it('keeps ticketCount exact under 24 concurrent attaches, detaches, deletions and moves', async () => {
    const rc = await release('Racing');
    const tickets = await Promise.all(Array.from({ length: 12 }, (_, n) => createTicket(s.org, s.boardId, { title: `Race ${n}` })));
    for (const t of tickets.slice(0, 6)) await s.org.call('POST', `${R()}/${rc.id}/tickets`, { body: { ticketId: t.id } });
    const target = (await createBoard(s.org, { name: 'Race target', prefix: 'RRT' }));
    const responses = await Promise.all(
      tickets.flatMap((t, n) => [
        // Every ticket is attached (again, for the first six) …
        s.org.call('POST', `${R()}/${rc.id}/tickets`, { body: { ticketId: t.id } }),
        // … while a third are detached, a third deleted and a third moved away or edited.
        n % 3 === 0
          ? s.org.call('DELETE', `${R()}/${rc.id}/tickets/${t.id}`)
          : n % 3 === 1
            ? s.org.call('DELETE', ticketPath(t.id))
            : n % 2 === 0
              ? s.org.call('POST', `${ticketPath(t.id)}/move`, { body: { targetBoardId: target.id } })
              : s.org.call('PATCH', ticketPath(t.id), { body: { title: `Edited ${n}` } }),
      ]),
    );
    // Each request did its work, or found the ticket deleted or moved (400/404), or (a ticket
    // write, which a client retries) lost the race to the concurrent attach (409 CONFLICT).
    for (const response of responses) expect([200, 204, 400, 404, 409], JSON.stringify(response.body)).toContain(response.status);
    expect(responses.filter((response) => response.status < 300).length).toBeGreaterThanOrEqual(12);
    const truth = await recount(rc.id);
    expect(await countOf(rc.id)).toBe(truth);
    expect((await s.org.call('GET', `${R()}/${rc.id}/tickets`)).body.total).toBe(truth);
  });

  it('takes 20 tickets attached at once, each exactly once', async () => {
    const rc = await release('Parallel');
    const tickets = await Promise.all(Array.from({ length: 20 }, (_, n) => createTicket(s.org, s.boardId, { title: `Parallel ${n}` })));
    const responses = await Promise.all(tickets.map((t) => s.org.call('POST', `${R()}/${rc.id}/tickets`, { body: { ticketId: t.id } })));
    expect(responses.map((response) => response.status)).toEqual(tickets.map(() => 200));
    expect(await countOf(rc.id)).toBe(20);
    expect(await recount(rc.id)).toBe(20);
  });

  it('holds callers to releases permissions: members may not delete, agents only view', async () => {
    const rc = await release('Permissions');
    const member = await createMember(s.org, { name: 'Rita Member' });
    await s.org.call('POST', `/api/v1/boards/${s.boardId}/members`, { body: { userId: member.id } });
    const asMember = (method: string, path: string, body?: unknown) => api(method, path, { token: member.token, org: s.org.slug, ...(body !== undefined ? { body } : {}) });
    expect((await asMember('POST', R(), { name: 'By a member' })).status).toBe(201);
    expect((await asMember('PATCH', `${R()}/${rc.id}`, { version: '1.0' })).status).toBe(200);
    const refused = await asMember('DELETE', `${R()}/${rc.id}`);
    expect(refused.status).toBe(403);
    expect(refused.body.error.details.permission).toBe('releases:delete');

    await setPlan(s.org.slug, 'PRO');
    const agent = await createAgent(s.org, { boardIds: [s.boardId] });
    const asAgent = agent.call;
    expect((await asAgent('GET', `${R()}/${rc.id}`)).status).toBe(200);
    expect((await asAgent('POST', R(), { name: 'By an agent' })).status).toBe(403);
    const t = await createTicket(s.org, s.boardId);
    expect((await asAgent('POST', `${R()}/${rc.id}/tickets`, { ticketId: t.id })).status).toBe(403);
    expect(await countOf(rc.id)).toBe(0);
  });
});
