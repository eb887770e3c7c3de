import { beforeAll, describe, expect, it } from 'vitest';
import { api, createMember, signupOrg, type TestOrg, expectValidationError, useInProcess } from '../support/api.js';

// In process, through the same route table and handlers (test/support/api.ts).
useInProcess();

async function createCustomer(org: TestOrg, body: Record<string, unknown> = {}) {
  const response = await org.call('POST', '/api/v1/customers', { body: { name: `Customer ${Math.random().toString(36).slice(2, 8)}`, ...body } });
  if (response.status !== 201) throw new Error(`create customer failed: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body as { id: string; name: string; email: string | null; phone: string | null; isArchived: boolean; createdAt: string };
}

const UNKNOWN_CUSTOMER = 'cst_01HXXXXXXXXXXXXXXXXXXXXXXX';

describe('creating customers', () => {
  let org: TestOrg;
  beforeAll(async () => {
    org = await signupOrg();
  });

  it('creates a customer with name, e-mail and phone in two round trips', async () => {
    const response = await org.call('POST', '/api/v1/customers', { body: { name: 'Acme Corp', email: ' Buyer@Acme.TEST ', phone: '+49 30 123456' } });

    expect(response.status).toBe(201);
    expect(response.body).toEqual({
      id: expect.stringMatching(/^cst_/),
      name: 'Acme Corp',
      email: 'buyer@acme.test',
      phone: '+49 30 123456',
      isArchived: false,
      createdAt: expect.any(String),
    });
  });

  it('shows e-mail and phone as null when they are not given', async () => {
    const response = await org.call('POST', '/api/v1/customers', { body: { name: 'Bare Ltd' } });
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({ email: null, phone: null });
  });

  it('accepts a name of 200 and a phone of 50 characters', async () => {
    const response = await org.call('POST', '/api/v1/customers', { body: { name: 'n'.repeat(200), phone: '1'.repeat(50) } });
    expect(response.status).toBe(201);
  });

  it.each([
    [{ email: 'a@b.test' }, 'name'],
    [{ name: '' }, 'name'],
    [{ name: '  ' }, 'name'],
    [{ name: 'x'.repeat(201) }, 'name'],
    [{ name: 'Ok', email: 'not-an-email' }, 'email'],
    [{ name: 'Ok', email: 42 }, 'email'],
    [{ name: 'Ok', phone: '1'.repeat(51) }, 'phone'],
    [{ name: 'Ok', phone: '' }, 'phone'],
    [{ name: 'Ok', isArchived: true }, 'isArchived'],
  ])('rejects %o with 400 naming %s', async (body, field) => {
    const response = await org.call('POST', '/api/v1/customers', { body });
    expectValidationError(response, field);
  });
});

describe('listing and reading customers', () => {
  let org: TestOrg;
  let acme: { id: string };
  let archived: { id: string };
  beforeAll(async () => {
    org = await signupOrg();
    acme = await createCustomer(org, { name: 'Acme Corp', email: 'contact@acme.test', phone: '555' });
    await createCustomer(org, { name: 'Blue Harbor', email: 'hello@blueharbor.test' });
    await createCustomer(org, { name: 'Cobalt Systems' });
    archived = await createCustomer(org, { name: 'Archived Inc', email: 'old@archived.test' });
    expect((await org.call('POST', `/api/v1/customers/${archived.id}/archive`)).status).toBe(200);
  });

  it('lists active customers sorted by name with the paginated envelope in two round trips', async () => {
    const response = await org.call('GET', '/api/v1/customers');
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ total: 3, page: 1, pageSize: 20, totalPages: 1 });
    expect(response.body.data.map((customer: any) => customer.name)).toEqual(['Acme Corp', 'Blue Harbor', 'Cobalt Systems']);
    expect(response.body.data[0]).toEqual({ id: acme.id, name: 'Acme Corp', email: 'contact@acme.test', phone: '555', isArchived: false, createdAt: expect.any(String) });
  });

  it('includes archived customers with includeArchived=true', async () => {
    const response = await org.call('GET', '/api/v1/customers?includeArchived=true');
    expect(response.body.total).toBe(4);
    expect(response.body.data.find((customer: any) => customer.id === archived.id)).toMatchObject({ isArchived: true });
  });

  it('searches by name case-insensitively', async () => {
    const response = await org.call('GET', '/api/v1/customers?search=HARBOR');
    expect(response.body.data.map((customer: any) => customer.name)).toEqual(['Blue Harbor']);
  });

  it('searches by e-mail case-insensitively', async () => {
    const response = await org.call('GET', '/api/v1/customers?search=Contact@ACME');
    expect(response.body.data.map((customer: any) => customer.id)).toEqual([acme.id]);
    const archivedByMail = await org.call('GET', '/api/v1/customers?search=old@archived&includeArchived=true');
    expect(archivedByMail.body.data.map((customer: any) => customer.id)).toEqual([archived.id]);
    const hidden = await org.call('GET', '/api/v1/customers?search=old@archived');
    expect(hidden.body.total).toBe(0);
  });

  it('pages with page and limit and clamps limit to 100', async () => {
    const second = await org.call('GET', '/api/v1/customers?page=2&limit=2');
    expect(second.body).toMatchObject({ total: 3, page: 2, pageSize: 2, totalPages: 2 });
    expect(second.body.data.map((customer: any) => customer.name)).toEqual(['Cobalt Systems']);
    expect((await org.call('GET', '/api/v1/customers?limit=500')).body.pageSize).toBe(100);
  });

  it.each([
    ['includeArchived=yes', 'includeArchived'],
    ['page=-1', 'page'],
    ['limit=ten', 'limit'],
    [`search=${'x'.repeat(201)}`, 'search'],
    ['archived=true', 'archived'],
  ])('rejects the query %s with 400 naming %s', async (query, field) => {
    expectValidationError(await org.call('GET', `/api/v1/customers?${query}`), field);
  });

  it('returns one customer, archived or not, in two round trips', async () => {
    const response = await org.call('GET', `/api/v1/customers/${acme.id}`);
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ id: acme.id, name: 'Acme Corp' });
    expect((await org.call('GET', `/api/v1/customers/${archived.id}`)).body.isArchived).toBe(true);
  });

  it('answers an unknown customer id with 404', async () => {
    const response = await org.call('GET', `/api/v1/customers/${UNKNOWN_CUSTOMER}`);
    expect(response.status).toBe(404);
    expect(response.body.error.code).toBe('NOT_FOUND');
  });

  it('lets a member without members:edit read customers', async () => {
    const member = await createMember(org);
    const list = await api('GET', '/api/v1/customers', { token: member.token, org: org.slug });
    expect(list.status).toBe(200);
    expect(list.body.total).toBe(3);
    expect((await api('GET', `/api/v1/customers/${acme.id}`, { token: member.token, org: org.slug })).status).toBe(200);
  });

  it('shows a customer user only their own customer record', async () => {
    const customerUser = await createMember(org, { role: 'CUSTOMER', customerId: acme.id });
    const as = { token: customerUser.token, org: org.slug };

    const list = await api('GET', '/api/v1/customers', as);
    const own = await api('GET', `/api/v1/customers/${acme.id}`, as);
    const other = await api('GET', `/api/v1/customers/${archived.id}`, as);

    expect(list.status).toBe(200);
    expect(list.body.data.map((customer: any) => customer.id)).toEqual([acme.id]);
    expect(list.body.total).toBe(1);
    expect(own.status).toBe(200);
    expect(other.status).toBe(404);
  });
});

describe('updating and archiving customers', () => {
  let org: TestOrg;
  beforeAll(async () => {
    org = await signupOrg();
  });

  it('updates name, e-mail and phone and finds the customer by the new e-mail', async () => {
    const customer = await createCustomer(org, { name: 'Old Name', email: 'old@example.test' });

    const response = await org.call('PATCH', `/api/v1/customers/${customer.id}`, { body: { name: 'New Name', email: 'NEW@example.test', phone: '0800' } });

    expect(response.status).toBe(200);
    expect(response.body).toEqual({ ...customer, name: 'New Name', email: 'new@example.test', phone: '0800' });
    expect((await org.call('GET', `/api/v1/customers/${customer.id}`)).body).toEqual(response.body);
    expect((await org.call('GET', '/api/v1/customers?search=new@example')).body.data.map((c: any) => c.id)).toEqual([customer.id]);
    expect((await org.call('GET', '/api/v1/customers?search=old@example')).body.total).toBe(0);
  });

  it('keeps the e-mail searchable after a name-only change', async () => {
    const customer = await createCustomer(org, { name: 'Rename Me', email: 'keep@mail.test' });
    await org.call('PATCH', `/api/v1/customers/${customer.id}`, { body: { name: 'Renamed' } });
    const found = await org.call('GET', '/api/v1/customers?search=keep@mail');
    expect(found.body.data).toEqual([expect.objectContaining({ id: customer.id, name: 'Renamed', email: 'keep@mail.test' })]);
  });

  it('clears e-mail and phone with null', async () => {
    const customer = await createCustomer(org, { email: 'gone@example.test', phone: '123' });
    const response = await org.call('PATCH', `/api/v1/customers/${customer.id}`, { body: { email: null, phone: null } });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ email: null, phone: null, name: customer.name });
    expect((await org.call('GET', `/api/v1/customers/${customer.id}`)).body).toMatchObject({ email: null, phone: null });
    expect((await org.call('GET', '/api/v1/customers?search=gone@example')).body.total).toBe(0);
  });

  it.each([
    [{ name: '' }, 'name'],
    [{ name: null }, 'name'],
    [{ name: 'x'.repeat(201) }, 'name'],
    [{ email: 'nope' }, 'email'],
    [{ phone: '9'.repeat(51) }, 'phone'],
    [{ isArchived: false }, 'isArchived'],
  ])('rejects the update %o with 400 naming %s', async (body, field) => {
    const customer = await createCustomer(org);
    expectValidationError(await org.call('PATCH', `/api/v1/customers/${customer.id}`, { body }), field);
  });

  it('answers an update of an unknown customer with 404', async () => {
    const response = await org.call('PATCH', `/api/v1/customers/${UNKNOWN_CUSTOMER}`, { body: { name: 'x' } });
    expect(response.status).toBe(404);
  });

  it('archives a customer, hides it from the default list and archives again without change', async () => {
    const customer = await createCustomer(org, { name: 'To Archive' });

    const first = await org.call('POST', `/api/v1/customers/${customer.id}/archive`);
    const second = await org.call('POST', `/api/v1/customers/${customer.id}/archive`);

    expect(first.status).toBe(200);
    expect(first.body).toEqual({ ...customer, isArchived: true });
    expect(second.status).toBe(200);
    expect(second.body).toEqual(first.body);
    const list = await org.call('GET', '/api/v1/customers?search=to archive');
    expect(list.body.total).toBe(0);
  });

  it('answers archiving an unknown customer with 404', async () => {
    const response = await org.call('POST', `/api/v1/customers/${UNKNOWN_CUSTOMER}/archive`);
    expect(response.status).toBe(404);
  });
});

describe('deleting customers', () => {
  let org: TestOrg;
  beforeAll(async () => {
    org = await signupOrg();
  });

  it('deletes a customer permanently', async () => {
    const customer = await createCustomer(org);

    const response = await org.call('DELETE', `/api/v1/customers/${customer.id}`);

    expect(response.status).toBe(204);
    expect(response.body).toBeUndefined();
    expect((await org.call('GET', `/api/v1/customers/${customer.id}`)).status).toBe(404);
    expect((await org.call('DELETE', `/api/v1/customers/${customer.id}`)).status).toBe(404);
  });

  it('refuses to delete a customer while a customer user is linked to it', async () => {
    const customer = await createCustomer(org);
    const customerUser = await createMember(org, { role: 'CUSTOMER', customerId: customer.id });

    const response = await org.call('DELETE', `/api/v1/customers/${customer.id}`);

    expect(response.status).toBe(409);
    expect(response.body.error.code).toBe('CONFLICT');
    expect(response.body.error.details).toEqual({ userIds: [customerUser.id] });
    expect((await org.call('GET', `/api/v1/customers/${customer.id}`)).status).toBe(200);
  });

  it('takes a deleted customer off the boards it was assigned to', async () => {
    const customer = await createCustomer(org);
    const board = await org.call('POST', '/api/v1/boards', { body: { name: 'Client board', description: 'Shared with the client', customerIds: [customer.id] } });
    expect(board.status, JSON.stringify(board.body)).toBe(201);
    expect(board.body.customerIds).toEqual([customer.id]);

    expect((await org.call('DELETE', `/api/v1/customers/${customer.id}`)).status).toBe(204);

    const after = await org.call('GET', `/api/v1/boards/${board.body.id}`);
    expect(after.body.customerIds).toEqual([]);
  });

  it('answers a delete of an unknown customer with 404', async () => {
    const response = await org.call('DELETE', `/api/v1/customers/${UNKNOWN_CUSTOMER}`);
    expect(response.status).toBe(404);
    expect(response.body.error.code).toBe('NOT_FOUND');
  });
});

describe('permissions', () => {
  let org: TestOrg;
  let customer: { id: string };
  let member: { token: string };
  beforeAll(async () => {
    org = await signupOrg();
    customer = await createCustomer(org, { name: 'Protected' });
    member = await createMember(org);
  });

  it.each([
    ['POST', '/api/v1/customers', { name: 'Mine' }],
    ['PATCH', '/api/v1/customers/{id}', { name: 'Mine' }],
    ['POST', '/api/v1/customers/{id}/archive', undefined],
    ['DELETE', '/api/v1/customers/{id}', undefined],
  ])('refuses %s %s to a member without members:edit with 403', async (method, path, body) => {
    const response = await api(method, path.replace('{id}', customer.id), { token: member.token, org: org.slug, body });
    expect(response.status).toBe(403);
    expect(response.body.error.code).toBe('FORBIDDEN');
    expect(response.body.error.details).toEqual({ permission: 'members:edit' });
  });

  it('refuses customer users every write, even on their own record', async () => {
    const customerUser = await createMember(org, { role: 'CUSTOMER', customerId: customer.id });
    const as = { token: customerUser.token, org: org.slug };
    expect((await api('POST', '/api/v1/customers', { ...as, body: { name: 'Self-made' } })).status).toBe(403);
    expect((await api('PATCH', `/api/v1/customers/${customer.id}`, { ...as, body: { name: 'Mine now' } })).status).toBe(403);
    expect((await api('POST', `/api/v1/customers/${customer.id}/archive`, as)).status).toBe(403);
  });

  it('leaves the customer unchanged after refused requests', async () => {
    const response = await org.call('GET', `/api/v1/customers/${customer.id}`);
    expect(response.body).toMatchObject({ name: 'Protected', isArchived: false });
  });
});

describe('tenant isolation', () => {
  it('answers every customer route with 404 for another organization\'s customer and hides it from lists', async () => {
    const owner = await signupOrg();
    const intruder = await signupOrg();
    const customer = await createCustomer(owner, { name: 'Owned Customer', email: 'owned@example.test' });

    const attempts = [
      await intruder.call('GET', `/api/v1/customers/${customer.id}`),
      await intruder.call('PATCH', `/api/v1/customers/${customer.id}`, { body: { name: 'Stolen' } }),
      await intruder.call('POST', `/api/v1/customers/${customer.id}/archive`),
      await intruder.call('DELETE', `/api/v1/customers/${customer.id}`),
    ];

    expect(attempts.map((response) => response.status)).toEqual([404, 404, 404, 404]);
    expect((await intruder.call('GET', '/api/v1/customers?includeArchived=true')).body.total).toBe(0);
    expect((await owner.call('GET', `/api/v1/customers/${customer.id}`)).body).toMatchObject({ name: 'Owned Customer', isArchived: false });
  });
});
