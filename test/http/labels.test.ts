import { beforeAll, describe, expect, it } from 'vitest';
import { db } from '../../lib/db/service.js';
import { api, createMember, createToken, expectValidationError, signupOrg, type TestOrg, useInProcess } from '../support/api.js';
import { createTicket, createBoard } from '../support/factories.js';

// In process, through the same route table and handlers (test/support/api.ts).
useInProcess();

const LABEL_FIELDS = ['id', 'name', 'color', 'description', 'createdAt', 'updatedAt'];

const createLabel = (org: TestOrg, body: Record<string, unknown>, token?: string) =>
  org.call('POST', '/api/v1/labels', { body: { color: '#336699', ...body }, ...(token ? { token } : {}) });

async function newLabel(org: TestOrg, name: string, extra: Record<string, unknown> = {}) {
  const response = await createLabel(org, { name, ...extra });
  if (response.status !== 201) throw new Error(`create label: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body;
}

/** A member whose only group grants `tickets:create`: no `tickets:edit`. */
async function memberWithoutTicketsEdit(org: TestOrg) {
  const group = await org.call('POST', '/api/v1/permission-groups', { body: { name: `Creators ${Math.random()}`, color: '#000000', permissions: ['tickets:create'] } });
  return createMember(org, { permissionGroupIds: [group.body.id] });
}

async function customerUser(org: TestOrg) {
  const customer = await org.call('POST', '/api/v1/customers', { body: { name: 'Client' } });
  return createMember(org, { role: 'CUSTOMER', customerId: customer.body.id });
}

describe('listing labels', () => {
  let org: TestOrg;
  beforeAll(async () => {
    org = await signupOrg();
  });

  it('starts empty and lists labels sorted by name (case-insensitively) in one Query', async () => {
    expect((await org.call('GET', '/api/v1/labels')).body).toEqual({ data: [] });
    await newLabel(org, 'beta');
    await newLabel(org, 'Alpha');
    await newLabel(org, 'Gamma');
    const response = await org.call('GET', '/api/v1/labels');
    expect(response.status).toBe(200);
    expect(response.body.data.map((label: any) => label.name)).toEqual(['Alpha', 'beta', 'Gamma']);
    expect(Object.keys(response.body.data[0]).sort()).toEqual([...LABEL_FIELDS].sort());
  });

  it('is open to members without any management permission', async () => {
    const member = await memberWithoutTicketsEdit(org);
    const response = await api('GET', '/api/v1/labels', { token: member.token, org: org.slug });
    expect(response.status).toBe(200);
    expect(response.body.data.length).toBeGreaterThan(0);
  });

  it('refuses customer users, whose view of labels is their own tickets', async () => {
    const customer = await customerUser(org);
    const response = await api('GET', '/api/v1/labels', { token: customer.token, org: org.slug });
    expect(response.status).toBe(403);
    expect(response.body.error.code).toBe('FORBIDDEN');
  });

  it('never shows another organization’s labels', async () => {
    const other = await signupOrg();
    await newLabel(other, 'Foreign');
    expect((await org.call('GET', '/api/v1/labels')).body.data.map((label: any) => label.name)).not.toContain('Foreign');
  });
});

describe('creating labels', () => {
  let org: TestOrg;
  beforeAll(async () => {
    org = await signupOrg();
  });

  it('creates a label with name, color and description (one Query for uniqueness, one transaction)', async () => {
    const response = await createLabel(org, { name: 'Bug', color: '#FF0000', description: 'Something is broken' });
    expect(response.status).toBe(201);
    expect(response.body).toEqual({
      id: expect.stringMatching(/^lbl_/),
      name: 'Bug',
      color: '#FF0000',
      description: 'Something is broken',
      createdAt: expect.any(String),
      updatedAt: response.body.createdAt,
    });
    expect((await org.call('GET', '/api/v1/labels')).body.data).toContainEqual(response.body);
  });

  it('defaults the description to empty', async () => {
    expect((await createLabel(org, { name: 'Plain' })).body.description).toBe('');
  });

  it.each([
    ['name', { name: undefined }],
    ['name', { name: '' }],
    ['name', { name: '   ' }],
    ['name', { name: 'x'.repeat(51) }],
    ['color', { name: 'No color', color: undefined }],
    ['color', { name: 'Bad color', color: 'red' }],
    ['color', { name: 'Short color', color: '#FFF' }],
    ['description', { name: 'Long', description: 'x'.repeat(501) }],
    ['priority', { name: 'Extra', priority: 'high' }],
  ] as const)('rejects a bad %s with 400 naming it and writes nothing (case %#)', async (field, override) => {
    const before = (await org.call('GET', '/api/v1/labels')).body.data.length;
    const response = await createLabel(org, Object.assign({ name: 'Valid' }, override));
    expectValidationError(response, field);
    expect((await org.call('GET', '/api/v1/labels')).body.data.length).toBe(before);
  });

  it('accepts a name of exactly 50 characters and a description of 500', async () => {
    expect((await createLabel(org, { name: 'n'.repeat(50), description: 'd'.repeat(500) })).status).toBe(201);
  });

  it('refuses a name already taken in the organization, whatever its case, with 409', async () => {
    await newLabel(org, 'Frontend');
    const response = await createLabel(org, { name: 'FRONTEND' });
    expect(response.status).toBe(409);
    expect(response.body.error.code).toBe('CONFLICT');
    expect(response.body.error.details).toEqual({ field: 'name' });
  });

  it('allows the same name in another organization', async () => {
    const other = await signupOrg();
    await newLabel(org, 'Shared name');
    expect((await createLabel(other, { name: 'Shared name' })).status).toBe(201);
  });

  it('lets a member with tickets:edit create labels', async () => {
    const member = await createMember(org);
    expect((await createLabel(org, { name: 'By member' }, member.token)).status).toBe(201);
  });

  it('refuses a member without tickets:edit with 403 and writes nothing', async () => {
    const member = await memberWithoutTicketsEdit(org);
    const response = await createLabel(org, { name: 'Not allowed' }, member.token);
    expect(response.status).toBe(403);
    expect(response.body.error.code).toBe('FORBIDDEN');
    expect((await org.call('GET', '/api/v1/labels')).body.data.map((label: any) => label.name)).not.toContain('Not allowed');
  });

  it('refuses a read-only token', async () => {
    const { token } = await createToken(org, org.adminToken, { readOnly: true });
    expect((await createLabel(org, { name: 'Read only' }, token)).status).toBe(403);
  });
});

describe('updating and deleting labels', () => {
  let org: TestOrg;
  let other: TestOrg;
  beforeAll(async () => {
    [org, other] = await Promise.all([signupOrg(), signupOrg()]);
  });

  it('patches name, color and description (read + guarded write)', async () => {
    const label = await newLabel(org, 'Old name');
    const response = await org.call('PATCH', `/api/v1/labels/${label.id}`, { body: { name: 'New name', color: '#00FF00', description: 'Now described' } });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ id: label.id, name: 'New name', color: '#00FF00', description: 'Now described', createdAt: label.createdAt });
    expect(Date.parse(response.body.updatedAt)).toBeGreaterThanOrEqual(Date.parse(label.updatedAt));
    expect((await org.call('GET', '/api/v1/labels')).body.data).toContainEqual(response.body);
  });

  it('changes only the fields sent', async () => {
    const label = await newLabel(org, 'Partial', { description: 'kept' });
    const response = await org.call('PATCH', `/api/v1/labels/${label.id}`, { body: { color: '#ABCDEF' } });
    expect(response.body).toMatchObject({ name: 'Partial', color: '#ABCDEF', description: 'kept' });
  });

  it('lets a label change the case of its own name but not take another’s', async () => {
    const label = await newLabel(org, 'casing');
    await newLabel(org, 'Taken');
    expect((await org.call('PATCH', `/api/v1/labels/${label.id}`, { body: { name: 'CASING' } })).body.name).toBe('CASING');
    const clash = await org.call('PATCH', `/api/v1/labels/${label.id}`, { body: { name: 'taken' } });
    expect(clash.status).toBe(409);
    expect(clash.body.error.details).toEqual({ field: 'name' });
  });

  it.each([
    ['name', { name: '' }],
    ['name', { name: 'x'.repeat(51) }],
    ['color', { color: 'blue' }],
    ['description', { description: 'x'.repeat(501) }],
    ['isArchived', { isArchived: true }],
  ] as const)('rejects a bad %s on PATCH with 400 (case %#)', async (field, body) => {
    const label = await newLabel(org, `Patch target ${Math.random()}`);
    expectValidationError(await org.call('PATCH', `/api/v1/labels/${label.id}`, { body }), field);
    expect((await org.call('GET', '/api/v1/labels')).body.data).toContainEqual(label);
  });

  it('answers 404 for an unknown label and for another organization’s label', async () => {
    const foreign = await newLabel(other, 'Foreign');
    expect((await org.call('PATCH', '/api/v1/labels/lbl_unknown', { body: { name: 'x' } })).status).toBe(404);
    expect((await org.call('PATCH', `/api/v1/labels/${foreign.id}`, { body: { name: 'x' } })).status).toBe(404);
    expect((await org.call('DELETE', `/api/v1/labels/${foreign.id}`)).status).toBe(404);
    expect((await other.call('GET', '/api/v1/labels')).body.data).toContainEqual(foreign);
  });

  it('deletes a label and frees its name in one transaction; a second delete is 404', async () => {
    const label = await newLabel(org, 'Doomed');
    const response = await org.call('DELETE', `/api/v1/labels/${label.id}`);
    expect(response.status).toBe(204);
    expect((await org.call('GET', '/api/v1/labels')).body.data.map((entry: any) => entry.id)).not.toContain(label.id);
    expect((await org.call('DELETE', `/api/v1/labels/${label.id}`)).status).toBe(404);
  });

  it('refuses PATCH and DELETE to a member without tickets:edit', async () => {
    const label = await newLabel(org, 'Guarded');
    const member = await memberWithoutTicketsEdit(org);
    expect((await api('PATCH', `/api/v1/labels/${label.id}`, { token: member.token, org: org.slug, body: { name: 'x' } })).status).toBe(403);
    expect((await api('DELETE', `/api/v1/labels/${label.id}`, { token: member.token, org: org.slug })).status).toBe(403);
    expect((await org.call('GET', '/api/v1/labels')).body.data).toContainEqual(label);
  });
});

describe('labels on tickets', () => {
  let org: TestOrg;
  let boardId: string;
  let bug: any;
  let ui: any;
  let docs: any;
  const ticketsPath = () => `/api/v1/boards/${boardId}/tickets`;
  const newTicket = (overrides: Record<string, unknown>) => createTicket(org, boardId, { title: 'Labelled', statusId: inProgress, ...overrides });
  let inProgress: string;

  beforeAll(async () => {
    org = await signupOrg();
    boardId = (await createBoard(org, { name: 'Labels board' })).id;
    inProgress = (await org.call('GET', '/api/v1/statuses')).body.data.find((status: any) => status.key === 'IN_PROGRESS').id;
    [bug, ui, docs] = [await newLabel(org, 'Bug', { color: '#FF0000' }), await newLabel(org, 'UI', { color: '#00FF00' }), await newLabel(org, 'Docs', { color: '#0000FF' })];
  });

  it('creates a ticket with labels and shows them as {id, name, color}', async () => {
    const ticket = await newTicket({ labelIds: [bug.id, ui.id] });
    expect(ticket.labels).toEqual([
      { id: bug.id, name: 'Bug', color: '#FF0000' },
      { id: ui.id, name: 'UI', color: '#00FF00' },
    ]);
  });

  it('replaces the labels on PATCH labelIds', async () => {
    const ticket = await newTicket({ labelIds: [bug.id, ui.id] });
    const response = await org.call('PATCH', `${ticketsPath()}/${ticket.id}`, { body: { labelIds: [docs.id] } });
    expect(response.status).toBe(200);
    expect(response.body.data.labels.map((label: any) => label.id)).toEqual([docs.id]);
    const cleared = await org.call('PATCH', `${ticketsPath()}/${ticket.id}`, { body: { labelIds: [] } });
    expect(cleared.body.data.labels).toEqual([]);
  });

  it('shows a renamed label under its new name', async () => {
    const label = await newLabel(org, 'Before rename');
    const ticket = await newTicket({ labelIds: [label.id] });
    await org.call('PATCH', `/api/v1/labels/${label.id}`, { body: { name: 'After rename' } });
    expect((await org.call('GET', `${ticketsPath()}/${ticket.id}`)).body.data.labels).toEqual([{ id: label.id, name: 'After rename', color: '#336699' }]);
  });

  it('filters the board list by labelId, comma-separated meaning any of them', async () => {
    const label = await newLabel(org, 'Filter me');
    const second = await newLabel(org, 'Filter me too');
    const first = await newTicket({ labelIds: [label.id] });
    const both = await newTicket({ labelIds: [label.id, second.id] });
    const onlySecond = await newTicket({ labelIds: [second.id] });
    await newTicket({ labelIds: [bug.id] });
    const ids = async (query: string) => (await org.call('GET', `${ticketsPath()}?${query}`)).body.data.map((ticket: any) => ticket.id).sort();
    expect(await ids(`labelId=${label.id}`)).toEqual([first.id, both.id].sort());
    expect(await ids(`labelId=${label.id},${second.id}`)).toEqual([first.id, both.id, onlySecond.id].sort());
  });

  it('rejects an unknown label id and another organization’s label id with 400 naming the entry', async () => {
    const other = await signupOrg();
    const foreign = await newLabel(other, 'Foreign');
    expectValidationError(await org.call('POST', ticketsPath(), { body: { title: 'x', labelIds: [bug.id, 'lbl_unknown'] } }), 'labelIds.1');
    expectValidationError(await org.call('POST', ticketsPath(), { body: { title: 'x', labelIds: [foreign.id] } }), 'labelIds.0');
    const ticket = await newTicket({ labelIds: [bug.id] });
    expectValidationError(await org.call('PATCH', `${ticketsPath()}/${ticket.id}`, { body: { labelIds: [foreign.id] } }), 'labelIds.0');
  });

  it('drops a deleted label from ticket payloads and filters at once, and from the stored ticket on its next write', async () => {
    const label = await newLabel(org, 'Short-lived');
    const ticket = await newTicket({ labelIds: [label.id, docs.id] });
    expect((await org.call('DELETE', `/api/v1/labels/${label.id}`)).status).toBe(204);

    expect((await org.call('GET', `${ticketsPath()}/${ticket.id}`)).body.data.labels.map((entry: any) => entry.id)).toEqual([docs.id]);
    expect((await org.call('GET', `${ticketsPath()}?labelId=${label.id}`)).body.data).toEqual([]);
    const stored = async () => (await db().entities.ticket.get({ ticketId: ticket.id }).go({ consistent: true })).data!.labelIds;
    expect(await stored()).toEqual([label.id, docs.id]);

    await org.call('PATCH', `${ticketsPath()}/${ticket.id}`, { body: { title: 'Touched' } });
    expect(await stored()).toEqual([docs.id]);
  });
});

describe('unique label names under concurrency', () => {
  const CASINGS = ['Urgent', 'URGENT', 'urgent', 'UrGeNt', 'uRGENT', 'URGent', 'urgENT', 'Urgent'];
  const labelsOf = async (org: TestOrg) => (await org.call('GET', '/api/v1/labels')).body.data as any[];
  const guardOf = async (org: TestOrg, name: string) =>
    (await db().entities.uniqueName.get({ orgId: org.orgId, scope: 'label', name }).go({ consistent: true })).data;

  it('accepts exactly one of 8 simultaneous creates of one name in different cases', async () => {
    const org = await signupOrg();
    const responses = await Promise.all(CASINGS.map((name) => createLabel(org, { name })));
    expect(responses.filter((response) => response.status === 201)).toHaveLength(1);
    for (const refused of responses.filter((response) => response.status !== 201)) {
      expect(refused.status).toBe(409);
      expect(refused.body.error.code).toBe('CONFLICT');
    }
    expect((await labelsOf(org)).filter((label) => label.name.toLowerCase() === 'urgent')).toHaveLength(1);
  });

  it('lets at most one of two simultaneous renames to the same name win', async () => {
    const org = await signupOrg();
    const [first, second] = await Promise.all([newLabel(org, 'First'), newLabel(org, 'Second')]);
    const responses = await Promise.all([
      org.call('PATCH', `/api/v1/labels/${first.id}`, { body: { name: 'Shared' } }),
      org.call('PATCH', `/api/v1/labels/${second.id}`, { body: { name: 'SHARED' } }),
    ]);
    expect(responses.filter((response) => response.status === 200).length).toBeLessThanOrEqual(1);
    for (const refused of responses.filter((response) => response.status !== 200)) expect(refused.status).toBe(409);
    expect((await labelsOf(org)).filter((label) => label.name.toLowerCase() === 'shared').length).toBeLessThanOrEqual(1);
  });

  it('refuses a name whose guard a live label holds even when the Query does not show it under that name', async () => {
    const org = await signupOrg();
    const holder = await newLabel(org, 'Holder');
    // What a concurrent rename leaves between its transaction and this request's Query.
    await db().entities.uniqueName.create({ orgId: org.orgId, scope: 'label', name: 'racing', ownerId: holder.id }).go();
    const response = await createLabel(org, { name: 'Racing' });
    expect(response.status).toBe(409);
    expect(response.body.error.details).toEqual({ field: 'name' });
    expect((await labelsOf(org)).map((label) => label.name)).toEqual(['Holder']);
  });

  it('frees a deleted label’s name with the delete, so it can be reused', async () => {
    const org = await signupOrg();
    const doomed = await newLabel(org, 'Flaky');
    const deletion = await org.call('DELETE', `/api/v1/labels/${doomed.id}`);
    expect(deletion.status).toBe(204);
    expect(await guardOf(org, 'flaky')).toBeNull();
    const again = await createLabel(org, { name: 'FLAKY' });
    expect(again.status).toBe(201);
    expect((await guardOf(org, 'flaky'))?.ownerId).toBe(again.body.id);
    expect((await createLabel(org, { name: 'flaky' })).status).toBe(409);
  });

  it('lets exactly one of simultaneous creates reuse a deleted label’s name', async () => {
    const org = await signupOrg();
    const doomed = await newLabel(org, 'Legacy');
    await org.call('DELETE', `/api/v1/labels/${doomed.id}`);
    const responses = await Promise.all(['Legacy', 'LEGACY', 'legacy', 'LeGaCy'].map((name) => createLabel(org, { name })));
    expect(responses.filter((response) => response.status === 201)).toHaveLength(1);
    for (const refused of responses.filter((response) => response.status !== 201)) expect(refused.status).toBe(409);
    expect((await labelsOf(org)).filter((label) => label.name.toLowerCase() === 'legacy')).toHaveLength(1);
  });

  it('frees a renamed label’s old name and guards the new one, in the same round trips', async () => {
    const org = await signupOrg();
    const label = await newLabel(org, 'Bug');
    const rename = await org.call('PATCH', `/api/v1/labels/${label.id}`, { body: { name: 'Defect' } });
    expect(rename.status).toBe(200);
    expect(await guardOf(org, 'bug')).toBeNull();
    expect((await guardOf(org, 'defect'))?.ownerId).toBe(label.id);
    expect((await createLabel(org, { name: 'bug' })).status).toBe(201);
    expect((await createLabel(org, { name: 'DEFECT' })).status).toBe(409);
  });
});
