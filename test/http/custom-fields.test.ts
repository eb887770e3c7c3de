import { beforeAll, describe, expect, it } from 'vitest';
import { db } from '../../lib/db/service.js';
import { api, createMember, expectValidationError, signupOrg, type TestOrg, useInProcess } from '../support/api.js';
import { createCustomField } from '../support/factories.js';

// In process, through the same route table and handlers (test/support/api.ts).
useInProcess();

const FIELD_FIELDS = ['id', 'name', 'type', 'description', 'options', 'isRequired', 'order', 'createdAt', 'updatedAt'];

const createField = (org: TestOrg, body: Record<string, unknown>, token?: string) =>
  org.call('POST', '/api/v1/custom-fields', { body, ...(token ? { token } : {}) });

const fieldsOf = async (org: TestOrg) => (await org.call('GET', '/api/v1/custom-fields')).body.data as any[];

describe('creating custom field definitions', () => {
  let org: TestOrg;
  beforeAll(async () => {
    org = await signupOrg();
  });

  it('creates a TEXT field with defaults (one Query for uniqueness and order, one transaction)', async () => {
    const response = await createField(org, { name: 'Notes', type: 'TEXT' });
    expect(response.status).toBe(201);
    expect(Object.keys(response.body).sort()).toEqual([...FIELD_FIELDS].sort());
    expect(response.body).toMatchObject({ id: expect.stringMatching(/^cf_/), name: 'Notes', type: 'TEXT', description: '', options: [], isRequired: false, order: 0 });
  });

  it.each(['NUMBER', 'DATE', 'URL', 'CHECKBOX'])('creates a %s field', async (type) => {
    const response = await createField(org, { name: `A ${type} field`, type, description: 'described', isRequired: true, order: 7 });
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({ type, description: 'described', isRequired: true, order: 7, options: [] });
  });

  it('creates a SELECT field with its options (trimmed)', async () => {
    const response = await createField(org, { name: 'Severity', type: 'SELECT', options: ['Minor', ' Major ', 'Critical'] });
    expect(response.status).toBe(201);
    expect(response.body.options).toEqual(['Minor', 'Major', 'Critical']);
  });

  it('places a field without an order after the last one', async () => {
    const fields = await fieldsOf(org);
    const created = await createCustomField(org, { name: 'Appended' });
    expect(created.order).toBe(Math.max(...fields.map((field) => field.order)) + 1);
  });

  it.each([
    ['name', { name: undefined }],
    ['name', { name: '' }],
    ['name', { name: 'x'.repeat(101) }],
    ['type', { type: undefined }],
    ['type', { type: 'EMAIL' }],
    ['description', { description: 'x'.repeat(501) }],
    ['options', { type: 'SELECT' }],
    ['options', { type: 'SELECT', options: [] }],
    ['options.1', { type: 'SELECT', options: ['A', 'A'] }],
    ['options.1', { type: 'SELECT', options: ['A', ' A'] }],
    ['options.0', { type: 'SELECT', options: ['x'.repeat(101)] }],
    ['options.0', { type: 'SELECT', options: [''] }],
    ['options', { type: 'SELECT', options: Array.from({ length: 101 }, (_, index) => `o${index}`) }],
    ['options', { type: 'TEXT', options: ['A'] }],
    ['isRequired', { isRequired: 'yes' }],
    ['order', { order: -1 }],
    ['order', { order: 1.5 }],
    ['fieldType', { fieldType: 'TEXT' }],
  ] as const)('rejects a bad %s with 400 and writes nothing (case %#)', async (field, override) => {
    const before = (await fieldsOf(org)).length;
    expectValidationError(await createField(org, { name: 'Valid name', type: 'TEXT', ...override }), field);
    expect((await fieldsOf(org)).length).toBe(before);
  });

  it('refuses a name already used in the organization, whatever its case, with 409', async () => {
    await createCustomField(org, { name: 'Customer tier' });
    const response = await createField(org, { name: 'CUSTOMER TIER', type: 'NUMBER' });
    expect(response.status).toBe(409);
    expect(response.body.error.details).toEqual({ field: 'name' });
  });

  it('refuses a member without custom-fields:manage with 403', async () => {
    const member = await createMember(org);
    const response = await createField(org, { name: 'Member field', type: 'TEXT' }, member.token);
    expect(response.status).toBe(403);
    expect((await fieldsOf(org)).map((field) => field.name)).not.toContain('Member field');
  });

  it('allows a member whose group grants custom-fields:manage', async () => {
    const group = await org.call('POST', '/api/v1/permission-groups', { body: { name: 'Field managers', color: '#000000', permissions: ['custom-fields:manage'] } });
    const member = await createMember(org, { permissionGroupIds: [group.body.id] });
    expect((await createField(org, { name: 'Managed field', type: 'TEXT' }, member.token)).status).toBe(201);
  });
});

describe('listing custom field definitions', () => {
  let org: TestOrg;
  beforeAll(async () => {
    org = await signupOrg();
  });

  it('lists definitions by order, then name, in one Query', async () => {
    await createCustomField(org, { name: 'Third', order: 3 });
    await createCustomField(org, { name: 'First b', order: 1 });
    await createCustomField(org, { name: 'First a', order: 1 });
    const response = await org.call('GET', '/api/v1/custom-fields');
    expect(response.status).toBe(200);
    expect(response.body.data.map((field: any) => field.name)).toEqual(['First a', 'First b', 'Third']);
  });

  it('is open to members, refused to customer users, and never shows another organization’s fields', async () => {
    const member = await createMember(org);
    expect((await api('GET', '/api/v1/custom-fields', { token: member.token, org: org.slug })).status).toBe(200);
    const customer = await org.call('POST', '/api/v1/customers', { body: { name: 'Client' } });
    const customerUser = await createMember(org, { role: 'CUSTOMER', customerId: customer.body.id });
    expect((await api('GET', '/api/v1/custom-fields', { token: customerUser.token, org: org.slug })).status).toBe(403);
    const other = await signupOrg();
    await createCustomField(other, { name: 'Foreign field' });
    expect((await fieldsOf(org)).map((field) => field.name)).not.toContain('Foreign field');
  });
});

describe('updating and deleting custom field definitions', () => {
  let org: TestOrg;
  let other: TestOrg;
  beforeAll(async () => {
    [org, other] = await Promise.all([signupOrg(), signupOrg()]);
  });

  it('patches name, description, isRequired and order (read + guarded write)', async () => {
    const field = await createCustomField(org, { name: 'Patchable' });
    const response = await org.call('PATCH', `/api/v1/custom-fields/${field.id}`, { body: { name: 'Patched', description: 'now', isRequired: true, order: 9 } });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ id: field.id, name: 'Patched', type: 'TEXT', description: 'now', isRequired: true, order: 9, createdAt: field.createdAt });
    expect(await fieldsOf(org)).toContainEqual(response.body);
  });

  it('replaces the options of a SELECT field', async () => {
    const field = await createCustomField(org, { name: 'Choice', type: 'SELECT', options: ['a', 'b'] });
    const response = await org.call('PATCH', `/api/v1/custom-fields/${field.id}`, { body: { options: ['b', 'c'] } });
    expect(response.body.options).toEqual(['b', 'c']);
  });

  it('keeps the type fixed and rejects options that do not fit it', async () => {
    const text = await createCustomField(org, { name: 'Fixed type' });
    const select = await createCustomField(org, { name: 'Fixed select', type: 'SELECT', options: ['x'] });
    expectValidationError(await org.call('PATCH', `/api/v1/custom-fields/${text.id}`, { body: { type: 'NUMBER' } }), 'type');
    expectValidationError(await org.call('PATCH', `/api/v1/custom-fields/${text.id}`, { body: { options: ['a'] } }), 'options');
    expectValidationError(await org.call('PATCH', `/api/v1/custom-fields/${select.id}`, { body: { options: [] } }), 'options');
    expectValidationError(await org.call('PATCH', `/api/v1/custom-fields/${select.id}`, { body: { options: ['y', 'y'] } }), 'options.1');
    expect(await fieldsOf(org)).toEqual(expect.arrayContaining([text, select]));
  });

  it.each([
    ['name', { name: '' }],
    ['name', { name: 'x'.repeat(101) }],
    ['description', { description: 'x'.repeat(501) }],
    ['order', { order: -3 }],
    ['isRequired', { isRequired: 1 }],
  ] as const)('rejects a bad %s on PATCH with 400 (case %#)', async (path, body) => {
    const field = await createCustomField(org, { name: `Target ${Math.random()}` });
    expectValidationError(await org.call('PATCH', `/api/v1/custom-fields/${field.id}`, { body }), path);
  });

  it('refuses to rename onto another field’s name with 409', async () => {
    const field = await createCustomField(org, { name: 'Mine' });
    await createCustomField(org, { name: 'Theirs' });
    expect((await org.call('PATCH', `/api/v1/custom-fields/${field.id}`, { body: { name: 'THEIRS' } })).status).toBe(409);
    expect((await org.call('PATCH', `/api/v1/custom-fields/${field.id}`, { body: { name: 'MINE' } })).status).toBe(200);
  });

  it('answers 404 for an unknown field and for another organization’s field', async () => {
    const foreign = await createCustomField(other, { name: 'Foreign' });
    expect((await org.call('PATCH', '/api/v1/custom-fields/cf_unknown', { body: { name: 'x' } })).status).toBe(404);
    expect((await org.call('PATCH', `/api/v1/custom-fields/${foreign.id}`, { body: { name: 'x' } })).status).toBe(404);
    expect((await org.call('DELETE', `/api/v1/custom-fields/${foreign.id}`)).status).toBe(404);
    expect(await fieldsOf(other)).toContainEqual(foreign);
  });

  it('deletes a field and frees its name in one transaction; a second delete is 404', async () => {
    const field = await createCustomField(org, { name: 'Doomed' });
    const response = await org.call('DELETE', `/api/v1/custom-fields/${field.id}`);
    expect(response.status).toBe(204);
    expect((await fieldsOf(org)).map((entry) => entry.id)).not.toContain(field.id);
    expect((await org.call('DELETE', `/api/v1/custom-fields/${field.id}`)).status).toBe(404);
  });

  it('refuses PATCH and DELETE to a member without custom-fields:manage', async () => {
    const field = await createCustomField(org, { name: 'Guarded' });
    const member = await createMember(org);
    expect((await api('PATCH', `/api/v1/custom-fields/${field.id}`, { token: member.token, org: org.slug, body: { name: 'x' } })).status).toBe(403);
    expect((await api('DELETE', `/api/v1/custom-fields/${field.id}`, { token: member.token, org: org.slug })).status).toBe(403);
    expect(await fieldsOf(org)).toContainEqual(field);
  });
});

describe('unique custom field names under concurrency', () => {
  const CASINGS = ['Severity', 'SEVERITY', 'severity', 'SeVeRiTy', 'sEVERITY', 'SEVErity', 'seveRITY', 'Severity'];
  const guardOf = async (org: TestOrg, name: string) =>
    (await db().entities.uniqueName.get({ orgId: org.orgId, scope: 'customField', name }).go({ consistent: true })).data;

  it('accepts exactly one of 8 simultaneous creates of one name in different cases', async () => {
    const org = await signupOrg();
    const responses = await Promise.all(CASINGS.map((name) => createField(org, { name, type: 'TEXT' })));
    expect(responses.filter((response) => response.status === 201)).toHaveLength(1);
    for (const refused of responses.filter((response) => response.status !== 201)) {
      expect(refused.status).toBe(409);
      expect(refused.body.error.code).toBe('CONFLICT');
    }
    expect((await fieldsOf(org)).filter((field) => field.name.toLowerCase() === 'severity')).toHaveLength(1);
  });

  it('lets at most one of two simultaneous renames to the same name win', async () => {
    const org = await signupOrg();
    const [first, second] = await Promise.all([createCustomField(org, { name: 'First' }), createCustomField(org, { name: 'Second' })]);
    const responses = await Promise.all([
      org.call('PATCH', `/api/v1/custom-fields/${first.id}`, { body: { name: 'Shared' } }),
      org.call('PATCH', `/api/v1/custom-fields/${second.id}`, { body: { name: 'SHARED' } }),
    ]);
    expect(responses.filter((response) => response.status === 200).length).toBeLessThanOrEqual(1);
    for (const refused of responses.filter((response) => response.status !== 200)) expect(refused.status).toBe(409);
    expect((await fieldsOf(org)).filter((field) => field.name.toLowerCase() === 'shared').length).toBeLessThanOrEqual(1);
  });

  it('refuses a name whose guard a live field holds even when the Query does not show it under that name', async () => {
    const org = await signupOrg();
    const holder = await createCustomField(org, { name: 'Holder' });
    // What a concurrent rename leaves between its transaction and this request's Query.
    await db().entities.uniqueName.create({ orgId: org.orgId, scope: 'customField', name: 'racing', ownerId: holder.id }).go();
    const response = await createField(org, { name: 'Racing', type: 'TEXT' });
    expect(response.status).toBe(409);
    expect(response.body.error.details).toEqual({ field: 'name' });
    expect((await fieldsOf(org)).map((field) => field.name)).toEqual(['Holder']);
  });

  it('frees a deleted field’s name with the delete, so it can be reused', async () => {
    const org = await signupOrg();
    const doomed = await createCustomField(org, { name: 'Budget' });
    const deletion = await org.call('DELETE', `/api/v1/custom-fields/${doomed.id}`);
    expect(deletion.status).toBe(204);
    expect(await guardOf(org, 'budget')).toBeNull();
    const again = await createField(org, { name: 'BUDGET', type: 'NUMBER' });
    expect(again.status).toBe(201);
    expect((await guardOf(org, 'budget'))?.ownerId).toBe(again.body.id);
    expect((await createField(org, { name: 'budget', type: 'TEXT' })).status).toBe(409);
  });

  it('frees a renamed field’s old name and guards the new one, in the same round trips', async () => {
    const org = await signupOrg();
    const field = await createCustomField(org, { name: 'Estimate' });
    const rename = await org.call('PATCH', `/api/v1/custom-fields/${field.id}`, { body: { name: 'Points' } });
    expect(rename.status).toBe(200);
    expect(await guardOf(org, 'estimate')).toBeNull();
    expect((await guardOf(org, 'points'))?.ownerId).toBe(field.id);
    expect((await createField(org, { name: 'estimate', type: 'TEXT' })).status).toBe(201);
    expect((await createField(org, { name: 'POINTS', type: 'TEXT' })).status).toBe(409);
  });
});
