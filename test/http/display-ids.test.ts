import { beforeAll, describe, expect, it } from 'vitest';
import { boardSetup, type BoardSetup } from '../support/tickets.js';
import { createBoard } from '../support/factories.js';
import { useInProcess } from '../support/api.js';

// In process, through the same route table and handlers (test/support/api.ts).
useInProcess();

/** Ticket routes take the display id ("PLAT-12", any case) wherever they take a ticket id. */
describe('ticket routes accept display ids', () => {
  let s: BoardSetup;
  let ticket: { id: string; displayId: string };
  const tickets = () => `/api/v1/boards/${s.boardId}/tickets`;

  beforeAll(async () => {
    s = await boardSetup('Platform', 'PLAT');
    ticket = (await s.org.call('POST', tickets(), { body: { title: 'Set up CI', statusId: s.statuses.IN_PROGRESS.id } })).body.data;
    expect(ticket.displayId).toBe('PLAT-1');
  });

  it('reads a ticket by its display id, in any case (its cost: round-trips/scenarios.test.ts)', async () => {
    for (const ref of ['PLAT-1', 'plat-1', 'Plat-1']) {
      const byDisplayId = await s.org.call('GET', `${tickets()}/${ref}`);
      expect(byDisplayId.status).toBe(200);
      expect(byDisplayId.body.data.id).toBe(ticket.id);
    }
  });

  it('writes through display ids: status, comments, claims, timeline', async () => {
    const moved = await s.org.call('PATCH', `${tickets()}/PLAT-1/status`, { body: { statusId: s.statuses.IN_REVIEW.id } });
    expect(moved.status).toBe(200);
    expect(moved.body.data.status.id).toBe(s.statuses.IN_REVIEW.id);
    const comment = await s.org.call('POST', `${tickets()}/plat-1/comments`, { body: { content: 'Looks good' } });
    expect(comment.status).toBe(201);
    expect((await s.org.call('GET', `${tickets()}/${ticket.id}/comments`)).body.data.map((entry: { id: string }) => entry.id)).toContain(comment.body.data.id);
    expect((await s.org.call('POST', `${tickets()}/PLAT-1/claim`, { body: {} })).status).toBe(201);
    expect((await s.org.call('DELETE', `${tickets()}/PLAT-1/claim`, { body: {} })).status).toBe(200);
    const timeline = await s.org.call('GET', `${tickets()}/PLAT-1/timeline`);
    expect(timeline.body.data.map((entry: { kind: string }) => entry.kind)).toContain('CLAIM_RELEASED');
  });

  it('takes display ids for subtickets and in bodies that name a ticket', async () => {
    const sub = (await s.org.call('POST', `${tickets()}/PLAT-1/subtickets`, { body: { title: 'Part' } })).body.data;
    const status = await s.org.call('PATCH', `${tickets()}/PLAT-1/subtickets/${sub.displayId.toLowerCase()}/status`, { body: { statusId: s.statuses.TODO.id } });
    expect(status.status).toBe(200);
    const other = (await s.org.call('POST', tickets(), { body: { title: 'Loose end', statusId: s.statuses.TODO.id } })).body.data;
    const converted = await s.org.call('POST', `${tickets()}/${other.displayId}/convert-to-subticket`, { body: { parentTicketId: 'PLAT-1' } });
    expect(converted.status).toBe(200);
    const reordered = await s.org.call('PATCH', `${tickets()}/reorder`, { body: { ticketId: 'PLAT-1', position: 3 } });
    expect(reordered.status).toBe(200);
  });

  it('answers 404 for an unknown display id, another board’s ticket and another organization’s', async () => {
    expect((await s.org.call('GET', `${tickets()}/PLAT-999`)).status).toBe(404);
    const otherBoard = (await createBoard(s.org, { name: 'Web', prefix: 'WEB' }));
    await s.org.call('POST', `/api/v1/boards/${otherBoard.id}/tickets`, { body: { title: 'Elsewhere' } });
    expect((await s.org.call('GET', `${tickets()}/WEB-1`)).status).toBe(404);
    const foreign = await boardSetup('Platform', 'PLAT');
    await foreign.org.call('POST', `/api/v1/boards/${foreign.boardId}/tickets`, { body: { title: 'Theirs' } });
    // PLAT-1 of the other organization is their own PLAT-1, never ours.
    const theirs = await foreign.org.call('GET', `/api/v1/boards/${foreign.boardId}/tickets/PLAT-1`);
    expect(theirs.body.data.title).toBe('Theirs');
    expect((await s.org.call('GET', `/api/v1/boards/${foreign.boardId}/tickets/PLAT-1`)).status).toBe(404);
  });
});
