import { beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../lib/core/clock.js';
import { db } from '../../lib/db/service.js';
import { indexTicketSearch, runSearchIndexJob } from '../../lib/tickets/search/index.js';
import { boardSetup, type BoardSetup } from '../support/tickets.js';
import { createTicket } from '../support/factories.js';
import { waitUntil } from '../support/wait.js';
import { useInProcess } from '../support/api.js';

// In process, through the same route table and handlers (test/support/api.ts).
useInProcess();

/*
 * A ticket's search-index job runs only while its pending marker stands. A job replayed after a
 * restart, or one a later write's run already covered, must not take the search record's lease
 * and give it back: each such run rewrote the record twice (dirty, then clean) at the same
 * version, feeding the stream the events consumer reads and keeping it behind.
 */
let setup: BoardSetup;

beforeAll(async () => {
  setup = await boardSetup('Search jobs');
}, 60_000);

const markerOf = (ticketId: string) => db().entities.searchPending.get({ orgId: setup.org.orgId, ticketId }).go({ consistent: true });
const recordOf = async (ticketId: string) => (await db().entities.ticketSearchDoc.get({ ticketId }).go({ consistent: true })).data;
const jobFor = (ticketId: string) => ({ eventId: 'evt_replayed', orgId: setup.org.orgId, subjectId: `search:${ticketId}`, type: 'tickets.search-index', occurredAt: new Date().toISOString(), data: { ticketId } });

describe('search-index jobs', () => {
  it('refuses to rewrite the search record for a job whose work is done (no pending marker): replayed jobs write nothing', async () => {
    const ticket = await createTicket(setup.org, setup.boardId, { title: 'Replayed zephyr job' });
    await waitUntil(() => markerOf(ticket.id), (marker) => marker.data === null, 30_000);
    const indexed = await recordOf(ticket.id);
    expect(indexed).toMatchObject({ dirty: false, extra: [] });
    // A canary no finished run leaves behind: any run would clear it (and take the lease, and set dirty).
    await db().entities.ticketSearchDoc.patch({ ticketId: ticket.id }).set({ extra: ['canary'] }).go();
    for (let replay = 0; replay < 3; replay += 1) await runSearchIndexJob(jobFor(ticket.id), systemClock);
    expect(await recordOf(ticket.id)).toMatchObject({ dirty: false, extra: ['canary'], version: indexed!.version });
    await db().entities.ticketSearchDoc.patch({ ticketId: ticket.id }).set({ extra: [] }).go();

    // A write that changes its words leaves a marker: its job indexes it, and search finds the new word.
    expect((await setup.org.call('PATCH', `/api/v1/boards/${setup.boardId}/tickets/${ticket.id}`, { body: { title: 'Replayed quokka job' } })).status).toBe(200);
    await waitUntil(() => markerOf(ticket.id), (marker) => marker.data === null, 30_000);
    const found = await setup.org.call('GET', `/api/v1/boards/${setup.boardId}/tickets?search=quokka&includePlanning=true`);
    expect(found.body.data.map((item: { id: string }) => item.id)).toEqual([ticket.id]);
    expect((await recordOf(ticket.id))!.version).toBeGreaterThan(indexed!.version!);
  });

  it('refuses to leave a new ticket to the events function when its entries fit its create, or when the index is behind: found at once, counted, no marker', async () => {
    const termsOf = async () =>
      (await db().entities.ticketTerm.query.byTerm({ orgId: setup.org.orgId, boardId: setup.boardId }).go({ pages: 'all', consistent: true })).data.map(({ term, ticketId, statusId, shared, counted }) => ({ term, ticketId, statusId, shared, counted }));
    const countsOf = async () => (await db().entities.ticketTermCount.query.byTerm({ orgId: setup.org.orgId, boardId: setup.boardId }).go({ pages: 'all', consistent: true })).data;
    const created = await setup.org.call('POST', `/api/v1/boards/${setup.boardId}/tickets`, { body: { title: 'Inline wombat indexing', description: 'Searchable before any job runs.' } });
    expect(created.status).toBe(201);
    const ticketId = created.body.data.id as string;
    // No marker and no job: the create wrote the record, entries and counts itself.
    expect((await markerOf(ticketId)).data).toBeNull();
    expect(await recordOf(ticketId)).toMatchObject({ version: created.body.data.version ?? 1, dirty: false, extra: [] });
    const jobs = (await db().entities.event.query.bySubject({ orgId: setup.org.orgId, subjectId: `search:${ticketId}` }).go({ consistent: true })).data;
    expect(jobs).toEqual([]);
    const found = await setup.org.call('GET', `/api/v1/boards/${setup.boardId}/tickets?search=wombat&includePlanning=true`);
    expect(found.body.data.map((item: { id: string }) => item.id)).toEqual([ticketId]);
    const mine = (await termsOf()).filter((entry) => entry.ticketId === ticketId);
    expect(mine.map((entry) => entry.term).sort()).toEqual(['before', 'indexing', 'inline', 'job', 'runs', 'searchable', 'wombat', `#${created.body.data.displayId.toLowerCase()}`, 'any'].sort());
    expect(mine.every((entry) => entry.counted === true)).toBe(true);
    // A run of the indexer over it finds nothing to change: the entries and counts are as a run leaves them.
    const [entriesBefore, countsBefore] = [await termsOf(), await countsOf()];
    await indexTicketSearch(setup.org.orgId, ticketId, systemClock);
    expect(await termsOf()).toEqual(entriesBefore);
    expect(await countsOf()).toEqual(countsBefore);

    // A ticket whose entries do not fit beside its create is left to the events function (a
    // marker and its job) while the organization's index keeps up…
    const long = (tag: string) => Array.from({ length: 120 }, (_, index) => `${tag}${index}`).join(' ');
    const big = await setup.org.call('POST', `/api/v1/boards/${setup.boardId}/tickets`, { body: { title: 'Long numbat description', description: long('word') } });
    expect(big.status).toBe(201);
    expect((await markerOf(big.body.data.id)).data).not.toBeNull();
    await waitUntil(() => markerOf(big.body.data.id), (marker) => marker.data === null, 30_000);
    // …and indexed by its own request, before it answers, when more than 50 tickets wait (a bulk
    // import): the backlog never grows past what searches judge from the tickets themselves.
    const backlog = Array.from({ length: 51 }, (_, index) => ({ orgId: setup.org.orgId, ticketId: `tkt_backlog${index}`, version: 1, at: new Date().toISOString() }));
    await db().entities.searchPending.put(backlog).go();
    try {
      const during = await setup.org.call('POST', `/api/v1/boards/${setup.boardId}/tickets`, { body: { title: 'Imported wallaby', description: long('bulk') } });
      expect(during.status).toBe(201);
      expect((await markerOf(during.body.data.id)).data).toBeNull();
      // Indexed before the answer (version 1 stored). Its job may meanwhile run once more in the
      // events function (it found the marker before the request's run removed it): that run
      // changes nothing and leaves the record settled again.
      expect(await recordOf(during.body.data.id)).toMatchObject({ version: 1 });
      expect(await waitUntil(() => recordOf(during.body.data.id), (record) => record?.dirty === false, 30_000)).toMatchObject({ version: 1, dirty: false, extra: [] });
      const jobs = (await db().entities.event.query.bySubject({ orgId: setup.org.orgId, subjectId: `search:${during.body.data.id}` }).go({ consistent: true })).data;
      expect(jobs.map((event) => event.type)).toEqual(['tickets.search-index']);
    } finally {
      await db().entities.searchPending.delete(backlog.map(({ orgId, ticketId }) => ({ orgId, ticketId }))).go();
    }
    const numbat = await setup.org.call('GET', `/api/v1/boards/${setup.boardId}/tickets?search=word119&includePlanning=true`);
    expect(numbat.body.data.map((item: { id: string }) => item.id)).toEqual([big.body.data.id]);
  });
});
