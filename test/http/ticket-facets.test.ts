import { beforeAll, describe, expect, it } from 'vitest';
import { createMember, signupOrg, type TestOrg, useInProcess } from '../support/api.js';
import { createLabel, createTicket, createTicketType } from '../support/factories.js';
import { db } from '../../lib/db/service.js';
import { allPages, answered } from '../support/lists.js';
import { facetsOf, isCountedFacet } from '../../lib/tickets/record/facets.js';
import { loadFacetCounts } from '../../lib/tickets/lists/facet-reads.js';
import { seedBoard } from '../bench/seed.js';

// In process, through the same route table and handlers (test/support/api.ts).
useInProcess();

/*
 * The facet index (lib/tickets/record/facets.ts, lib/tickets/lists/facets.ts) against the full-read path it replaces: every
 * list with one facet filter (assignee, assignedToMe, types, labels, customer, priorities,
 * impact levels, due dates, noDueDate), on a board and on /issues, page by page with its total,
 * must answer exactly what the full read answers, after creates, status changes, reorders,
 * moves between boards, edits of every faceted field, archiving, deletion and a deleted label.
 * The full read is what a list gets with a filter the indexes do not serve: `FULL_READ` adds
 * `needsReassignment=false`, which changes no answer here (no ticket of these organizations
 * needs reassignment) and makes the list read its tickets.
 */
let org: TestOrg;
let boards: string[];
const queries: string[] = [];

type Statuses = Record<string, { id: string }>;

const FULL_READ = '&needsReassignment=false';


beforeAll(async () => {
  org = await signupOrg();
  const statuses: Statuses = Object.fromEntries((await org.call('GET', '/api/v1/statuses')).body.data.map((status: any) => [status.key, status]));
  const member = await createMember(org, { name: 'Facet Member' });
  const customer = (await answered(org.call('POST', '/api/v1/customers', { body: { name: 'Facet customer' } }), 201)).id;
  boards = [];
  for (const prefix of ['FCA', 'FCB']) {
    const board = await answered(org.call('POST', '/api/v1/boards', { body: { name: `Facets ${prefix}`, prefix, customerIds: [customer] } }), 201);
    await org.call('POST', `/api/v1/boards/${board.id}/members`, { body: { userId: member.id } });
    boards.push(board.id);
  }
  const bug = (await createTicketType(org, { name: 'Facet bug' })).id;
  const labels = [(await createLabel(org)).id, (await createLabel(org)).id, (await createLabel(org)).id];
  const statusCycle = ['BACKLOG', 'TODO', 'IN_PROGRESS', 'IN_REVIEW', 'BLOCKED', 'DONE'].map((key) => statuses[key]!.id);
  const priorities = ['low', 'medium', 'high', 'critical'];
  const impacts = ['low', 'high', undefined];
  const tickets: { id: string; boardId: string }[] = [];
  for (let index = 0; index < 36; index += 1) {
    const boardId = boards[index % 2]!;
    const ticket = await createTicket(org, boardId, {
      title: `Facet ticket ${index}`,
      statusId: statusCycle[index % statusCycle.length],
      priority: priorities[index % 4],
      ...(index % 3 === 0 ? { assigneeId: org.adminId } : index % 3 === 1 ? { assigneeId: member.id } : {}),
      ...(index % 4 === 0 ? { typeId: bug } : {}),
      ...(index % 5 === 0 ? { customerId: customer } : {}),
      ...(impacts[index % 3] ? { impactLevel: impacts[index % 3] } : {}),
      labelIds: labels.filter((_, labelIndex) => (index >> labelIndex) % 2 === 1),
      ...(index % 4 !== 3 ? { dueDate: new Date(Date.UTC(2020, 0, 1) + index * 40 * 86_400_000).toISOString() } : {}),
    });
    tickets.push({ id: ticket.id, boardId });
  }
  // Changes after creation: every field the facets follow, and the states a list hides.
  const path = (ticket: { id: string; boardId: string }) => `/api/v1/boards/${ticket.boardId}/tickets/${ticket.id}`;
  const patch = (ticket: { id: string; boardId: string }, body: Record<string, unknown>) => answered(org.call('PATCH', path(ticket), { body }));
  await answered(org.call('PATCH', `${path(tickets[0]!)}/status`, { body: { statusId: statuses.IN_PROGRESS!.id } }));
  await answered(org.call('PATCH', `/api/v1/boards/${tickets[2]!.boardId}/tickets/reorder`, { body: { ticketId: tickets[2]!.id, position: 0, statusId: statuses.IN_PROGRESS!.id } }));
  await answered(org.call('PATCH', `/api/v1/boards/${tickets[4]!.boardId}/tickets/reorder`, { body: { ticketId: tickets[4]!.id, position: 1 } }));
  await patch(tickets[5]!, { assigneeId: null, typeId: bug, labelIds: [labels[2]], customerId: customer, priority: 'critical', impactLevel: null, dueDate: null });
  await patch(tickets[6]!, { assigneeId: member.id, labelIds: [], dueDate: '2031-05-05T00:00:00.000Z', impactLevel: 'critical' });
  await patch(tickets[7]!, { isArchived: true });
  await patch(tickets[8]!, { isArchived: true });
  await patch(tickets[8]!, { isArchived: false });
  await answered(org.call('DELETE', path(tickets[9]!)), 204);
  await answered(org.call('POST', `${path(tickets[10]!)}/move`, { body: { targetBoardId: boards[1] } }));
  await answered(org.call('POST', `${path(tickets[12]!)}/move`, { body: { targetBoardId: boards[1] } }));
  // A deleted label lingers on its tickets and matches nothing.
  await answered(org.call('DELETE', `/api/v1/labels/${labels[1]}`), 204);

  const dimensions = [
    `assigneeId=${org.adminId}`,
    `assigneeId=${member.id}`,
    'assignedToMe=true',
    `typeId=${bug}`,
    `labelId=${labels[0]},${labels[2]}`,
    `labelId=${labels[1]}`,
    `customerId=${customer}`,
    'priority=critical,low',
    'impactLevel=high',
    'dueBefore=2021-06-01T00:00:00.000Z',
    'dueAfter=2021-06-01T00:00:00.000Z',
    'dueAfter=2020-03-01&dueBefore=2022-01-01',
    'overdue=true',
    'noDueDate=true',
  ];
  const flags = ['', '&includeArchived=true&includePlanning=true', `&statusId=${statuses.IN_PROGRESS!.id},${statuses.DONE!.id}`];
  for (const dimension of dimensions) for (const flag of flags) queries.push(`${dimension}${flag}`);
});

const pagesOf = (path: string) => allPages(org, path, 5);

describe('lists served by the facet index', () => {
  it('answer every page and total exactly as the full read does, on a board and across boards', async () => {
    const lists = queries.flatMap((query) => [
      // assignedToMe is a filter of /issues only.
      ...(query.startsWith('assignedToMe') ? [] : [`/api/v1/boards/${boards[0]}/tickets?${query}`, `/api/v1/boards/${boards[1]}/tickets?${query}`]),
      `/api/v1/issues?${query}`,
    ]);
    const expected = [];
    for (const list of lists) expected.push(await pagesOf(`${list}${FULL_READ}`));
    let nonEmpty = 0;
    for (const [index, list] of lists.entries()) {
      const actual = await pagesOf(list);
      expect(actual, list).toEqual(expected[index]);
      if (actual.total > 0) nonEmpty += 1;
    }
    // The fixture exercises the lists, not just empty answers.
    expect(nonEmpty).toBeGreaterThan(lists.length / 2);
  }, 120_000);
});

describe('a ticket with every facet', () => {
  it('takes the most labels, every other facet, a move and a status change in its one transaction each', async () => {
    const labels: string[] = [];
    for (let index = 0; index < 25; index += 1) labels.push((await createLabel(org)).id);
    const tooMany = await org.call('POST', `/api/v1/boards/${boards[0]}/tickets`, { body: { title: 'Too many labels', labelIds: [...labels, labels[0]] } });
    expect(tooMany.status).toBe(400);
    const customer = (await answered(org.call('POST', '/api/v1/customers', { body: { name: 'Every facet customer' } }), 201)).id;
    await answered(org.call('PATCH', `/api/v1/boards/${boards[1]}`, { body: { customerIds: [customer] } }));
    const ticket = await createTicket(org, boards[1]!, {
      title: 'Every facet', labelIds: labels, assigneeId: org.adminId, customerId: customer, priority: 'high', impactLevel: 'low', dueDate: '2024-04-04',
    });
    const listed = async (query: string) => (await answered(org.call('GET', `/api/v1/issues?${query}&includePlanning=true&limit=100`))).data.map((item: { id: string }) => item.id);
    expect(await listed(`labelId=${labels[24]}`)).toEqual([ticket.id]);
    await answered(org.call('POST', `/api/v1/boards/${boards[1]}/tickets/${ticket.id}/move`, { body: { targetBoardId: boards[0] } }));
    const statuses = (await org.call('GET', '/api/v1/statuses')).body.data;
    const inProgress = statuses.find((status: { key: string }) => status.key === 'IN_PROGRESS').id;
    await answered(org.call('PATCH', `/api/v1/boards/${boards[0]}/tickets/${ticket.id}/status`, { body: { statusId: inProgress } }));
    const onBoard = (await answered(org.call('GET', `/api/v1/boards/${boards[0]}/tickets?labelId=${labels[3]}&statusId=${inProgress}`))).data.map((item: { id: string }) => item.id);
    expect(onBoard).toEqual([ticket.id]);
    expect((await answered(org.call('GET', `/api/v1/boards/${boards[1]}/tickets?labelId=${labels[3]}&includePlanning=true`))).total).toBe(0);
  });
});

describe('the FacetCount items', () => {
  it('count every live ticket once per counted value and status, after every change of the fixture', async () => {
    const now = (await Promise.all(boards.map((boardId) => db().entities.ticket.query.byBoard({ orgId: org.orgId, boardId }).go({ pages: 'all' })))).flatMap((part) => part.data);
    const wanted = new Map<string, number>();
    for (const entry of now.flatMap((ticket) => facetsOf(ticket)).filter((entry) => isCountedFacet(entry.facet))) {
      const key = `${entry.boardId} ${entry.facet} ${entry.statusId}`;
      wanted.set(key, (wanted.get(key) ?? 0) + 1);
    }
    const counted = new Map<string, number>();
    for (const value of new Set([...wanted.keys()].map((key) => key.split(' ').slice(0, 2).join(' ')))) {
      const [boardId, facet] = value.split(' ') as [string, string];
      for (const [statusId, count] of await loadFacetCounts(org.orgId, boardId, facet)) if (count.total !== 0) counted.set(`${value} ${statusId}`, count.total);
    }
    expect(wanted.size).toBeGreaterThan(10);
    expect(Object.fromEntries(counted)).toEqual(Object.fromEntries(wanted));
  });
});

describe('a value most of a large board has', () => {
  it('counts its total and reads its page from the columns, answering as the full read does', async () => {
    const big = await signupOrg();
    const bigStatuses = (await big.call('GET', '/api/v1/statuses')).body.data as { id: string; key: string; category: string }[];
    const board = await answered(big.call('POST', '/api/v1/boards', { body: { name: 'Dense', prefix: 'DNS' } }), 201);
    const typeId = (await big.call('GET', '/api/v1/ticket-types')).body.data.find((type: { isDefault?: boolean; isOrgDefault?: boolean }) => type.isOrgDefault ?? type.isDefault)?.id
      ?? (await big.call('GET', '/api/v1/ticket-types')).body.data[0].id;
    const vocabulary = {
      activeStatusIds: bigStatuses.filter((status) => status.category === 'ACTIVE').map((status) => status.id),
      typeId, assignee: { id: big.adminId, name: 'Ada Admin' }, createdById: big.adminId,
    };
    // Written as the benchmarks write them (no search entries: this organization never searches).
    await seedBoard({ orgId: big.orgId, boardId: board.id, prefix: 'DNS' }, vocabulary, 900, 1, { searchIndex: false });
    // Some of them finished and archived through the API, so the counts and columns have more than one category.
    const done = bigStatuses.find((status) => status.key === 'DONE')!.id;
    const firstPage = (await answered(big.call('GET', `/api/v1/boards/${board.id}/tickets?limit=12`))).data as { id: string }[];
    for (const [index, ticket] of firstPage.entries()) {
      const path = `/api/v1/boards/${board.id}/tickets/${ticket.id}`;
      if (index % 2 === 0) await answered(big.call('PATCH', `${path}/status`, { body: { statusId: done } }));
      else await answered(big.call('PATCH', path, { body: { isArchived: true } }));
    }
    const samplePages = async (query: string) => {
      const answers = [];
      for (const page of [1, 7, 45]) {
        const body = await answered(big.call('GET', `/api/v1/boards/${board.id}/tickets?${query}&limit=20&page=${page}`));
        answers.push({ total: body.total, totalPages: body.totalPages, ids: body.data.map((ticket: { id: string }) => ticket.id) });
      }
      return answers;
    };
    const queries = [`typeId=${typeId}`, `typeId=${typeId}&includeArchived=true`, `typeId=${typeId}&includeArchived=true&includePlanning=true`, 'noDueDate=true', `noDueDate=true&statusId=${vocabulary.activeStatusIds[0]},${done}`];
    const indexed = [];
    for (const query of queries) indexed.push(await samplePages(query));
    // The same pages from the full read.
    for (const [index, query] of queries.entries()) expect(indexed[index], query).toEqual(await samplePages(`${query}${FULL_READ}`));
    expect(indexed[0]![0]!.total).toBeGreaterThan(800);
    expect(indexed[0]![0]!.ids).toHaveLength(20);
  }, 180_000);
});
