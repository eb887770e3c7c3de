import { beforeAll, describe, expect, it } from 'vitest';
import { db } from '../../lib/db/service.js';
import { api, createMember, signupOrg, type TestOrg, expectValidationError, useInProcess } from '../support/api.js';

// In process, through the same route table and handlers (test/support/api.ts).
useInProcess();

const STATUS_FIELDS = ['id', 'key', 'name', 'color', 'category', 'order', 'isDefault', 'isFinal', 'isMandatory', 'enabledByDefault', 'createdAt', 'updatedAt'];

const statusesOf = async (org: TestOrg) => (await org.call('GET', '/api/v1/statuses')).body.data as any[];
const statusByKey = async (org: TestOrg, key: string) => (await statusesOf(org)).find((status) => status.key === key);
const defaultsOf = async (org: TestOrg) => (await statusesOf(org)).filter((status) => status.isDefault);

const createStatus = (org: TestOrg, body: Record<string, unknown>) =>
  org.call('POST', '/api/v1/statuses', { body: { color: '#123456', ...body } });

describe('listing and reading statuses', () => {
  let org: TestOrg;
  beforeAll(async () => {
    org = await signupOrg();
  });

  it('lists the seeded statuses in order with their keys and flags', async () => {
    const response = await org.call('GET', '/api/v1/statuses');
    expect(response.status).toBe(200);
    const statuses = response.body.data;
    expect(statuses.map((status: any) => status.key)).toEqual(['BACKLOG', 'TODO', 'IN_PROGRESS', 'IN_REVIEW', 'BLOCKED', 'DONE']);
    expect(Object.keys(statuses[0]).sort()).toEqual([...STATUS_FIELDS].sort());
    expect(statuses[0]).toMatchObject({ name: 'Backlog', category: 'PLANNING', order: 0, isDefault: true, isFinal: false, isMandatory: false, enabledByDefault: true });
    expect(statuses[5]).toMatchObject({ name: 'Done', category: 'FINAL', isFinal: true, isMandatory: true, isDefault: false });
    expect(statuses[0].id).toMatch(/^sts_/);
  });

  it('lets a member without the manage permission read statuses', async () => {
    const member = await createMember(org);
    const response = await api('GET', '/api/v1/statuses', { token: member.token, org: org.slug });
    expect(response.status).toBe(200);
    expect(response.body.data).toHaveLength(6);
  });

  it('gets one status by id', async () => {
    const done = await statusByKey(org, 'DONE');
    const response = await org.call('GET', `/api/v1/statuses/${done.id}`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual(done);
  });

  it('answers an unknown status id with 404', async () => {
    const response = await org.call('GET', '/api/v1/statuses/sts_unknown');
    expect(response.status).toBe(404);
    expect(response.body.error.code).toBe('NOT_FOUND');
  });

  it('orders statuses with the same order by name', async () => {
    const other = await signupOrg();
    await createStatus(other, { name: 'Zeta', order: 2 });
    await createStatus(other, { name: 'Alpha', order: 2 });
    const names = (await statusesOf(other)).map((status) => status.name);
    expect(names.slice(2, 5)).toEqual(['Alpha', 'In Progress', 'Zeta']);
  });
});

describe('creating statuses', () => {
  let org: TestOrg;
  beforeAll(async () => {
    org = await signupOrg();
  });

  it('creates an ACTIVE status after the last one with a key derived from the name', async () => {
    const response = await createStatus(org, { name: 'Waiting for QA', color: '#AABBCC' });
    expect(response.status).toBe(201);
    expect(Object.keys(response.body).sort()).toEqual([...STATUS_FIELDS].sort());
    expect(response.body).toMatchObject({
      key: 'WAITING_FOR_QA', name: 'Waiting for QA', color: '#AABBCC', category: 'ACTIVE', order: 6,
      isDefault: false, isFinal: false, isMandatory: false, enabledByDefault: true,
    });
    const read = await org.call('GET', `/api/v1/statuses/${response.body.id}`);
    expect(read.body).toEqual(response.body);
  });

  it('makes a FINAL status final unless told otherwise and keeps the given flags', async () => {
    const final = await createStatus(org, { name: 'Cancelled', category: 'FINAL', order: 3, isMandatory: true, enabledByDefault: false });
    expect(final.status).toBe(201);
    expect(final.body).toMatchObject({ key: 'CANCELLED', category: 'FINAL', order: 3, isFinal: true, isMandatory: true, enabledByDefault: false });
    const notFinal = await createStatus(org, { name: 'Parked', category: 'FINAL', isFinal: false });
    expect(notFinal.body).toMatchObject({ category: 'FINAL', isFinal: false });
  });

  it('adds a numeric suffix when the derived key is taken', async () => {
    const first = await createStatus(org, { name: 'In-Progress!' });
    const second = await createStatus(org, { name: 'in progress?' });
    expect(first.status).toBe(201);
    expect(first.body.key).toBe('IN_PROGRESS_2');
    expect(second.body.key).toBe('IN_PROGRESS_3');
  });

  it('refuses a name that exists in another case with 409 and writes nothing', async () => {
    const before = await statusesOf(org);
    const response = await createStatus(org, { name: 'DONE' });
    expect(response.status).toBe(409);
    expect(response.body.error.code).toBe('CONFLICT');
    expect(response.body.error.details).toEqual({ field: 'name' });
    expect(await statusesOf(org)).toEqual(before);
  });

  it.each([
    [{ name: 'x'.repeat(51) }, 'name'],
    [{ name: '   ' }, 'name'],
    [{ name: undefined }, 'name'],
    [{ color: 'red' }, 'color'],
    [{ color: '#12345' }, 'color'],
    [{ color: undefined }, 'color'],
    [{ category: 'DONE' }, 'category'],
    [{ order: -1 }, 'order'],
    [{ order: 1.5 }, 'order'],
    [{ isDefault: 'yes' }, 'isDefault'],
    [{ isFinal: 1 }, 'isFinal'],
    [{ isMandatory: 'no' }, 'isMandatory'],
    [{ enabledByDefault: null }, 'enabledByDefault'],
    [{ key: 'CUSTOM' }, 'key'],
  ])('rejects %o with 400 naming %s', async (override, field) => {
    const response = await org.call('POST', '/api/v1/statuses', { body: { name: 'Valid name', color: '#123456', ...override } });
    expectValidationError(response, field);
  });

  it('accepts a name of exactly 50 characters', async () => {
    const response = await createStatus(org, { name: 'y'.repeat(50) });
    expect(response.status).toBe(201);
  });

  it('refuses a FINAL default status with 400', async () => {
    const response = await createStatus(org, { name: 'Final default', category: 'FINAL', isDefault: true });
    expectValidationError(response, 'isDefault');
    const finalFlag = await createStatus(org, { name: 'Final flag default', isFinal: true, isDefault: true });
    expectValidationError(finalFlag, 'isDefault');
  });

  it('refuses a member without settings:manage-statuses with 403', async () => {
    const member = await createMember(org);
    const response = await api('POST', '/api/v1/statuses', { token: member.token, org: org.slug, body: { name: 'Sneaky', color: '#123456' } });
    expect(response.status).toBe(403);
    expect(response.body.error.code).toBe('FORBIDDEN');
    expect((await statusesOf(org)).some((status) => status.name === 'Sneaky')).toBe(false);
  });
});

describe('the one default status', () => {
  it('moves the default to a new status created as default, in the same request', async () => {
    const org = await signupOrg();
    const response = await createStatus(org, { name: 'Inbox', category: 'PLANNING', isDefault: true });
    expect(response.status).toBe(201);
    expect(response.body.isDefault).toBe(true);
    const defaults = await defaultsOf(org);
    expect(defaults.map((status) => status.id)).toEqual([response.body.id]);
    expect((await statusByKey(org, 'BACKLOG')).isDefault).toBe(false);
  });

  it('moves the default to a patched status and keeps exactly one', async () => {
    const org = await signupOrg();
    const todo = await statusByKey(org, 'TODO');
    const response = await org.call('PATCH', `/api/v1/statuses/${todo.id}`, { body: { isDefault: true } });
    expect(response.status).toBe(200);
    expect(response.body.isDefault).toBe(true);
    expect((await defaultsOf(org)).map((status) => status.key)).toEqual(['TODO']);
  });

  it('keeps exactly one default when two requests make different statuses the default at once', async () => {
    const org = await signupOrg();
    const [todo, review] = await Promise.all([statusByKey(org, 'TODO'), statusByKey(org, 'IN_REVIEW')]);
    const responses = await Promise.all([
      org.call('PATCH', `/api/v1/statuses/${todo.id}`, { body: { isDefault: true } }),
      org.call('PATCH', `/api/v1/statuses/${review.id}`, { body: { isDefault: true } }),
    ]);
    expect(responses.map((response) => response.status)).toContain(200);
    expect(responses.every((response) => response.status === 200 || response.status === 409)).toBe(true);
    expect(await defaultsOf(org)).toHaveLength(1);
  });

  it('refuses to unset the default without naming another with 400', async () => {
    const org = await signupOrg();
    const backlog = await statusByKey(org, 'BACKLOG');
    const response = await org.call('PATCH', `/api/v1/statuses/${backlog.id}`, { body: { isDefault: false } });
    expectValidationError(response, 'isDefault');
    expect((await defaultsOf(org)).map((status) => status.key)).toEqual(['BACKLOG']);
  });

  it('refuses to make a FINAL status the default, or to move the default into FINAL', async () => {
    const org = await signupOrg();
    const done = await statusByKey(org, 'DONE');
    const backlog = await statusByKey(org, 'BACKLOG');
    expectValidationError(await org.call('PATCH', `/api/v1/statuses/${done.id}`, { body: { isDefault: true } }), 'isDefault');
    expectValidationError(await org.call('PATCH', `/api/v1/statuses/${backlog.id}`, { body: { category: 'FINAL' } }), 'category');
    expect((await defaultsOf(org)).map((status) => status.key)).toEqual(['BACKLOG']);
    expect((await statusByKey(org, 'BACKLOG')).category).toBe('PLANNING');
  });
});

describe('updating statuses', () => {
  let org: TestOrg;
  beforeAll(async () => {
    org = await signupOrg();
  });

  it('changes name, color, category and order and keeps the key', async () => {
    const review = await statusByKey(org, 'IN_REVIEW');
    const response = await org.call('PATCH', `/api/v1/statuses/${review.id}`, {
      body: { name: 'Code Review', color: '#00FF00', category: 'PLANNING', order: 9 },
    });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ id: review.id, key: 'IN_REVIEW', name: 'Code Review', color: '#00FF00', category: 'PLANNING', order: 9 });
    expect(response.body.createdAt).toBe(review.createdAt);
    expect(response.body.updatedAt >= review.updatedAt).toBe(true);
    const read = await org.call('GET', `/api/v1/statuses/${review.id}`);
    expect(read.body).toEqual(response.body);
  });

  it('re-derives isFinal when the category changes', async () => {
    const blocked = await statusByKey(org, 'BLOCKED');
    const final = await org.call('PATCH', `/api/v1/statuses/${blocked.id}`, { body: { category: 'FINAL' } });
    expect(final.body).toMatchObject({ category: 'FINAL', isFinal: true });
    const active = await org.call('PATCH', `/api/v1/statuses/${blocked.id}`, { body: { category: 'ACTIVE' } });
    expect(active.body).toMatchObject({ category: 'ACTIVE', isFinal: false });
  });

  it('allows renaming a status to another case of its own name', async () => {
    const todo = await statusByKey(org, 'TODO');
    const response = await org.call('PATCH', `/api/v1/statuses/${todo.id}`, { body: { name: 'TO DO' } });
    expect(response.status).toBe(200);
    expect(response.body.name).toBe('TO DO');
  });

  it('refuses a name another status has with 409', async () => {
    const todo = await statusByKey(org, 'TODO');
    const response = await org.call('PATCH', `/api/v1/statuses/${todo.id}`, { body: { name: 'backlog' } });
    expect(response.status).toBe(409);
    expect(response.body.error.code).toBe('CONFLICT');
    expect((await statusByKey(org, 'TODO')).name).toBe(todo.name);
  });

  it.each([
    [{ name: 'x'.repeat(51) }, 'name'],
    [{ color: '#GGGGGG' }, 'color'],
    [{ category: 'DONE' }, 'category'],
    [{ order: -3 }, 'order'],
    [{ isFinal: true }, 'isFinal'],
    [{ isMandatory: false }, 'isMandatory'],
    [{ enabledByDefault: false }, 'enabledByDefault'],
    [{ key: 'OTHER' }, 'key'],
  ])('rejects %o with 400 naming %s', async (body, field) => {
    const todo = await statusByKey(org, 'TODO');
    expectValidationError(await org.call('PATCH', `/api/v1/statuses/${todo.id}`, { body }), field);
  });

  it('answers an unknown status id with 404', async () => {
    const response = await org.call('PATCH', '/api/v1/statuses/sts_unknown', { body: { name: 'Nope' } });
    expect(response.status).toBe(404);
  });

  it('refuses a member without settings:manage-statuses with 403', async () => {
    const member = await createMember(org);
    const todo = await statusByKey(org, 'TODO');
    const response = await api('PATCH', `/api/v1/statuses/${todo.id}`, { token: member.token, org: org.slug, body: { name: 'Mine' } });
    expect(response.status).toBe(403);
    expect((await statusByKey(org, 'TODO')).name).toBe(todo.name);
  });
});

describe('deleting statuses', () => {
  let org: TestOrg;
  beforeAll(async () => {
    org = await signupOrg();
  });

  it('deletes a status with 204 and removes it from the list', async () => {
    const blocked = await statusByKey(org, 'BLOCKED');
    const response = await org.call('DELETE', `/api/v1/statuses/${blocked.id}`);
    expect(response.status).toBe(204);
    expect(response.body).toBeUndefined();
    expect((await org.call('GET', `/api/v1/statuses/${blocked.id}`)).status).toBe(404);
    expect((await statusesOf(org)).map((status) => status.key)).not.toContain('BLOCKED');
  });

  it('refuses to delete a mandatory status with 409 and changes nothing', async () => {
    const before = await statusesOf(org);
    const done = before.find((status) => status.key === 'DONE');
    const response = await org.call('DELETE', `/api/v1/statuses/${done.id}`);
    expect(response.status).toBe(409);
    expect(response.body.error.code).toBe('CONFLICT');
    expect(response.body.error.message).toMatch(/mandatory/);
    expect(await statusesOf(org)).toEqual(before);
  });

  it('refuses to delete the default status with 409 and changes nothing', async () => {
    const before = await statusesOf(org);
    const backlog = before.find((status) => status.isDefault);
    const response = await org.call('DELETE', `/api/v1/statuses/${backlog.id}`);
    expect(response.status).toBe(409);
    expect(response.body.error.message).toMatch(/default/);
    expect(await statusesOf(org)).toEqual(before);
  });

  it('answers an unknown status id with 404', async () => {
    expect((await org.call('DELETE', '/api/v1/statuses/sts_unknown')).status).toBe(404);
  });

  it('refuses a member without settings:manage-statuses with 403', async () => {
    const member = await createMember(org);
    const todo = await statusByKey(org, 'TODO');
    const response = await api('DELETE', `/api/v1/statuses/${todo.id}`, { token: member.token, org: org.slug });
    expect(response.status).toBe(403);
    expect(await statusByKey(org, 'TODO')).toEqual(todo);
  });
});

describe('reordering statuses', () => {
  it('assigns order 0..n-1 in the given sequence in one transaction', async () => {
    const org = await signupOrg();
    const ids = (await statusesOf(org)).map((status) => status.id);
    const reversed = [...ids].reverse();
    const response = await org.call('POST', '/api/v1/statuses/reorder', { body: { statusIds: reversed } });
    expect(response.status).toBe(200);
    expect(response.body.data.map((status: any) => status.id)).toEqual(reversed);
    expect(response.body.data.map((status: any) => status.order)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(Object.keys(response.body.data[0]).sort()).toEqual([...STATUS_FIELDS].sort());
    expect((await statusesOf(org)).map((status) => status.id)).toEqual(reversed);
  });

  it('writes nothing when the order is already 0..n-1 in the given sequence', async () => {
    const org = await signupOrg();
    const before = await statusesOf(org);
    const response = await org.call('POST', '/api/v1/statuses/reorder', { body: { statusIds: before.map((status) => status.id) } });
    expect(response.status).toBe(200);
    expect(response.body.data).toEqual(before);
  });

  it('normalises gaps in the order even when the sequence is unchanged', async () => {
    const org = await signupOrg();
    const created = await createStatus(org, { name: 'Late', order: 40 });
    const ids = (await statusesOf(org)).map((status) => status.id);
    const response = await org.call('POST', '/api/v1/statuses/reorder', { body: { statusIds: ids } });
    expect(response.status).toBe(200);
    expect(response.body.data.find((status: any) => status.id === created.body.id).order).toBe(6);
  });

  it.each([
    ['a missing status', (ids: string[]) => ids.slice(1), 'statusIds'],
    ['a duplicate', (ids: string[]) => [...ids.slice(0, 5), ids[0]!, ids[5]!], 'statusIds.5'],
    ['an unknown id', (ids: string[]) => [...ids, 'sts_unknown'], 'statusIds.6'],
  ])('refuses a list with %s with 400 and changes nothing', async (_case, mutate, field) => {
    const org = await signupOrg();
    const before = await statusesOf(org);
    const response = await org.call('POST', '/api/v1/statuses/reorder', { body: { statusIds: mutate([...before].reverse().map((status) => status.id)) } });
    expectValidationError(response, field);
    expect(await statusesOf(org)).toEqual(before);
  });

  it.each([
    [{}, 'statusIds'],
    [{ statusIds: [] }, 'statusIds'],
    [{ statusIds: 'sts_1' }, 'statusIds'],
    [{ statusIds: [1] }, 'statusIds.0'],
    [{ statusIds: ['sts_1'], extra: true }, 'extra'],
  ])('rejects the body %o with 400 naming %s', async (body, field) => {
    const org = await signupOrg();
    expectValidationError(await org.call('POST', '/api/v1/statuses/reorder', { body }), field);
  });

  it('refuses a member without settings:manage-statuses with 403', async () => {
    const org = await signupOrg();
    const member = await createMember(org);
    const ids = (await statusesOf(org)).map((status) => status.id).reverse();
    const response = await api('POST', '/api/v1/statuses/reorder', { token: member.token, org: org.slug, body: { statusIds: ids } });
    expect(response.status).toBe(403);
    expect((await statusesOf(org)).map((status) => status.id)).toEqual([...ids].reverse());
  });
});

describe('tenant isolation', () => {
  it("answers another organization's status ids with 404 and leaves them untouched", async () => {
    const [mine, theirs] = await Promise.all([signupOrg(), signupOrg()]);
    const theirStatus = await statusByKey(theirs, 'TODO');
    expect((await mine.call('GET', `/api/v1/statuses/${theirStatus.id}`)).status).toBe(404);
    expect((await mine.call('PATCH', `/api/v1/statuses/${theirStatus.id}`, { body: { name: 'Taken over' } })).status).toBe(404);
    expect((await mine.call('DELETE', `/api/v1/statuses/${theirStatus.id}`)).status).toBe(404);
    expect(await statusByKey(theirs, 'TODO')).toEqual(theirStatus);
  });

  it("refuses another organization's ids in a reorder with 400", async () => {
    const [mine, theirs] = await Promise.all([signupOrg(), signupOrg()]);
    const myIds = (await statusesOf(mine)).map((status) => status.id);
    const theirIds = (await statusesOf(theirs)).map((status) => status.id);
    const response = await mine.call('POST', '/api/v1/statuses/reorder', { body: { statusIds: [...myIds.slice(1), theirIds[0]] } });
    expectValidationError(response, 'statusIds.5');
  });

  it("lists only the caller's organization's statuses", async () => {
    const [mine, theirs] = await Promise.all([signupOrg(), signupOrg()]);
    await createStatus(theirs, { name: 'Theirs only' });
    expect((await statusesOf(mine)).map((status) => status.name)).not.toContain('Theirs only');
  });
});

describe('unique status names under concurrency', () => {
  const CASINGS = ['Triage', 'TRIAGE', 'triage', 'TrIaGe', 'tRIAGE', 'TRIage', 'triAGE', 'Triage'];

  it('accepts exactly one of 8 simultaneous creates of one name in different cases', async () => {
    const org = await signupOrg();
    const responses = await Promise.all(CASINGS.map((name) => createStatus(org, { name })));
    expect(responses.filter((response) => response.status === 201)).toHaveLength(1);
    for (const refused of responses.filter((response) => response.status !== 201)) {
      expect(refused.status).toBe(409);
      expect(refused.body.error.code).toBe('CONFLICT');
    }
    const triage = (await statusesOf(org)).filter((status) => status.name.toLowerCase() === 'triage');
    expect(triage).toHaveLength(1);
    expect(triage[0].key).toBe('TRIAGE');
  });

  it('lets at most one of two simultaneous renames to the same name win', async () => {
    const org = await signupOrg();
    const [first, second] = await Promise.all([createStatus(org, { name: 'First' }), createStatus(org, { name: 'Second' })]);
    const responses = await Promise.all([
      org.call('PATCH', `/api/v1/statuses/${first.body.id}`, { body: { name: 'Shared' } }),
      org.call('PATCH', `/api/v1/statuses/${second.body.id}`, { body: { name: 'SHARED' } }),
    ]);
    expect(responses.filter((response) => response.status === 200).length).toBeLessThanOrEqual(1);
    for (const refused of responses.filter((response) => response.status !== 200)) expect(refused.status).toBe(409);
    expect((await statusesOf(org)).filter((status) => status.name.toLowerCase() === 'shared').length).toBeLessThanOrEqual(1);
  });

  it('refuses a name whose guard is held even when the Query does not show its holder', async () => {
    const org = await signupOrg();
    // What a concurrent create leaves between its transaction and this request's Query.
    await db().entities.uniqueName.create({ orgId: org.orgId, scope: 'status', name: 'racing', ownerId: 'sts_concurrent' }).go();
    const response = await createStatus(org, { name: 'Racing' });
    expect(response.status).toBe(409);
    expect(response.body.error.details).toEqual({ field: 'name' });
    expect((await statusesOf(org)).map((status) => status.name)).not.toContain('Racing');
  });

  it('refuses "done" in any case in a fresh organization (the defaults are guarded from sign-up)', async () => {
    const org = await signupOrg();
    for (const name of ['done', 'DONE', 'Done']) {
      const response = await createStatus(org, { name });
      expect(response.status).toBe(409);
      expect(response.body.error.details).toEqual({ field: 'name' });
    }
    const guard = await db().entities.uniqueName.get({ orgId: org.orgId, scope: 'status', name: 'done' }).go({ consistent: true });
    expect(guard.data?.ownerId).toBe((await statusByKey(org, 'DONE')).id);
    const key = await db().entities.uniqueName.get({ orgId: org.orgId, scope: 'statusKey', name: 'done' }).go({ consistent: true });
    expect(key.data?.ownerId).toBe((await statusByKey(org, 'DONE')).id);
  });

  it('frees a deleted status’s name and key for reuse', async () => {
    const org = await signupOrg();
    const doomed = await createStatus(org, { name: 'Parked' });
    expect((await org.call('DELETE', `/api/v1/statuses/${doomed.body.id}`)).status).toBe(204);
    const again = await createStatus(org, { name: 'PARKED' });
    expect(again.status).toBe(201);
    expect(again.body.key).toBe('PARKED');
  });

  it('frees a renamed status’s old name and guards the new one, in the same round trips', async () => {
    const org = await signupOrg();
    const blocked = await statusByKey(org, 'BLOCKED');
    const rename = await org.call('PATCH', `/api/v1/statuses/${blocked.id}`, { body: { name: 'On Hold' } });
    expect(rename.status).toBe(200);
    const reuse = await createStatus(org, { name: 'blocked' });
    expect(reuse.status).toBe(201);
    expect(reuse.body.key).toBe('BLOCKED_2');
    expect((await createStatus(org, { name: 'ON HOLD' })).status).toBe(409);
  });
});
