import { beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../lib/core/clock.js';
import { db } from '../../lib/db/service.js';
import { runSearchIndexJob } from '../../lib/tickets/search/index.js';
import { boardSetup, type BoardSetup } from '../support/tickets.js';
import { createTicket } from '../support/factories.js';
import { waitUntil } from '../support/wait.js';

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
});
