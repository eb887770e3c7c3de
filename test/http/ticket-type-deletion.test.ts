import { beforeAll, describe, expect, it } from 'vitest';
import { expectValidationError, signupOrg, type TestOrg, useInProcess } from '../support/api.js';
import { createTicket } from '../support/factories.js';
import { waitUntil } from '../support/wait.js';
import { allPages, answered } from '../support/lists.js';
import { db } from '../../lib/db/service.js';
import { RETYPED_PER_STEP } from '../../lib/tickets/lists/retype.js';
import { seedBoard } from '../bench/seed.js';

// In process, through the same route table and handlers (test/support/api.ts).
useInProcess();

/*
 * Deleting a ticket type whose tickets move to another (issue 30, item 4): the request answers
 * at once and the type is gone from every read at once (its tickets show the replacement, a
 * filter by the replacement finds them, nobody can give a ticket the deleted type); the events
 * function moves the tickets in steps of RETYPED_PER_STEP per board, then deletes the type. At
 * the end every ticket has the replacement and both types' counts are exact. A type that a
 * deleted type's tickets are moving to needs a replacement of its own, and the tickets follow
 * the chain to its end.
 */
let org: TestOrg;
const boards: string[] = [];
/** The first board takes more than a step; the second a few tickets. */
const ON_BOARDS = [RETYPED_PER_STEP + 5, 5];
const TOTAL = ON_BOARDS[0]! + ON_BOARDS[1]!;
const PREFIXES = ['TDA', 'TDB'];

const createType = async (name: string) => (await answered(org.call('POST', '/api/v1/ticket-types', { body: { name, color: '#336699' } }), 201)).id as string;
const countOf = async (typeId: string) => (await db().entities.ticketType.get({ orgId: org.orgId, typeId }).go({ consistent: true })).data?.ticketCount;
const itemOf = async (typeId: string) => (await db().entities.ticketType.get({ orgId: org.orgId, typeId }).go({ consistent: true })).data;
const stored = async () =>
  (await Promise.all(boards.map((boardId) => db().entities.ticket.query.byBoard({ orgId: org.orgId, boardId }).go({ pages: 'all' })))).flatMap((part) => part.data).filter((ticket) => !ticket.isDeleted);

/** Every page of a type filter, through the facet index and through the full read: identical. */
async function typeList(typeId: string): Promise<{ ids: string[]; total: number }> {
  const path = `/api/v1/issues?typeId=${typeId}&includePlanning=true&includeArchived=true`;
  const indexed = await allPages(org, path, 100);
  // A filter no index serves (no ticket here needs reassignment) makes the same list read its tickets.
  expect(await allPages(org, `${path}&needsReassignment=false`, 100)).toEqual(indexed);
  return indexed;
}

beforeAll(async () => {
  org = await signupOrg();
  for (const prefix of PREFIXES) boards.push((await answered(org.call('POST', '/api/v1/boards', { body: { name: `Types ${prefix}`, prefix } }), 201)).id);
}, 60_000);

describe('deleting a ticket type with tickets', () => {
  it('answers at once, shows the replacement at once, and moves every ticket in the background', async () => {
    const doomed = await createType('Doomed');
    const kept = await createType('Kept');
    // Written in batches as the write path shapes them, with the type's count (the job is under test, not the creates).
    const statuses = (await answered(org.call('GET', '/api/v1/statuses'))).data as { id: string; category: string }[];
    const vocabulary = { activeStatusIds: statuses.filter((status) => status.category === 'ACTIVE').map((status) => status.id), typeId: doomed, assignee: { id: org.adminId, name: 'Ada Admin' }, createdById: org.adminId };
    for (const [board, count] of ON_BOARDS.entries()) await seedBoard({ orgId: org.orgId, boardId: boards[board]!, prefix: PREFIXES[board]! }, vocabulary, count);
    await db().entities.ticketType.patch({ orgId: org.orgId, typeId: doomed }).add({ ticketCount: TOTAL }).go();
    const seeded = new Set((await stored()).map((ticket) => ticket.ticketId));
    await createTicket(org, boards[0]!, { title: 'Already kept', typeId: kept });
    const one = (await stored()).find((ticket) => ticket.typeId === doomed)!;
    await answered(org.call('PATCH', `/api/v1/boards/${one.boardId}/tickets/${one.ticketId}`, { body: { isArchived: true } }));
    expect(await countOf(doomed)).toBe(TOTAL);

    const started = Date.now();
    expect((await org.call('DELETE', `/api/v1/ticket-types/${doomed}?replacementTypeId=${kept}`)).status).toBe(204);
    expect(Date.now() - started).toBeLessThan(5_000);
    // Gone from every read at once.
    expect((await answered(org.call('GET', '/api/v1/ticket-types'))).data.map((type: { id: string }) => type.id)).not.toContain(doomed);
    expect((await org.call('GET', `/api/v1/ticket-types/${doomed}`)).status).toBe(404);
    expect((await answered(org.call('GET', `/api/v1/boards/${one.boardId}/tickets/${one.ticketId}`))).data.type).toEqual({ id: kept, name: 'Kept' });
    expect((await typeList(kept)).total).toBe(TOTAL + 1);
    expect((await typeList(doomed)).total).toBe(0);
    // Nobody gives a ticket the deleted type.
    expect((await org.call('POST', `/api/v1/boards/${boards[0]}/tickets`, { body: { title: 'Late', typeId: doomed } })).status).toBe(400);
    const other = await createTicket(org, boards[1]!, { title: 'Other', typeId: kept });
    expect((await org.call('PATCH', `/api/v1/boards/${boards[1]}/tickets/${other.id}`, { body: { typeId: doomed } })).status).toBe(400);

    // The job moves every ticket, then deletes the type.
    expect(await waitUntil(() => itemOf(doomed), (item) => item === null, 90_000)).toBeNull();
    const tickets = await stored();
    expect(tickets.filter((ticket) => ticket.typeId === doomed)).toEqual([]);
    expect(tickets.filter((ticket) => ticket.typeId === kept)).toHaveLength(TOTAL + 2);
    expect(await countOf(kept)).toBe(TOTAL + 2);
    expect((await typeList(kept)).total).toBe(TOTAL + 2);
    // One write each: every moved ticket is at version 2 (3 for the archived one).
    expect(tickets.filter((ticket) => seeded.has(ticket.ticketId) && ticket.ticketId !== one.ticketId).every((ticket) => ticket.version === 2)).toBe(true);
  }, 180_000);

  it('needs a replacement for a type a deleted type is moving to, and the tickets follow the chain', async () => {
    const first = await createType('First');
    const middle = await createType('Middle');
    const last = await createType('Last');
    const tickets = [];
    for (let index = 0; index < 6; index += 1) tickets.push(await createTicket(org, boards[index % 2]!, { title: `Chained ${index}`, typeId: index < 4 ? first : middle }));
    expect((await org.call('DELETE', `/api/v1/ticket-types/${first}?replacementTypeId=${middle}`)).status).toBe(204);
    expectValidationError(await org.call('DELETE', `/api/v1/ticket-types/${middle}`), 'replacementTypeId');
    // A deleted type is no replacement.
    expect((await org.call('DELETE', `/api/v1/ticket-types/${last}?replacementTypeId=${first}`)).status).toBe(400);
    expect((await org.call('DELETE', `/api/v1/ticket-types/${middle}?replacementTypeId=${last}`)).status).toBe(204);
    expect((await answered(org.call('GET', `/api/v1/boards/${tickets[0]!.boardId}/tickets/${tickets[0]!.id}`))).data.type.id).toBe(last);
    expect((await typeList(last)).total).toBe(6);
    await waitUntil(async () => [await itemOf(first), await itemOf(middle)], (items) => items.every((item) => item === null), 60_000);
    expect((await stored()).filter((ticket) => ticket.title.startsWith('Chained')).map((ticket) => ticket.typeId)).toEqual(Array(6).fill(last));
    expect(await countOf(last)).toBe(6);
  }, 120_000);
});
