import { describe, expect, it } from 'vitest';
import { createMember, setPlan, signupOrg, type TestOrg, useInProcess } from '../support/api.js';
import { createMemberWith } from '../support/factories.js';

// In process, through the same route table and handlers (test/support/api.ts).
useInProcess();

async function systemGroup(org: TestOrg, name: string): Promise<{ id: string; permissions: string[] }> {
  const groups = (await org.call('GET', '/api/v1/permission-groups')).body.data as { id: string; name: string; permissions: string[] }[];
  return groups.find((group) => group.name === name)!;
}

function expectForbidden(response: { status: number; body: any }) {
  expect(response.status).toBe(403);
  expect(response.body.error.code).toBe('FORBIDDEN');
}

describe('grants: no one grants what they do not hold (users)', () => {
  it('refuses a users:manage holder making themselves ADMIN, and changes nothing', async () => {
    const org = await signupOrg();
    const manager = await createMemberWith(org, ['users:manage']);
    const refused = await manager.call('PATCH', `/api/v1/users/${manager.id}`, { role: 'ADMIN' });
    expectForbidden(refused);
    expect(refused.body.error.details).toEqual({ requiredRole: 'ADMIN' });
    expect((await org.call('GET', `/api/v1/users/${manager.id}`)).body.role).toBe('TEAM_MEMBER');
    expect((await manager.call('GET', '/api/v1/users/me')).body.permissions).toEqual(['users:manage']);
  });

  it('refuses a users:manage holder putting themselves in the Administrators group', async () => {
    const org = await signupOrg();
    const manager = await createMemberWith(org, ['users:manage']);
    const administrators = await systemGroup(org, 'Administrators');
    const refused = await manager.call('PATCH', `/api/v1/users/${manager.id}`, { permissionGroupIds: [manager.groupId, administrators.id] });
    expectForbidden(refused);
    expect(refused.body.error.details.requiredRole).toBe('ADMIN');
    expect((await org.call('GET', `/api/v1/users/${manager.id}`)).body.permissionGroupIds).toEqual([manager.groupId]);
  });

  it('refuses a users:manage holder creating an administrator', async () => {
    const org = await signupOrg();
    const manager = await createMemberWith(org, ['users:manage']);
    const refused = await manager.call('POST', '/api/v1/users', { name: 'Mallory', email: 'mallory@example.test', password: 'mallory pass 1', role: 'ADMIN' });
    expectForbidden(refused);
    const users = (await org.call('GET', '/api/v1/users?search=mallory')).body;
    expect(users.total).toBe(0);
  });

  it('refuses assigning a group that grants permissions the caller lacks, naming them', async () => {
    const org = await signupOrg();
    const manager = await createMemberWith(org, ['users:manage', 'tickets:create']);
    const strong = await org.call('POST', '/api/v1/permission-groups', { body: { name: 'Strong', color: '#654321', permissions: ['tickets:create', 'boards:delete', 'agents:manage'] } });
    // Into another user…
    const member = await createMember(org);
    const onOther = await manager.call('PATCH', `/api/v1/users/${member.id}`, { permissionGroupIds: [strong.body.id] });
    expectForbidden(onOther);
    expect(onOther.body.error.details.missing).toEqual(['agents:manage', 'boards:delete']);
    // …into themselves…
    expectForbidden(await manager.call('PATCH', `/api/v1/users/${manager.id}`, { permissionGroupIds: [manager.groupId, strong.body.id] }));
    // …or into a new user; the default Members group counts too.
    const created = await manager.call('POST', '/api/v1/users', { name: 'Nia', email: 'nia@example.test', password: 'nia password 1', role: 'TEAM_MEMBER', permissionGroupIds: [strong.body.id] });
    expectForbidden(created);
    const withDefaults = await manager.call('POST', '/api/v1/users', { name: 'Nia', email: 'nia@example.test', password: 'nia password 1', role: 'TEAM_MEMBER' });
    expectForbidden(withDefaults);
    expect(withDefaults.body.error.details.missing).toContain('boards:create');
    expect((await org.call('GET', '/api/v1/users?search=nia')).body.total).toBe(0);
    expect((await org.call('GET', `/api/v1/users/${member.id}`)).body.permissionGroupIds).not.toContain(strong.body.id);
  });

  it('lets a users:manage holder assign groups whose permissions they hold, and keep groups granted before', async () => {
    const org = await signupOrg();
    const manager = await createMemberWith(org, ['users:manage', 'tickets:create', 'tickets:edit']);
    const editors = await org.call('POST', '/api/v1/permission-groups', { body: { name: 'Editors', color: '#654321', permissions: ['tickets:edit'] } });
    const created = await manager.call('POST', '/api/v1/users', { name: 'Oz', email: 'oz@example.test', password: 'oz password 12', role: 'TEAM_MEMBER', permissionGroupIds: [editors.body.id] });
    expect(created.status).toBe(201);
    // An administrator adds a strong group; the manager may still rename the user and drop the weak group.
    const strong = await org.call('POST', '/api/v1/permission-groups', { body: { name: 'Strong', color: '#654321', permissions: ['boards:delete'] } });
    expect((await org.call('PATCH', `/api/v1/users/${created.body.id}`, { body: { permissionGroupIds: [editors.body.id, strong.body.id] } })).status).toBe(200);
    const kept = await manager.call('PATCH', `/api/v1/users/${created.body.id}`, { name: 'Oswald', permissionGroupIds: [strong.body.id] });
    expect(kept.status).toBe(200);
    expect(kept.body.permissionGroupIds).toEqual([strong.body.id]);
  });

  it('refuses a non-administrator changing or deactivating an administrator', async () => {
    const org = await signupOrg();
    const manager = await createMemberWith(org, ['users:manage']);
    const deactivate = await manager.call('PATCH', `/api/v1/users/${org.adminId}`, { isActive: false });
    expectForbidden(deactivate);
    expectForbidden(await manager.call('PATCH', `/api/v1/users/${org.adminId}`, { role: 'TEAM_MEMBER' }));
    expect((await org.call('GET', '/api/v1/users/me')).status).toBe(200);
  });

  it('lets an administrator create, promote and empower', async () => {
    const org = await signupOrg();
    const administrators = await systemGroup(org, 'Administrators');
    const admin = await org.call('POST', '/api/v1/users', { body: { name: 'Pia', email: 'pia@example.test', password: 'pia password 1', role: 'ADMIN' } });
    expect(admin.status).toBe(201);
    expect(admin.body.permissionGroupIds).toEqual([administrators.id]);
    const member = await createMember(org);
    expect((await org.call('PATCH', `/api/v1/users/${member.id}`, { body: { role: 'ADMIN' } })).status).toBe(200);
  });
});

describe('grants: no one grants what they do not hold (permission groups)', () => {
  it('refuses a group manager adding a permission they lack to their own group, and changes nothing', async () => {
    const org = await signupOrg();
    const manager = await createMemberWith(org, ['settings:manage-permission-groups']);
    const refused = await manager.call('PATCH', `/api/v1/permission-groups/${manager.groupId}`, { permissions: ['settings:manage-permission-groups', 'users:manage'] });
    expectForbidden(refused);
    expect(refused.body.error.details.missing).toEqual(['users:manage']);
    expect((await org.call('GET', `/api/v1/permission-groups/${manager.groupId}`)).body.permissions).toEqual(['settings:manage-permission-groups']);
    expect((await manager.call('GET', '/api/v1/users/me')).body.permissions).toEqual(['settings:manage-permission-groups']);
  });

  it('refuses a group manager creating a group with permissions they lack', async () => {
    const org = await signupOrg();
    const manager = await createMemberWith(org, ['settings:manage-permission-groups', 'tickets:edit']);
    const refused = await manager.call('POST', '/api/v1/permission-groups', { name: 'Escalate', color: '#000000', permissions: ['tickets:edit', 'agents:manage'] });
    expectForbidden(refused);
    expect(refused.body.error.details.missing).toEqual(['agents:manage']);
    const names = (await org.call('GET', '/api/v1/permission-groups')).body.data.map((group: { name: string }) => group.name);
    expect(names).not.toContain('Escalate');
    expect((await manager.call('POST', '/api/v1/permission-groups', { name: 'Editors', color: '#000000', permissions: ['tickets:edit'] })).status).toBe(201);
  });

  it('refuses a non-administrator rewriting the permissions of the system Members group', async () => {
    const org = await signupOrg();
    const manager = await createMemberWith(org, ['settings:manage-permission-groups', 'tickets:create']);
    const members = await systemGroup(org, 'Members');
    const refused = await manager.call('PATCH', `/api/v1/permission-groups/${members.id}`, { permissions: ['tickets:create'] });
    expectForbidden(refused);
    expect(refused.body.error.details.requiredRole).toBe('ADMIN');
    expect((await org.call('GET', `/api/v1/permission-groups/${members.id}`)).body.permissions).toEqual(members.permissions);
    // Renaming is no grant.
    expect((await manager.call('PATCH', `/api/v1/permission-groups/${members.id}`, { color: '#000000' })).status).toBe(200);
    // An administrator may reshape it.
    expect((await org.call('PATCH', `/api/v1/permission-groups/${members.id}`, { body: { permissions: ['tickets:create'] } })).body.permissions).toEqual(['tickets:create']);
  });

  it('lets a group manager remove permissions and add ones they hold', async () => {
    const org = await signupOrg();
    const manager = await createMemberWith(org, ['settings:manage-permission-groups', 'tickets:edit']);
    const group = await org.call('POST', '/api/v1/permission-groups', { body: { name: 'Mixed', color: '#000000', permissions: ['boards:delete'] } });
    const changed = await manager.call('PATCH', `/api/v1/permission-groups/${group.body.id}`, { permissions: ['boards:delete', 'tickets:edit'] });
    expect(changed.status).toBe(200);
    const removed = await manager.call('PATCH', `/api/v1/permission-groups/${group.body.id}`, { permissions: ['tickets:edit'] });
    expect(removed.body.permissions).toEqual(['tickets:edit']);
  });
});

describe('grants: agents', () => {
  it('refuses agents:manage creating an agent in a group that grants more than the caller holds', async () => {
    const org = await signupOrg();
    await setPlan(org.slug, 'PRO');
    const manager = await createMemberWith(org, ['agents:manage']);
    const refused = await manager.call('POST', `/api/v1/organizations/${org.orgId}/agents`, { name: 'Sneaky' });
    expectForbidden(refused);
    expect(refused.body.error.details.missing).toContain('tickets:edit');
    expect((await org.call('GET', `/api/v1/organizations/${org.orgId}/agents`)).body).toEqual([]);
  });
});
