import { beforeAll, describe, expect, it } from 'vitest';
import { db } from '../../lib/db/service.js';
import { api, createMember, signupOrg, type TestOrg, expectValidationError, useInProcess } from '../support/api.js';

// In process, through the same route table and handlers (test/support/api.ts).
useInProcess();

const TYPE_FIELDS = ['id', 'name', 'color', 'description', 'order', 'isOrgDefault', 'enabledByDefault', 'createdAt', 'updatedAt'];

const typesOf = async (org: TestOrg) => (await org.call('GET', '/api/v1/ticket-types')).body.data as any[];
const defaultsOf = async (org: TestOrg) => (await typesOf(org)).filter((type) => type.isOrgDefault);
const defaultTypeOf = async (org: TestOrg) => (await org.call('GET', '/api/v1/ticket-types/default')).body;

const createType = (org: TestOrg, body: Record<string, unknown>) =>
  org.call('POST', '/api/v1/ticket-types', { body: { color: '#123456', ...body } });

/** Stands in for the ticket write path (a later issue), which keeps `ticketCount` per type. */
const setTicketCount = (org: TestOrg, typeId: string, ticketCount: number) =>
  db().entities.ticketType.patch({ orgId: org.orgId, typeId }).set({ ticketCount }).go();

describe('listing and reading ticket types', () => {
  let org: TestOrg;
  beforeAll(async () => {
    org = await signupOrg();
  });

  it('lists the seeded default type "Task"', async () => {
    const response = await org.call('GET', '/api/v1/ticket-types');
    expect(response.status).toBe(200);
    expect(response.body.data).toHaveLength(1);
    expect(Object.keys(response.body.data[0]).sort()).toEqual([...TYPE_FIELDS].sort());
    expect(response.body.data[0]).toMatchObject({ name: 'Task', order: 0, isOrgDefault: true, enabledByDefault: true });
    expect(response.body.data[0].id).toMatch(/^typ_/);
  });

  it('returns the organization default type with one Query', async () => {
    const response = await org.call('GET', '/api/v1/ticket-types/default');
    expect(response.status).toBe(200);
    expect(response.body).toEqual((await typesOf(org))[0]);
  });

  it('gets one type by id', async () => {
    const [task] = await typesOf(org);
    const response = await org.call('GET', `/api/v1/ticket-types/${task.id}`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual(task);
  });

  it('counts the tickets of a type', async () => {
    const [task] = await typesOf(org);
    const response = await org.call('GET', `/api/v1/ticket-types/${task.id}/ticket-count`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ data: { count: 0 } });
  });

  it('reports the count the ticket write path keeps on the type', async () => {
    const created = await createType(org, { name: 'Counted' });
    await setTicketCount(org, created.body.id, 7);
    const response = await org.call('GET', `/api/v1/ticket-types/${created.body.id}/ticket-count`);
    expect(response.body).toEqual({ data: { count: 7 } });
  });

  it('answers unknown type ids with 404', async () => {
    expect((await org.call('GET', '/api/v1/ticket-types/typ_unknown')).status).toBe(404);
    const count = await org.call('GET', '/api/v1/ticket-types/typ_unknown/ticket-count');
    expect(count.status).toBe(404);
    expect(count.body.error.code).toBe('NOT_FOUND');
  });

  it('lets a member without the manage permission read types', async () => {
    const member = await createMember(org);
    const list = await api('GET', '/api/v1/ticket-types', { token: member.token, org: org.slug });
    const fallback = await api('GET', '/api/v1/ticket-types/default', { token: member.token, org: org.slug });
    expect(list.status).toBe(200);
    expect(fallback.status).toBe(200);
    expect(fallback.body.name).toBe('Task');
  });

  it('orders types by order, then name', async () => {
    const other = await signupOrg();
    await createType(other, { name: 'Zebra', order: 5 });
    await createType(other, { name: 'Apple', order: 5 });
    await createType(other, { name: 'First', order: 0 });
    expect((await typesOf(other)).map((type) => type.name)).toEqual(['First', 'Task', 'Apple', 'Zebra']);
  });
});

describe('creating ticket types', () => {
  let org: TestOrg;
  beforeAll(async () => {
    org = await signupOrg();
  });

  it('creates a type after the last one with defaults for the optional fields', async () => {
    const response = await createType(org, { name: 'Bug', color: '#FF0000' });
    expect(response.status).toBe(201);
    expect(Object.keys(response.body).sort()).toEqual([...TYPE_FIELDS].sort());
    expect(response.body).toMatchObject({ name: 'Bug', color: '#FF0000', description: '', order: 1, isOrgDefault: false, enabledByDefault: true });
    const read = await org.call('GET', `/api/v1/ticket-types/${response.body.id}`);
    expect(read.body).toEqual(response.body);
  });

  it('keeps every given field', async () => {
    const response = await createType(org, { name: 'Feature', description: 'd'.repeat(500), order: 100, enabledByDefault: false });
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({ name: 'Feature', description: 'd'.repeat(500), order: 100, enabledByDefault: false });
  });

  it('caps the default order at 100', async () => {
    const response = await createType(org, { name: 'After the last' });
    expect(response.body.order).toBe(100);
  });

  it('refuses a name that exists in another case with 409 and writes nothing', async () => {
    const before = await typesOf(org);
    const response = await createType(org, { name: 'bUG' });
    expect(response.status).toBe(409);
    expect(response.body.error.code).toBe('CONFLICT');
    expect(response.body.error.details).toEqual({ field: 'name' });
    expect(await typesOf(org)).toEqual(before);
  });

  it.each([
    [{ name: 'x'.repeat(51) }, 'name'],
    [{ name: '' }, 'name'],
    [{ name: undefined }, 'name'],
    [{ color: 'blue' }, 'color'],
    [{ color: '#1234567' }, 'color'],
    [{ color: undefined }, 'color'],
    [{ description: 'd'.repeat(501) }, 'description'],
    [{ order: 101 }, 'order'],
    [{ order: -1 }, 'order'],
    [{ order: 2.5 }, 'order'],
    [{ isOrgDefault: 'true' }, 'isOrgDefault'],
    [{ enabledByDefault: 0 }, 'enabledByDefault'],
    [{ ticketCount: 3 }, 'ticketCount'],
  ])('rejects %o with 400 naming %s', async (override, field) => {
    const response = await org.call('POST', '/api/v1/ticket-types', { body: { name: 'Valid', color: '#123456', ...override } });
    expectValidationError(response, field);
  });

  it('refuses a member without settings:manage-ticket-types with 403', async () => {
    const member = await createMember(org);
    const response = await api('POST', '/api/v1/ticket-types', { token: member.token, org: org.slug, body: { name: 'Sneaky', color: '#123456' } });
    expect(response.status).toBe(403);
    expect(response.body.error.code).toBe('FORBIDDEN');
    expect((await typesOf(org)).some((type) => type.name === 'Sneaky')).toBe(false);
  });
});

describe('the one default ticket type', () => {
  it('moves the default to a type created as default, in the same request', async () => {
    const org = await signupOrg();
    const response = await createType(org, { name: 'Story', isOrgDefault: true });
    expect(response.status).toBe(201);
    expect(response.body.isOrgDefault).toBe(true);
    expect((await defaultsOf(org)).map((type) => type.id)).toEqual([response.body.id]);
    expect((await defaultTypeOf(org)).id).toBe(response.body.id);
  });

  it('moves the default to a patched type and keeps exactly one', async () => {
    const org = await signupOrg();
    const story = await createType(org, { name: 'Story' });
    const response = await org.call('PATCH', `/api/v1/ticket-types/${story.body.id}`, { body: { isOrgDefault: true } });
    expect(response.status).toBe(200);
    expect((await defaultsOf(org)).map((type) => type.name)).toEqual(['Story']);
    expect((await defaultTypeOf(org)).name).toBe('Story');
  });

  it('keeps exactly one default when two types are created as default at once', async () => {
    const org = await signupOrg();
    const responses = await Promise.all([
      createType(org, { name: 'Story', isOrgDefault: true }),
      createType(org, { name: 'Epic', isOrgDefault: true }),
    ]);
    expect(responses.map((response) => response.status)).toContain(201);
    expect(responses.every((response) => response.status === 201 || response.status === 409)).toBe(true);
    expect(await defaultsOf(org)).toHaveLength(1);
  });

  it('refuses to unset the default without naming another with 400', async () => {
    const org = await signupOrg();
    const task = await defaultTypeOf(org);
    const response = await org.call('PATCH', `/api/v1/ticket-types/${task.id}`, { body: { isOrgDefault: false } });
    expectValidationError(response, 'isOrgDefault');
    expect((await defaultsOf(org)).map((type) => type.id)).toEqual([task.id]);
  });
});

describe('updating ticket types', () => {
  let org: TestOrg;
  let bug: any;
  beforeAll(async () => {
    org = await signupOrg();
    bug = (await createType(org, { name: 'Bug' })).body;
  });

  it('changes name, color, description and order', async () => {
    const response = await org.call('PATCH', `/api/v1/ticket-types/${bug.id}`, {
      body: { name: 'Defect', color: '#ABCDEF', description: 'Something is broken', order: 42 },
    });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ id: bug.id, name: 'Defect', color: '#ABCDEF', description: 'Something is broken', order: 42, isOrgDefault: false });
    expect(response.body.createdAt).toBe(bug.createdAt);
    const read = await org.call('GET', `/api/v1/ticket-types/${bug.id}`);
    expect(read.body).toEqual(response.body);
  });

  it('refuses a name another type has with 409 and changes nothing', async () => {
    const before = await org.call('GET', `/api/v1/ticket-types/${bug.id}`);
    const response = await org.call('PATCH', `/api/v1/ticket-types/${bug.id}`, { body: { name: 'TASK' } });
    expect(response.status).toBe(409);
    expect((await org.call('GET', `/api/v1/ticket-types/${bug.id}`)).body).toEqual(before.body);
  });

  it.each([
    [{ name: 'x'.repeat(51) }, 'name'],
    [{ color: '#12' }, 'color'],
    [{ description: 'd'.repeat(501) }, 'description'],
    [{ order: 101 }, 'order'],
    [{ enabledByDefault: false }, 'enabledByDefault'],
    [{ ticketCount: 0 }, 'ticketCount'],
  ])('rejects %o with 400 naming %s', async (body, field) => {
    expectValidationError(await org.call('PATCH', `/api/v1/ticket-types/${bug.id}`, { body }), field);
  });

  it('answers an unknown type id with 404', async () => {
    expect((await org.call('PATCH', '/api/v1/ticket-types/typ_unknown', { body: { name: 'Nope' } })).status).toBe(404);
  });

  it('refuses a member without settings:manage-ticket-types with 403', async () => {
    const member = await createMember(org);
    const response = await api('PATCH', `/api/v1/ticket-types/${bug.id}`, { token: member.token, org: org.slug, body: { name: 'Mine' } });
    expect(response.status).toBe(403);
    expect((await org.call('GET', `/api/v1/ticket-types/${bug.id}`)).body.name).not.toBe('Mine');
  });
});

describe('deleting ticket types', () => {
  let org: TestOrg;
  beforeAll(async () => {
    org = await signupOrg();
  });

  it('deletes a type without tickets with 204', async () => {
    const spike = (await createType(org, { name: 'Spike' })).body;
    const response = await org.call('DELETE', `/api/v1/ticket-types/${spike.id}`);
    expect(response.status).toBe(204);
    expect(response.body).toBeUndefined();
    expect((await org.call('GET', `/api/v1/ticket-types/${spike.id}`)).status).toBe(404);
  });

  it('deletes a type naming the type its tickets move to', async () => {
    const task = await defaultTypeOf(org);
    const chore = (await createType(org, { name: 'Chore' })).body;
    const response = await org.call('DELETE', `/api/v1/ticket-types/${chore.id}?replacementTypeId=${task.id}`);
    expect(response.status).toBe(204);
    expect((await typesOf(org)).map((type) => type.id)).not.toContain(chore.id);
  });

  it('refuses to delete the default type with 409 and changes nothing', async () => {
    const before = await typesOf(org);
    const task = before.find((type) => type.isOrgDefault);
    const response = await org.call('DELETE', `/api/v1/ticket-types/${task.id}`);
    expect(response.status).toBe(409);
    expect(response.body.error.code).toBe('CONFLICT');
    expect(response.body.error.message).toMatch(/default/);
    expect(await typesOf(org)).toEqual(before);
  });

  it('requires replacementTypeId when the type has tickets', async () => {
    const epic = (await createType(org, { name: 'Epic' })).body;
    await setTicketCount(org, epic.id, 2);
    const response = await org.call('DELETE', `/api/v1/ticket-types/${epic.id}`);
    expectValidationError(response, 'replacementTypeId');
    expect((await org.call('GET', `/api/v1/ticket-types/${epic.id}`)).status).toBe(200);
  });

  it.each([
    ['the deleted type itself', (typeId: string) => typeId],
    ['an unknown type', () => 'typ_unknown'],
  ])('refuses %s as replacement with 400 and changes nothing', async (_case, replacementOf) => {
    const typeToDelete = (await createType(org, { name: `Doomed ${Math.random()}` })).body;
    const response = await org.call('DELETE', `/api/v1/ticket-types/${typeToDelete.id}?replacementTypeId=${replacementOf(typeToDelete.id)}`);
    expectValidationError(response, 'replacementTypeId');
    expect((await org.call('GET', `/api/v1/ticket-types/${typeToDelete.id}`)).status).toBe(200);
  });

  it('rejects unknown query parameters with 400', async () => {
    const task = await defaultTypeOf(org);
    expectValidationError(await org.call('DELETE', `/api/v1/ticket-types/${task.id}?force=true`), 'force');
  });

  it('answers an unknown type id with 404', async () => {
    expect((await org.call('DELETE', '/api/v1/ticket-types/typ_unknown')).status).toBe(404);
  });

  it('refuses a member without settings:manage-ticket-types with 403', async () => {
    const member = await createMember(org);
    const keep = (await createType(org, { name: 'Keep' })).body;
    const response = await api('DELETE', `/api/v1/ticket-types/${keep.id}`, { token: member.token, org: org.slug });
    expect(response.status).toBe(403);
    expect((await org.call('GET', `/api/v1/ticket-types/${keep.id}`)).status).toBe(200);
  });
});

describe('tenant isolation', () => {
  it("answers another organization's type ids with 404 and leaves them untouched", async () => {
    const [mine, theirs] = await Promise.all([signupOrg(), signupOrg()]);
    const theirType = (await createType(theirs, { name: 'Private' })).body;
    expect((await mine.call('GET', `/api/v1/ticket-types/${theirType.id}`)).status).toBe(404);
    expect((await mine.call('GET', `/api/v1/ticket-types/${theirType.id}/ticket-count`)).status).toBe(404);
    expect((await mine.call('PATCH', `/api/v1/ticket-types/${theirType.id}`, { body: { name: 'Taken over' } })).status).toBe(404);
    expect((await mine.call('DELETE', `/api/v1/ticket-types/${theirType.id}`)).status).toBe(404);
    expect((await theirs.call('GET', `/api/v1/ticket-types/${theirType.id}`)).body).toEqual(theirType);
  });

  it("refuses another organization's type as replacement with 400", async () => {
    const [mine, theirs] = await Promise.all([signupOrg(), signupOrg()]);
    const myType = (await createType(mine, { name: 'Mine' })).body;
    const theirDefault = await defaultTypeOf(theirs);
    const response = await mine.call('DELETE', `/api/v1/ticket-types/${myType.id}?replacementTypeId=${theirDefault.id}`);
    expectValidationError(response, 'replacementTypeId');
  });

  it("serves each organization its own default type", async () => {
    const [mine, theirs] = await Promise.all([signupOrg(), signupOrg()]);
    await createType(theirs, { name: 'Their default', isOrgDefault: true });
    expect((await defaultTypeOf(mine)).name).toBe('Task');
    expect((await defaultTypeOf(theirs)).name).toBe('Their default');
  });
});

describe('unique ticket type names under concurrency', () => {
  const CASINGS = ['Incident', 'INCIDENT', 'incident', 'InCiDeNt', 'iNCIDENT', 'INCIdent', 'inciDENT', 'Incident'];

  it('accepts exactly one of 8 simultaneous creates of one name in different cases', async () => {
    const org = await signupOrg();
    const responses = await Promise.all(CASINGS.map((name) => createType(org, { name })));
    expect(responses.filter((response) => response.status === 201)).toHaveLength(1);
    for (const refused of responses.filter((response) => response.status !== 201)) {
      expect(refused.status).toBe(409);
      expect(refused.body.error.code).toBe('CONFLICT');
    }
    expect((await typesOf(org)).filter((type) => type.name.toLowerCase() === 'incident')).toHaveLength(1);
  });

  it('lets at most one of two simultaneous renames to the same name win', async () => {
    const org = await signupOrg();
    const [first, second] = await Promise.all([createType(org, { name: 'First' }), createType(org, { name: 'Second' })]);
    const responses = await Promise.all([
      org.call('PATCH', `/api/v1/ticket-types/${first.body.id}`, { body: { name: 'Shared' } }),
      org.call('PATCH', `/api/v1/ticket-types/${second.body.id}`, { body: { name: 'SHARED' } }),
    ]);
    expect(responses.filter((response) => response.status === 200).length).toBeLessThanOrEqual(1);
    for (const refused of responses.filter((response) => response.status !== 200)) expect(refused.status).toBe(409);
    expect((await typesOf(org)).filter((type) => type.name.toLowerCase() === 'shared').length).toBeLessThanOrEqual(1);
  });

  it('refuses a name whose guard is held even when the Query does not show its holder', async () => {
    const org = await signupOrg();
    // What a concurrent create leaves between its transaction and this request's Query.
    await db().entities.uniqueName.create({ orgId: org.orgId, scope: 'ticketType', name: 'racing', ownerId: 'typ_concurrent' }).go();
    const response = await createType(org, { name: 'Racing' });
    expect(response.status).toBe(409);
    expect(response.body.error.details).toEqual({ field: 'name' });
    expect((await typesOf(org)).map((type) => type.name)).not.toContain('Racing');
  });

  it('guards the default type from sign-up', async () => {
    const org = await signupOrg();
    const guard = await db().entities.uniqueName.get({ orgId: org.orgId, scope: 'ticketType', name: 'task' }).go({ consistent: true });
    expect(guard.data?.ownerId).toBe((await defaultTypeOf(org)).id);
    expect((await createType(org, { name: 'TASK' })).status).toBe(409);
  });

  it('frees a deleted type’s name for reuse', async () => {
    const org = await signupOrg();
    const doomed = await createType(org, { name: 'Spike' });
    expect((await org.call('DELETE', `/api/v1/ticket-types/${doomed.body.id}`)).status).toBe(204);
    const again = await createType(org, { name: 'SPIKE' });
    expect(again.status).toBe(201);
  });

  it('frees a renamed type’s old name and guards the new one, in the same round trips', async () => {
    const org = await signupOrg();
    const task = await defaultTypeOf(org);
    const rename = await org.call('PATCH', `/api/v1/ticket-types/${task.id}`, { body: { name: 'Job' } });
    expect(rename.status).toBe(200);
    expect((await createType(org, { name: 'task' })).status).toBe(201);
    expect((await createType(org, { name: 'JOB' })).status).toBe(409);
  });
});
