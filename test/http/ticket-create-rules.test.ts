import { beforeAll, describe, expect, it } from 'vitest';
import { api, createMember, useInProcess } from '../support/api.js';
import { boardSetup, type BoardSetup } from '../support/tickets.js';

// In process, through the same route table and handlers (test/support/api.ts).
useInProcess();

const ticketsOf = (s: BoardSetup) => `/api/v1/boards/${s.boardId}/tickets`;

/** Creates a ticket as the administrator and returns its number: the next number the board gives. */
async function nextNumber(s: BoardSetup): Promise<number> {
  const created = await s.org.call('POST', ticketsOf(s), { body: { title: 'Counter probe' } });
  expect(created.status).toBe(201);
  return Number(created.body.data.displayId.split('-')[1]);
}

describe('a refused ticket create consumes no display-id number', () => {
  let s: BoardSetup;
  beforeAll(async () => {
    s = await boardSetup('Numbers', 'NUM');
  });

  it('takes no number for a create on a board the caller cannot see (404)', async () => {
    const before = await nextNumber(s);
    const outsider = await createMember(s.org);
    const refused = await api('POST', ticketsOf(s), { token: outsider.token, org: s.org.slug, body: { title: 'Sneaky' } });
    expect(refused.status).toBe(404);
    expect(await nextNumber(s)).toBe(before + 1);
  });

  it.each([
    ['an invalid body', { title: '' }],
    ['an unknown status', { title: 'x', statusId: 'sts_unknown' }],
    ['an unknown ticket type', { title: 'x', typeId: 'typ_unknown' }],
    ['an unknown label', { title: 'x', labelIds: ['lbl_unknown'] }],
    ['an unknown customer', { title: 'x', customerId: 'cst_unknown' }],
    ['an unknown assignee', { title: 'x', assigneeId: 'usr_unknown' }],
  ])('takes no number for a create with %s (400)', async (_, body) => {
    const before = await nextNumber(s);
    const refused = await s.org.call('POST', ticketsOf(s), { body });
    expect(refused.status).toBe(400);
    expect(await nextNumber(s)).toBe(before + 1);
  });

  it('takes no number for a create on an archived board', async () => {
    const archived = await boardSetup('Archived numbers');
    await nextNumber(archived);
    expect((await archived.org.call('POST', `/api/v1/boards/${archived.boardId}/archive`)).status).toBe(200);
    expect((await archived.org.call('POST', ticketsOf(archived), { body: { title: 'Late' } })).status).toBe(400);
    expect((await archived.org.call('POST', `/api/v1/boards/${archived.boardId}/unarchive`)).status).toBe(200);
    expect(await nextNumber(archived)).toBe(2);
  });

  it('numbers parallel creates without gaps', async () => {
    const own = await boardSetup('Parallel numbers');
    const created = await Promise.all(Array.from({ length: 8 }, (_, index) => own.org.call('POST', ticketsOf(own), { body: { title: `Parallel ${index}` } })));
    expect(created.map((response) => response.status)).toEqual(created.map(() => 201));
    const numbers = created.map((response) => Number(response.body.data.displayId.split('-')[1])).sort((a, b) => a - b);
    expect(numbers).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });
});

describe('customer users create tickets with customer fields only', () => {
  let s: BoardSetup;
  let customerId: string;
  let customerUser: { id: string; token: string };
  const asCustomer = (body: unknown) => api('POST', ticketsOf(s), { token: customerUser.token, org: s.org.slug, body });

  beforeAll(async () => {
    s = await boardSetup('Customer desk', 'DESK');
    customerId = (await s.org.call('POST', '/api/v1/customers', { body: { name: 'Globex' } })).body.id;
    await s.org.call('PATCH', `/api/v1/boards/${s.boardId}`, { body: { customerIds: [customerId] } });
    customerUser = await createMember(s.org, { role: 'CUSTOMER', customerId, name: 'Gil Globex' });
  });

  it('creates a ticket from title, description, priority, type and due date, for their own customer', async () => {
    const type = (await s.org.call('GET', '/api/v1/ticket-types/default')).body;
    const created = await asCustomer({ title: 'Printer on fire', description: 'Smoke', priority: 'critical', typeId: type.data?.id ?? type.id, dueDate: '2026-12-01T00:00:00.000Z' });
    expect(created.status).toBe(201);
    const read = await s.org.call('GET', `${ticketsOf(s)}/${created.body.data.id}`);
    expect(read.body.data).toMatchObject({ title: 'Printer on fire', priority: 'critical', customerId });
    // Naming their own customer is allowed (and changes nothing).
    expect((await asCustomer({ title: 'Again', customerId })).status).toBe(201);
  });

  it.each([
    ['statusId', (s: BoardSetup) => s.statuses.IN_PROGRESS.id],
    ['assigneeId', (s: BoardSetup) => s.org.adminId],
    ['labelIds', () => []],
    ['isArchived', () => true],
    ['startDate', () => '2026-12-01T00:00:00.000Z'],
    ['estimatedHours', () => 3],
    ['storyPoints', () => 5],
    ['externalReference', () => 'JIRA-1'],
    ['impactLevel', () => 'high'],
    ['resolution', () => 'Fixed'],
    ['resolutionType', () => 'fixed'],
  ])('refuses a customer user setting %s with 403 naming the field, and creates nothing', async (field, value) => {
    const before = await nextNumber(s);
    const refused = await asCustomer({ title: 'Overreach', [field]: value(s) });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('FORBIDDEN');
    expect(refused.body.error.details.fields).toEqual([field]);
    expect(refused.body.error.message).toContain(field);
    expect(await nextNumber(s)).toBe(before + 1);
  });

  it('refuses a customer user naming another customer', async () => {
    const other = (await s.org.call('POST', '/api/v1/customers', { body: { name: 'Initech' } })).body.id;
    const refused = await asCustomer({ title: 'Theirs', customerId: other });
    expect(refused.status).toBe(403);
    expect(refused.body.error.details.fields).toEqual(['customerId']);
  });
});
