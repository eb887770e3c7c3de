import { beforeAll, describe, expect, it } from 'vitest';
import { db } from '../../lib/db/service.js';
import { api, createMember, createToken, expectValidationError, signupOrg, type TestOrg, useInProcess } from '../support/api.js';
import { boardSetup, type BoardSetup as Setup } from '../support/tickets.js';
import { dispatchedEventsOf } from '../support/events.js';
import { createTicket, createMemberWith, createCustomField, createBoard } from '../support/factories.js';

// In process, through the same route table and handlers (test/support/api.ts).
useInProcess();

async function setup(): Promise<Setup> {
  return boardSetup('Structure board', 'STR');
}

const ticketsPath = (s: Setup, boardId = s.boardId) => `/api/v1/boards/${boardId}/tickets`;
const ticketPath = (s: Setup, ticketId: string, suffix = '') => `${ticketsPath(s)}/${ticketId}${suffix}`;

async function newSubticket(s: Setup, parentId: string, body: Record<string, unknown> = {}) {
  const response = await s.org.call('POST', ticketPath(s, parentId, '/subtickets'), { body: { title: 'A subticket', ...body } });
  if (response.status !== 201) throw new Error(`create subticket: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body.data;
}

const getTicket = async (s: Setup, ticketId: string) => (await s.org.call('GET', ticketPath(s, ticketId))).body.data;

const timelineKinds = async (ticketId: string) =>
  (await db().entities.timelineEntry.query.byTicket({ ticketId }).go({ pages: 'all' })).data.map((entry) => ({ kind: entry.kind, details: entry.details }));

describe('custom field values on a ticket', () => {
  let s: Setup;
  const fields: Record<string, any> = {};
  beforeAll(async () => {
    s = await setup();
    for (const [type, extra] of [
      ['TEXT', {}], ['NUMBER', {}], ['DATE', {}], ['URL', {}], ['SELECT', { options: ['low', 'high'] }], ['CHECKBOX', {}],
    ] as const) {
      fields[type] = await createCustomField(s.org, { name: `${type} field`, type, ...extra });
    }
    fields.REQUIRED = await createCustomField(s.org, { name: 'Required field', type: 'TEXT', isRequired: true });
  });

  const put = (ticketId: string, values: unknown, token?: string) =>
    s.org.call('PUT', ticketPath(s, ticketId, '/custom-fields'), { body: { values }, ...(token ? { token } : {}) });
  const valuesOf = (ticket: any) => Object.fromEntries(ticket.customFieldValues.map((entry: any) => [entry.customFieldId, entry.value]));

  it('sets a value of every type and returns the full ticket (read ticket and configuration, one transaction)', async () => {
    const ticket = await createTicket(s.org, s.boardId);
    const response = await put(ticket.id, [
      { customFieldId: fields.TEXT.id, value: 'free text' },
      { customFieldId: fields.NUMBER.id, value: ' 42.50 ' },
      { customFieldId: fields.DATE.id, value: '2030-02-28' },
      { customFieldId: fields.URL.id, value: 'https://example.com/spec' },
      { customFieldId: fields.SELECT.id, value: 'high' },
      { customFieldId: fields.CHECKBOX.id, value: 'true' },
    ]);
    expect(response.status).toBe(200);
    expect(response.body.data).toMatchObject({ id: ticket.id, claim: null });
    expect(response.body.data.customFieldValues).toContainEqual({ customFieldId: fields.TEXT.id, name: 'TEXT field', value: 'free text' });
    expect(valuesOf(response.body.data)).toEqual({
      [fields.TEXT.id]: 'free text',
      [fields.NUMBER.id]: '42.5',
      [fields.DATE.id]: '2030-02-28',
      [fields.URL.id]: 'https://example.com/spec',
      [fields.SELECT.id]: 'high',
      [fields.CHECKBOX.id]: 'true',
    });
    expect(valuesOf(await getTicket(s, ticket.id))).toEqual(valuesOf(response.body.data));
  });

  it('changes only the listed fields, and null clears one', async () => {
    const ticket = await createTicket(s.org, s.boardId);
    await put(ticket.id, [{ customFieldId: fields.TEXT.id, value: 'keep' }, { customFieldId: fields.NUMBER.id, value: '1' }]);
    const response = await put(ticket.id, [{ customFieldId: fields.NUMBER.id, value: null }, { customFieldId: fields.CHECKBOX.id, value: 'false' }]);
    expect(valuesOf(response.body.data)).toEqual({ [fields.TEXT.id]: 'keep', [fields.CHECKBOX.id]: 'false' });
    const cleared = await put(ticket.id, [{ customFieldId: fields.TEXT.id, value: null }, { customFieldId: fields.CHECKBOX.id, value: null }]);
    expect(cleared.body.data.customFieldValues).toEqual([]);
  });

  it('accepts an empty list as a no-op write and emits ticket.updated', async () => {
    const ticket = await createTicket(s.org, s.boardId);
    const response = await put(ticket.id, []);
    expect(response.status).toBe(200);
    const events = await dispatchedEventsOf(s.org.orgId, ticket.id, 2);
    expect(events.map((event) => event.type).sort()).toEqual(['ticket.created', 'ticket.updated']);
  });

  it.each([
    { type: 'NUMBER', value: 'twelve', label: 'a word' },
    { type: 'NUMBER', value: '', label: 'empty' },
    { type: 'NUMBER', value: 'Infinity', label: 'Infinity' },
    { type: 'DATE', value: '2030-02-30', label: '30 February' },
    { type: 'DATE', value: '30.01.2030', label: 'a dotted date' },
    { type: 'DATE', value: '2030-01-01T00:00:00Z', label: 'a timestamp' },
    { type: 'URL', value: 'ftp://example.com/file', label: 'an ftp URL' },
    { type: 'URL', value: 'not a url', label: 'no URL' },
    { type: 'SELECT', value: 'medium', label: 'not an option' },
    { type: 'SELECT', value: 'HIGH', label: 'an option in another case' },
    { type: 'CHECKBOX', value: 'yes', label: 'yes' },
    { type: 'CHECKBOX', value: 'TRUE', label: 'upper-case TRUE' },
    { type: 'TEXT', value: 'x'.repeat(10_001), label: '10,001 characters' },
  ])('rejects a $type value of $label with 400 at values.N.value and writes nothing', async ({ type, value }) => {
    const ticket = await createTicket(s.org, s.boardId);
    await put(ticket.id, [{ customFieldId: fields.TEXT.id, value: 'before' }]);
    const response = await put(ticket.id, [{ customFieldId: fields.TEXT.id, value: 'after' }, { customFieldId: fields[type].id, value }]);
    expectValidationError(response, 'values.1.value');
    expect(valuesOf(await getTicket(s, ticket.id))).toEqual({ [fields.TEXT.id]: 'before' });
  });

  it('accepts a TEXT value of exactly 10,000 characters', async () => {
    const ticket = await createTicket(s.org, s.boardId);
    expect((await put(ticket.id, [{ customFieldId: fields.TEXT.id, value: 'x'.repeat(10_000) }])).status).toBe(200);
  });

  it('rejects unknown, foreign and repeated field ids at values.N.customFieldId', async () => {
    const ticket = await createTicket(s.org, s.boardId);
    const other = await signupOrg();
    const foreign = await createCustomField(other, { name: 'Foreign', type: 'TEXT' });
    expectValidationError(await put(ticket.id, [{ customFieldId: 'cf_unknown', value: 'x' }]), 'values.0.customFieldId');
    expectValidationError(await put(ticket.id, [{ customFieldId: fields.TEXT.id, value: 'x' }, { customFieldId: foreign.id, value: 'x' }]), 'values.1.customFieldId');
    expectValidationError(await put(ticket.id, [{ customFieldId: fields.TEXT.id, value: 'x' }, { customFieldId: fields.TEXT.id, value: 'y' }]), 'values.1.customFieldId');
    expect((await getTicket(s, ticket.id)).customFieldValues).toEqual([]);
  });

  it('refuses to clear a required field but sets it', async () => {
    const ticket = await createTicket(s.org, s.boardId);
    expect((await put(ticket.id, [{ customFieldId: fields.REQUIRED.id, value: 'set' }])).status).toBe(200);
    expectValidationError(await put(ticket.id, [{ customFieldId: fields.REQUIRED.id, value: null }]), 'values.0.value');
  });

  it.each([
    ['values', {}],
    ['values', { values: 'x' }],
    ['values', { values: Array.from({ length: 101 }, () => ({ customFieldId: 'cf_x', value: 'x' })) }],
    ['values.0.customFieldId', { values: [{ value: 'x' }] }],
    ['values.0.value', { values: [{ customFieldId: 'cf_x' }] }],
    ['values.0.value', { values: [{ customFieldId: 'cf_x', value: 5 }] }],
    ['extra', { values: [], extra: true }],
  ])('rejects a malformed body at %s (case %#)', async (path, body) => {
    const ticket = await createTicket(s.org, s.boardId);
    expectValidationError(await s.org.call('PUT', ticketPath(s, ticket.id, '/custom-fields'), { body }), path);
  });

  it('shows no value of a deleted definition and drops it from the ticket on the next PUT', async () => {
    const doomed = await createCustomField(s.org, { name: 'Doomed field', type: 'TEXT' });
    const ticket = await createTicket(s.org, s.boardId);
    await put(ticket.id, [{ customFieldId: doomed.id, value: 'soon gone' }, { customFieldId: fields.TEXT.id, value: 'stays' }]);
    await s.org.call('DELETE', `/api/v1/custom-fields/${doomed.id}`);
    expect(valuesOf(await getTicket(s, ticket.id))).toEqual({ [fields.TEXT.id]: 'stays' });
    await put(ticket.id, [{ customFieldId: fields.CHECKBOX.id, value: 'true' }]);
    const stored = (await db().entities.ticket.get({ ticketId: ticket.id }).go({ consistent: true })).data!.customFieldValues;
    expect(stored).toEqual({ [fields.TEXT.id]: 'stays', [fields.CHECKBOX.id]: 'true' });
  });

  it('needs custom-fields:manage: a member gets 403, a member granted it may set values', async () => {
    const ticket = await createTicket(s.org, s.boardId);
    const member = await createMember(s.org);
    await s.org.call('POST', `/api/v1/boards/${s.boardId}/members`, { body: { userId: member.id } });
    const refused = await put(ticket.id, [{ customFieldId: fields.TEXT.id, value: 'x' }], member.token);
    expect(refused.status).toBe(403);
    const manager = await createMemberWith(s.org, ['custom-fields:manage']);
    await s.org.call('POST', `/api/v1/boards/${s.boardId}/members`, { body: { userId: manager.id } });
    expect((await put(ticket.id, [{ customFieldId: fields.TEXT.id, value: 'x' }], manager.token)).status).toBe(200);
  });

  it('answers 404 for an unknown ticket, a ticket of another board and another organization’s ticket', async () => {
    const ticket = await createTicket(s.org, s.boardId);
    const otherBoard = await s.org.call('POST', '/api/v1/boards', { body: { name: 'Other' } });
    const other = await signupOrg();
    expect((await put('tkt_unknown', [])).status).toBe(404);
    expect((await s.org.call('PUT', `${ticketsPath(s, otherBoard.body.id)}/${ticket.id}/custom-fields`, { body: { values: [] } })).status).toBe(404);
    expect((await other.call('PUT', ticketPath(s, ticket.id, '/custom-fields'), { body: { values: [] } })).status).toBe(404);
  });
});

describe('subtickets', () => {
  let s: Setup;
  beforeAll(async () => {
    s = await setup();
  });

  it('creates a subticket on the parent’s board and records it on the parent in the same write', async () => {
    const parent = await createTicket(s.org, s.boardId, { title: 'Parent' });
    const response = await s.org.call('POST', ticketPath(s, parent.id, '/subtickets'), { body: { title: 'Child', description: 'Do it', assigneeId: s.org.adminId } });
    expect(response.status).toBe(201);
    expect(response.body.data).toMatchObject({
      id: expect.stringMatching(/^tkt_/),
      displayId: expect.stringMatching(/^STR-\d+$/),
      title: 'Child',
      description: 'Do it',
      boardId: s.boardId,
      parentTicketId: parent.id,
      assignee: { id: s.org.adminId, name: 'Ada Admin' },
      status: { id: s.statuses.BACKLOG.id },
    });
    expect((await getTicket(s, parent.id)).subticketIds).toEqual([response.body.data.id]);
    const events = await dispatchedEventsOf(s.org.orgId, response.body.data.id, 1);
    expect(events.map((event) => event.type)).toContain('ticket.created');
  });

  it('creates a subticket without assignee', async () => {
    const parent = await createTicket(s.org, s.boardId);
    const response = await s.org.call('POST', ticketPath(s, parent.id, '/subtickets'), { body: { title: 'Plain child' } });
    expect(response.status).toBe(201);
    expect(response.body.data.assignee).toBeNull();
  });

  it.each([
    ['title', {}],
    ['title', { title: '' }],
    ['title', { title: 'x'.repeat(201) }],
    ['description', { title: 'ok', description: 'x'.repeat(50_001) }],
    ['assigneeId', { title: 'ok', assigneeId: 'usr_unknown' }],
    ['statusId', { title: 'ok', statusId: 'sts_x' }],
  ] as const)('rejects a bad %s with 400 and writes nothing (case %#)', async (field, body) => {
    const parent = await createTicket(s.org, s.boardId);
    expectValidationError(await s.org.call('POST', ticketPath(s, parent.id, '/subtickets'), { body }), field);
    expect((await getTicket(s, parent.id)).subticketIds).toEqual([]);
  });

  it('refuses a subticket of a subticket with 409 PARENT_IS_SUBTICKET', async () => {
    const parent = await createTicket(s.org, s.boardId);
    const child = await newSubticket(s, parent.id);
    const response = await s.org.call('POST', ticketPath(s, child.id, '/subtickets'), { body: { title: 'Grandchild' } });
    expect(response.status).toBe(409);
    expect(response.body.error.details).toMatchObject({ reason: 'PARENT_IS_SUBTICKET' });
  });

  it('refuses the 101st subticket with 409 TOO_MANY_SUBTICKETS', async () => {
    const parent = await createTicket(s.org, s.boardId);
    for (let index = 0; index < 100; index += 1) await newSubticket(s, parent.id, { title: `Child ${index}` });
    const response = await s.org.call('POST', ticketPath(s, parent.id, '/subtickets'), { body: { title: 'One too many' } });
    expect(response.status).toBe(409);
    expect(response.body.error.details).toMatchObject({ reason: 'TOO_MANY_SUBTICKETS' });
    expect((await getTicket(s, parent.id)).subticketIds).toHaveLength(100);
  }, 60_000);

  it('needs tickets:create', async () => {
    const parent = await createTicket(s.org, s.boardId);
    const editor = await createMemberWith(s.org, ['tickets:edit']);
    await s.org.call('POST', `/api/v1/boards/${s.boardId}/members`, { body: { userId: editor.id } });
    const response = await api('POST', ticketPath(s, parent.id, '/subtickets'), { token: editor.token, org: s.org.slug, body: { title: 'x' } });
    expect(response.status).toBe(403);
  });

  it('lists subtickets in creation order with status, assignee and an aggregation by category', async () => {
    const parent = await createTicket(s.org, s.boardId);
    const planning = await newSubticket(s, parent.id, { title: 'Planned', assigneeId: s.org.adminId });
    const active = await newSubticket(s, parent.id, { title: 'Active' });
    const done = await newSubticket(s, parent.id, { title: 'Done' });
    await s.org.call('PATCH', ticketPath(s, active.id), { body: { statusId: s.statuses.IN_PROGRESS.id } });
    await s.org.call('PATCH', ticketPath(s, done.id), { body: { statusId: s.statuses.DONE.id } });
    const response = await s.org.call('GET', ticketPath(s, parent.id, '/subtickets'));
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      data: [
        { id: planning.id, displayId: planning.displayId, title: 'Planned', status: { id: s.statuses.BACKLOG.id, name: 'Backlog', category: 'PLANNING' }, assignee: { id: s.org.adminId, name: 'Ada Admin' } },
        { id: active.id, displayId: active.displayId, title: 'Active', status: { id: s.statuses.IN_PROGRESS.id, name: 'In Progress', category: 'ACTIVE' }, assignee: null },
        { id: done.id, displayId: done.displayId, title: 'Done', status: { id: s.statuses.DONE.id, name: 'Done', category: 'FINAL' }, assignee: null },
      ],
      aggregation: { total: 3, completed: 1, inProgress: 1, planning: 1 },
    });
  });

  it('lists no subtickets of a standalone ticket', async () => {
    const ticket = await createTicket(s.org, s.boardId);
    const response = await s.org.call('GET', ticketPath(s, ticket.id, '/subtickets'));
    expect(response.body).toEqual({ data: [], aggregation: { total: 0, completed: 0, inProgress: 0, planning: 0 } });
  });

  it('changes a subticket’s status through its parent and emits status_changed', async () => {
    const parent = await createTicket(s.org, s.boardId);
    const child = await newSubticket(s, parent.id);
    const response = await s.org.call('PATCH', ticketPath(s, parent.id, `/subtickets/${child.id}/status`), { body: { statusId: s.statuses.IN_PROGRESS.id } });
    expect(response.status).toBe(200);
    expect(response.body.data).toMatchObject({ id: child.id, parentTicketId: parent.id, status: { id: s.statuses.IN_PROGRESS.id, category: 'ACTIVE' } });
    const events = await dispatchedEventsOf(s.org.orgId, child.id, 3);
    expect(events.find((event) => event.type === 'ticket.status_changed')!.data).toMatchObject({
      oldStatusId: s.statuses.BACKLOG.id, newStatusId: s.statuses.IN_PROGRESS.id, actorId: s.org.adminId,
    });
  });

  it('answers 404 for a subticket of another parent, a standalone ticket and an unknown id', async () => {
    const parent = await createTicket(s.org, s.boardId);
    const otherParent = await createTicket(s.org, s.boardId);
    const foreignChild = await newSubticket(s, otherParent.id);
    const standalone = await createTicket(s.org, s.boardId);
    for (const subticketId of [foreignChild.id, standalone.id, 'tkt_unknown']) {
      const response = await s.org.call('PATCH', ticketPath(s, parent.id, `/subtickets/${subticketId}/status`), { body: { statusId: s.statuses.IN_PROGRESS.id } });
      expect(response.status).toBe(404);
    }
    expect((await getTicket(s, foreignChild.id)).status.id).toBe(s.statuses.BACKLOG.id);
  });

  it('rejects a missing or unknown statusId on the subticket status route', async () => {
    const parent = await createTicket(s.org, s.boardId);
    const child = await newSubticket(s, parent.id);
    expectValidationError(await s.org.call('PATCH', ticketPath(s, parent.id, `/subtickets/${child.id}/status`), { body: {} }), 'statusId');
    expectValidationError(await s.org.call('PATCH', ticketPath(s, parent.id, `/subtickets/${child.id}/status`), { body: { statusId: 'sts_unknown' } }), 'statusId');
    expectValidationError(await s.org.call('PATCH', ticketPath(s, parent.id, `/subtickets/${child.id}/status`), { body: { statusId: s.statuses.DONE.id, reason: 'x' } }), 'reason');
  });

  it('needs tickets:edit to change a subticket’s status', async () => {
    const parent = await createTicket(s.org, s.boardId);
    const child = await newSubticket(s, parent.id);
    const creator = await createMemberWith(s.org, ['tickets:create']);
    await s.org.call('POST', `/api/v1/boards/${s.boardId}/members`, { body: { userId: creator.id } });
    const response = await api('PATCH', ticketPath(s, parent.id, `/subtickets/${child.id}/status`), { token: creator.token, org: s.org.slug, body: { statusId: s.statuses.DONE.id } });
    expect(response.status).toBe(403);
  });

  it('removes a deleted subticket from its parent in the same transaction', async () => {
    const parent = await createTicket(s.org, s.boardId);
    const kept = await newSubticket(s, parent.id, { title: 'Kept' });
    const deleted = await newSubticket(s, parent.id, { title: 'Deleted' });
    const response = await s.org.call('DELETE', ticketPath(s, deleted.id));
    expect(response.status).toBe(204);
    expect((await getTicket(s, parent.id)).subticketIds).toEqual([kept.id]);
    expect((await s.org.call('GET', ticketPath(s, parent.id, '/subtickets'))).body.aggregation.total).toBe(1);
  });
});

describe('converting to a subticket and promoting to standalone', () => {
  let s: Setup;
  beforeAll(async () => {
    s = await setup();
  });

  const convert = (ticketId: string, body: unknown) => s.org.call('POST', ticketPath(s, ticketId, '/convert-to-subticket'), { body });
  const promote = (ticketId: string) => s.org.call('POST', ticketPath(s, ticketId, '/promote-to-standalone'));

  it('converts a standalone ticket into a subticket: both tickets change in one transaction, timeline records it', async () => {
    const parent = await createTicket(s.org, s.boardId, { title: 'Parent' });
    const existing = await newSubticket(s, parent.id);
    const ticket = await createTicket(s.org, s.boardId, { title: 'Becomes child' });
    const response = await convert(ticket.id, { parentTicketId: parent.id });
    expect(response.status).toBe(200);
    expect(response.body.data).toMatchObject({ id: ticket.id, parentTicketId: parent.id });
    expect((await getTicket(s, parent.id)).subticketIds).toEqual([existing.id, ticket.id]);
    expect(await timelineKinds(ticket.id)).toContainEqual({ kind: 'CONVERTED_TO_SUBTICKET', details: { parentTicketId: parent.id, parentDisplayId: parent.displayId } });
    const events = await dispatchedEventsOf(s.org.orgId, ticket.id, 2);
    expect(events.map((event) => event.type).sort()).toEqual(['ticket.created', 'ticket.updated']);
  });

  it.each([
    ['parentTicketId', {}],
    ['parentTicketId', { parentTicketId: '' }],
    ['parentTicketId', { parentTicketId: 7 }],
    ['extra', { parentTicketId: 'tkt_x', extra: 1 }],
  ] as const)('rejects a malformed body at %s (case %#)', async (path, body) => {
    const ticket = await createTicket(s.org, s.boardId);
    expectValidationError(await convert(ticket.id, body), path);
  });

  it('rejects as 400 parentTicketId: itself, an unknown ticket, a deleted ticket, another organization’s ticket, a ticket on another board', async () => {
    const ticket = await createTicket(s.org, s.boardId);
    const deleted = await createTicket(s.org, s.boardId);
    await s.org.call('DELETE', ticketPath(s, deleted.id));
    const other = await signupOrg();
    const otherBoard = (await createBoard(other, { name: 'Foreign' })).id;
    const foreign = (await other.call('POST', `/api/v1/boards/${otherBoard}/tickets`, { body: { title: 'Foreign' } })).body.data;
    const secondBoard = (await createBoard(s.org, { name: 'Second board' })).id;
    const elsewhere = await createTicket(s.org, secondBoard);
    for (const parentTicketId of [ticket.id, 'tkt_unknown', deleted.id, foreign.id, elsewhere.id]) {
      expectValidationError(await convert(ticket.id, { parentTicketId }), 'parentTicketId');
    }
    expect((await getTicket(s, ticket.id)).parentTicketId).toBeNull();
    expect((await s.org.call('GET', `${ticketsPath(s, secondBoard)}/${elsewhere.id}`)).body.data.subticketIds).toEqual([]);
  });

  it('refuses with 409: a ticket that is already a subticket, one that has subtickets, and a parent that is a subticket', async () => {
    const parent = await createTicket(s.org, s.boardId);
    const child = await newSubticket(s, parent.id);
    const standalone = await createTicket(s.org, s.boardId);
    const already = await convert(child.id, { parentTicketId: standalone.id });
    expect(already.status).toBe(409);
    expect(already.body.error.details).toMatchObject({ reason: 'ALREADY_SUBTICKET' });
    const hasChildren = await convert(parent.id, { parentTicketId: standalone.id });
    expect(hasChildren.status).toBe(409);
    expect(hasChildren.body.error.details).toMatchObject({ reason: 'HAS_SUBTICKETS' });
    const parentIsChild = await convert(standalone.id, { parentTicketId: child.id });
    expect(parentIsChild.status).toBe(409);
    expect(parentIsChild.body.error.details).toMatchObject({ reason: 'PARENT_IS_SUBTICKET' });
    expect((await getTicket(s, standalone.id)).subticketIds).toEqual([]);
    expect((await getTicket(s, standalone.id)).parentTicketId).toBeNull();
  });

  it('promotes a subticket to standalone: both tickets change in one transaction, timeline records it', async () => {
    const parent = await createTicket(s.org, s.boardId);
    const child = await newSubticket(s, parent.id);
    const sibling = await newSubticket(s, parent.id);
    const response = await promote(child.id);
    expect(response.status).toBe(200);
    expect(response.body.data).toMatchObject({ id: child.id, parentTicketId: null });
    expect((await getTicket(s, parent.id)).subticketIds).toEqual([sibling.id]);
    expect(await timelineKinds(child.id)).toContainEqual({ kind: 'PROMOTED_TO_STANDALONE', details: { formerParentTicketId: parent.id, formerParentDisplayId: parent.displayId } });
  });

  it('refuses to promote a standalone ticket with 409, and rejects a body', async () => {
    const ticket = await createTicket(s.org, s.boardId);
    const response = await promote(ticket.id);
    expect(response.status).toBe(409);
    expect(response.body.error.details).toMatchObject({ reason: 'NOT_A_SUBTICKET' });
    expectValidationError(await s.org.call('POST', ticketPath(s, ticket.id, '/promote-to-standalone'), { body: { parentTicketId: 'x' } }), 'parentTicketId');
  });

  it('round-trips: convert, promote, convert again', async () => {
    const parent = await createTicket(s.org, s.boardId);
    const ticket = await createTicket(s.org, s.boardId);
    expect((await convert(ticket.id, { parentTicketId: parent.id })).status).toBe(200);
    expect((await promote(ticket.id)).status).toBe(200);
    expect((await convert(ticket.id, { parentTicketId: parent.id })).status).toBe(200);
    expect((await getTicket(s, parent.id)).subticketIds).toEqual([ticket.id]);
  });

  it('promotes a subticket whose parent was deleted', async () => {
    const parent = await createTicket(s.org, s.boardId);
    const child = await newSubticket(s, parent.id);
    await s.org.call('DELETE', ticketPath(s, parent.id));
    const response = await promote(child.id);
    expect(response.status).toBe(200);
    expect(response.body.data.parentTicketId).toBeNull();
  });

  it('needs tickets:edit for convert and promote', async () => {
    const parent = await createTicket(s.org, s.boardId);
    const child = await newSubticket(s, parent.id);
    const ticket = await createTicket(s.org, s.boardId);
    const creator = await createMemberWith(s.org, ['tickets:create']);
    await s.org.call('POST', `/api/v1/boards/${s.boardId}/members`, { body: { userId: creator.id } });
    const as = { token: creator.token, org: s.org.slug };
    expect((await api('POST', ticketPath(s, ticket.id, '/convert-to-subticket'), { ...as, body: { parentTicketId: parent.id } })).status).toBe(403);
    expect((await api('POST', ticketPath(s, child.id, '/promote-to-standalone'), as)).status).toBe(403);
  });
});

describe('completion check, blocker info and pull requests', () => {
  let s: Setup;
  beforeAll(async () => {
    s = await setup();
  });

  /** Stands in for the workflow's blocker write (which records reason and blockedBy, not blocking tickets). */
  const setBlockerInfo = (ticketId: string, blockerInfo: Record<string, unknown>) => db().entities.ticket.patch({ ticketId }).set({ blockerInfo }).go();

  it('lets a lone ticket complete and reports its requirements (ticket read only)', async () => {
    const customer = await s.org.call('POST', '/api/v1/customers', { body: { name: 'Client' } });
    const ticket = await createTicket(s.org, s.boardId, { description: 'Has one', assigneeId: s.org.adminId, customerId: customer.body.id });
    const response = await s.org.call('GET', ticketPath(s, ticket.id, '/completion-check'));
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      data: {
        canComplete: true,
        hasOpenSubtickets: false,
        openSubtickets: [],
        aggregation: { total: 0, completed: 0, summary: '0/0 completed' },
        blockers: [],
        requirements: { hasDescription: true, hasAssignee: true, hasCustomer: true, hasNoActiveSubtickets: true },
      },
    });
  });

  it('refuses completion while a subticket is open (ticket, then its subtickets)', async () => {
    const parent = await createTicket(s.org, s.boardId);
    const open = await newSubticket(s, parent.id, { title: 'Open one' });
    const done = await newSubticket(s, parent.id, { title: 'Done one' });
    const alsoDone = await newSubticket(s, parent.id, { title: 'Also done' });
    for (const child of [done, alsoDone]) await s.org.call('PATCH', ticketPath(s, child.id), { body: { statusId: s.statuses.DONE.id } });
    const response = await s.org.call('GET', ticketPath(s, parent.id, '/completion-check'));
    expect(response.body.data).toMatchObject({
      canComplete: false,
      hasOpenSubtickets: true,
      openSubtickets: [{ id: open.id, title: 'Open one', displayId: open.displayId }],
      aggregation: { total: 3, completed: 2, summary: '2/3 completed' },
      requirements: { hasDescription: false, hasAssignee: false, hasCustomer: false, hasNoActiveSubtickets: false },
    });
    await s.org.call('PATCH', ticketPath(s, open.id), { body: { statusId: s.statuses.DONE.id } });
    expect((await s.org.call('GET', ticketPath(s, parent.id, '/completion-check'))).body.data).toMatchObject({ canComplete: true, aggregation: { summary: '3/3 completed' } });
  });

  it('refuses completion while blocker info is recorded, and lists the blocker', async () => {
    const ticket = await createTicket(s.org, s.boardId);
    await setBlockerInfo(ticket.id, { reason: 'Waiting on vendor', blockedBy: s.org.adminId });
    const response = await s.org.call('GET', ticketPath(s, ticket.id, '/completion-check'));
    expect(response.body.data).toMatchObject({
      canComplete: false,
      hasOpenSubtickets: false,
      blockers: [{ reason: 'Waiting on vendor', reasonText: null, blockedBy: s.org.adminId, blockingTicketIds: [] }],
    });
  });

  it('reports a ticket that is not blocked (ticket and configuration side by side)', async () => {
    const ticket = await createTicket(s.org, s.boardId);
    const response = await s.org.call('GET', ticketPath(s, ticket.id, '/blocker'));
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ data: { isBlocked: false, reason: null, reasonText: null, blockingTickets: [], blockerCount: 0 } });
  });

  it('reports a ticket in the BLOCKED status as blocked even without blocker info', async () => {
    const ticket = await createTicket(s.org, s.boardId, { statusId: s.statuses.BLOCKED.id });
    expect((await s.org.call('GET', ticketPath(s, ticket.id, '/blocker'))).body.data).toEqual({ isBlocked: true, reason: null, reasonText: null, blockingTickets: [], blockerCount: 0 });
  });

  it('shows the blocking tickets the caller may see, with their status', async () => {
    const blocker = await createTicket(s.org, s.boardId, { title: 'Blocking one', statusId: s.statuses.IN_PROGRESS.id });
    const hiddenBoard = (await createBoard(s.org, { name: 'Hidden board' })).id;
    const hidden = await createTicket(s.org, hiddenBoard, { title: 'On a hidden board' });
    const deleted = await createTicket(s.org, s.boardId, { title: 'Deleted blocker' });
    await s.org.call('DELETE', ticketPath(s, deleted.id));
    const ticket = await createTicket(s.org, s.boardId, { statusId: s.statuses.BLOCKED.id });
    await setBlockerInfo(ticket.id, { reason: 'DEPENDENCY', reasonText: 'Needs the API first', blockingTicketIds: [blocker.id, hidden.id, deleted.id, 'tkt_unknown'] });

    const response = await s.org.call('GET', ticketPath(s, ticket.id, '/blocker'));
    expect(response.body.data).toMatchObject({ isBlocked: true, reason: 'DEPENDENCY', reasonText: 'Needs the API first', blockerCount: 2 });
    expect(response.body.data.blockingTickets).toContainEqual({
      id: blocker.id, ticketNumber: blocker.displayId, title: 'Blocking one',
      status: { id: s.statuses.IN_PROGRESS.id, name: 'In Progress', color: s.statuses.IN_PROGRESS.color }, createdAt: blocker.createdAt,
    });

    // A member of this board only does not see the ticket on the other board.
    const member = await createMember(s.org);
    await s.org.call('POST', `/api/v1/boards/${s.boardId}/members`, { body: { userId: member.id } });
    const asMember = await api('GET', ticketPath(s, ticket.id, '/blocker'), { token: member.token, org: s.org.slug });
    expect(asMember.body.data.blockingTickets.map((entry: any) => entry.id)).toEqual([blocker.id]);
    expect(asMember.body.data.blockerCount).toBe(1);
  });

  it('lists no pull requests for a ticket no branch or title names (the ticket, then one Query)', async () => {
    const ticket = await createTicket(s.org, s.boardId);
    const response = await s.org.call('GET', ticketPath(s, ticket.id, '/pull-requests'));
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ data: [] });
  });
});

describe('access to the structure routes', () => {
  let s: Setup;
  let other: TestOrg;
  let parent: any;
  let child: any;
  beforeAll(async () => {
    s = await setup();
    other = await signupOrg();
    parent = await createTicket(s.org, s.boardId);
    child = await newSubticket(s, parent.id);
  });

  const routes = () => [
    ['PUT', ticketPath(s, parent.id, '/custom-fields'), { values: [] }],
    ['GET', ticketPath(s, parent.id, '/completion-check')],
    ['GET', ticketPath(s, parent.id, '/blocker')],
    ['GET', ticketPath(s, parent.id, '/pull-requests')],
    ['GET', ticketPath(s, parent.id, '/subtickets')],
    ['POST', ticketPath(s, parent.id, '/subtickets'), { title: 'x' }],
    ['PATCH', ticketPath(s, parent.id, `/subtickets/${child.id}/status`), { statusId: s.statuses.DONE.id }],
    ['POST', ticketPath(s, parent.id, '/convert-to-subticket'), { parentTicketId: child.id }],
    ['POST', ticketPath(s, child.id, '/promote-to-standalone')],
  ] as const;

  it('answers 404 on every route to another organization, and leaves the tickets unchanged', async () => {
    for (const [method, path, body] of routes()) {
      const response = await other.call(method, path, body ? { body } : {});
      expect(response.status, `${method} ${path}`).toBe(404);
    }
    expect((await getTicket(s, parent.id)).subticketIds).toEqual([child.id]);
    expect((await getTicket(s, child.id)).status.id).toBe(s.statuses.BACKLOG.id);
  });

  it('answers 404 on every route to a token limited to another board, and to a member who cannot see the board', async () => {
    const otherBoard = (await createBoard(s.org, { name: 'Allowed board' })).id;
    const { token } = await createToken(s.org, s.org.adminToken, { allowedBoardIds: [otherBoard] });
    const outsider = await createMember(s.org);
    for (const [method, path, body] of routes()) {
      expect((await api(method, path, { token, org: s.org.slug, ...(body ? { body } : {}) })).status, `${method} ${path}`).toBe(404);
      const asOutsider = await api(method, path, { token: outsider.token, org: s.org.slug, ...(body ? { body } : {}) });
      // The permission check comes first where the member lacks it (custom-fields:manage).
      expect(asOutsider.status, `${method} ${path}`).toBe(path.endsWith('/custom-fields') ? 403 : 404);
    }
  });

  it('refuses every write route to a read-only token', async () => {
    const { token } = await createToken(s.org, s.org.adminToken, { readOnly: true });
    for (const [method, path, body] of routes()) {
      const response = await api(method, path, { token, org: s.org.slug, ...(body ? { body } : {}) });
      expect(response.status, `${method} ${path}`).toBe(method === 'GET' ? 200 : 403);
    }
  });
});
