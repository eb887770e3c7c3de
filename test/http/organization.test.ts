import { describe, expect, inject, it } from 'vitest';
import { api, createMember, setPlan, signupOrg, useInProcess } from '../support/api.js';

// In process, through the same route table and handlers (test/support/api.ts).
useInProcess();

describe('organization settings', () => {
  it('shows name, plan, features and settings without a second read', async () => {
    const org = await signupOrg();
    const response = await org.call('GET', '/api/v1/organization');
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      id: org.orgId,
      slug: org.slug,
      plan: 'FREE',
      features: [],
      settings: { timeTrackingEnabled: true, defaultTimeFactor: 1, defaultMaxConcurrentClaims: 3 },
    });
  });

  it('lets an administrator change the name and settings', async () => {
    const org = await signupOrg();
    const response = await org.call('PATCH', '/api/v1/organization', {
      body: { name: 'Renamed Inc', settings: { timeTrackingEnabled: false, defaultTimeFactor: 1.5, defaultMaxConcurrentClaims: 5 } },
    });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ name: 'Renamed Inc', settings: { timeTrackingEnabled: false, defaultTimeFactor: 1.5, defaultMaxConcurrentClaims: 5 } });
    expect((await org.call('GET', '/api/v1/organization')).body.name).toBe('Renamed Inc');
  });

  it.each([
    [{ plan: 'PRO' }, 'plan'],
    [{ settings: { defaultTimeFactor: 11 } }, 'settings.defaultTimeFactor'],
    [{ settings: { defaultMaxConcurrentClaims: 0 } }, 'settings.defaultMaxConcurrentClaims'],
    [{ name: '' }, 'name'],
  ])('rejects %o with 400 naming %s', async (body, field) => {
    const org = await signupOrg();
    const response = await org.call('PATCH', '/api/v1/organization', { body });
    expect(response.status).toBe(400);
    expect(response.body.error.details.issues[0].path).toBe(field);
  });

  it('refuses settings changes to a member', async () => {
    const org = await signupOrg();
    const member = await createMember(org);
    const response = await api('PATCH', '/api/v1/organization', { token: member.token, org: org.slug, body: { name: 'Mine' } });
    expect(response.status).toBe(403);
  });
});

describe('platform operator', () => {
  it('sets an organization’s plan, which turns on its features', async () => {
    const org = await signupOrg();
    const response = await api('PATCH', `/api/v1/platform/organizations/${org.slug}`, { token: inject('platformAdminToken'), body: { plan: 'PRO' } });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ plan: 'PRO', features: ['AGENT_USERS', 'WEBHOOKS', 'TEAMS'] });
    expect((await org.call('GET', '/api/v1/organization')).body.plan).toBe('PRO');
  });

  it('refuses anyone without the operator token, including an organization’s administrator', async () => {
    const org = await signupOrg();
    const asAdmin = await api('PATCH', `/api/v1/platform/organizations/${org.slug}`, { token: org.adminToken, body: { plan: 'ENTERPRISE' } });
    expect(asAdmin.status).toBe(401);
    const anonymous = await api('PATCH', `/api/v1/platform/organizations/${org.slug}`, { body: { plan: 'ENTERPRISE' } });
    expect(anonymous.status).toBe(401);
    expect((await org.call('GET', '/api/v1/organization')).body.plan).toBe('FREE');
  });

  it('answers 404 for an unknown slug and 400 for an unknown plan', async () => {
    const token = inject('platformAdminToken');
    expect((await api('PATCH', '/api/v1/platform/organizations/no-such-org-here', { token, body: { plan: 'PRO' } })).status).toBe(404);
    const org = await signupOrg();
    const bad = await api('PATCH', `/api/v1/platform/organizations/${org.slug}`, { token, body: { plan: 'GOLD' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.issues[0].path).toBe('plan');
  });
});

describe('permission groups', () => {
  it('creates a group whose permissions its members hold at once', async () => {
    const org = await signupOrg();
    const group = await org.call('POST', '/api/v1/permission-groups', {
      body: { name: 'Settings keepers', color: '#00AA00', permissions: ['settings:manage-organization', 'tickets:edit'] },
    });
    expect(group.status).toBe(201);
    expect(group.body).toMatchObject({ id: expect.stringMatching(/^grp_/), type: 'INTERNAL', isSystem: false, permissions: ['settings:manage-organization', 'tickets:edit'] });
    const member = await createMember(org, { permissionGroupIds: [group.body.id] });
    const patch = await api('PATCH', '/api/v1/organization', { token: member.token, org: org.slug, body: { name: 'Allowed' } });
    expect(patch.status).toBe(200);

    // Removing the permission from the group takes it away from the member immediately.
    const update = await org.call('PATCH', `/api/v1/permission-groups/${group.body.id}`, { body: { permissions: ['tickets:edit'] } });
    expect(update.status).toBe(200);
    const denied = await api('PATCH', '/api/v1/organization', { token: member.token, org: org.slug, body: { name: 'Denied' } });
    expect(denied.status).toBe(403);
  });

  it('reads one group and lists all', async () => {
    const org = await signupOrg();
    const created = await org.call('POST', '/api/v1/permission-groups', { body: { name: 'Readers', color: '#000000', permissions: [] } });
    const one = await org.call('GET', `/api/v1/permission-groups/${created.body.id}`);
    expect(one.status).toBe(200);
    expect(one.body.name).toBe('Readers');
    const all = await org.call('GET', '/api/v1/permission-groups');
    expect(all.body.data).toHaveLength(5);
  });

  it.each([
    [{ permissions: ['tickets:fly'] }, 'permissions.0'],
    [{ color: 'green' }, 'color'],
    [{ type: 'ROBOT' }, 'type'],
    [{ name: 'x'.repeat(101) }, 'name'],
  ])('rejects %o with 400 naming %s', async (override, field) => {
    const org = await signupOrg();
    const response = await org.call('POST', '/api/v1/permission-groups', { body: { name: 'G', color: '#000000', permissions: [], ...override } });
    expect(response.status).toBe(400);
    expect(response.body.error.details.issues[0].path).toBe(field);
  });

  it('protects system groups: no delete, and Administrators keep every permission', async () => {
    const org = await signupOrg();
    const groups = (await org.call('GET', '/api/v1/permission-groups')).body.data;
    const admins = groups.find((group: any) => group.name === 'Administrators');
    const members = groups.find((group: any) => group.name === 'Members');
    expect((await org.call('DELETE', `/api/v1/permission-groups/${members.id}`)).status).toBe(403);
    expect((await org.call('PATCH', `/api/v1/permission-groups/${admins.id}`, { body: { permissions: [] } })).status).toBe(403);
    expect((await org.call('PATCH', `/api/v1/permission-groups/${members.id}`, { body: { name: 'People' } })).status).toBe(200);
  });

  it('refuses to delete a group that still has members, and deletes an empty one', async () => {
    const org = await signupOrg();
    const group = await org.call('POST', '/api/v1/permission-groups', { body: { name: 'Busy', color: '#000000', permissions: [] } });
    const member = await createMember(org, { permissionGroupIds: [group.body.id] });
    expect((await org.call('DELETE', `/api/v1/permission-groups/${group.body.id}`)).status).toBe(409);
    const groups = (await org.call('GET', '/api/v1/permission-groups')).body.data;
    const members = groups.find((candidate: any) => candidate.name === 'Members');
    await org.call('PATCH', `/api/v1/users/${member.id}`, { body: { permissionGroupIds: [members.id] } });
    expect((await org.call('DELETE', `/api/v1/permission-groups/${group.body.id}`)).status).toBe(204);
    expect((await org.call('GET', `/api/v1/permission-groups/${group.body.id}`)).status).toBe(404);
  });

  it('creates ten groups at the same time without a conflict, each holding its own permissions', async () => {
    const org = await signupOrg();
    const names = Array.from({ length: 10 }, (_, index) => `Parallel ${index}`);
    const created = await Promise.all(names.map((name) => org.call('POST', '/api/v1/permission-groups', { body: { name, color: '#000000', permissions: ['tickets:edit'] } })));
    expect(created.map((response) => response.status)).toEqual(names.map(() => 201));
    // Every group is in the organization's permission map: its members hold its permissions at once.
    const members = await Promise.all(created.slice(0, 3).map((group) => createMember(org, { permissionGroupIds: [group.body.id] })));
    for (const member of members) {
      expect((await api('GET', '/api/v1/users/me', { token: member.token, org: org.slug })).body.permissions).toEqual(['tickets:edit']);
    }
    // Concurrent changes and deletes of different groups do not conflict either.
    const changed = await Promise.all([
      ...created.slice(3, 6).map((group) => org.call('PATCH', `/api/v1/permission-groups/${group.body.id}`, { body: { permissions: ['boards:edit'] } })),
      ...created.slice(6).map((group) => org.call('DELETE', `/api/v1/permission-groups/${group.body.id}`)),
    ]);
    expect(changed.map((response) => response.status)).toEqual([200, 200, 200, 204, 204, 204, 204]);
    const listed = (await org.call('GET', '/api/v1/permission-groups')).body.data.filter((group: { name: string }) => group.name.startsWith('Parallel'));
    expect(listed).toHaveLength(6);
    const moved = await createMember(org, { permissionGroupIds: [created[4]!.body.id] });
    expect((await api('GET', '/api/v1/users/me', { token: moved.token, org: org.slug })).body.permissions).toEqual(['boards:edit']);
  });

  it('refuses group management to a member and hides other organizations’ groups', async () => {
    const org = await signupOrg();
    const other = await signupOrg();
    const member = await createMember(org);
    expect((await api('POST', '/api/v1/permission-groups', { token: member.token, org: org.slug, body: { name: 'Mine', color: '#000000', permissions: [] } })).status).toBe(403);
    const foreign = (await other.call('GET', '/api/v1/permission-groups')).body.data[0];
    expect((await org.call('GET', `/api/v1/permission-groups/${foreign.id}`)).status).toBe(404);
    expect((await org.call('PATCH', `/api/v1/permission-groups/${foreign.id}`, { body: { name: 'x' } })).status).toBe(404);
    expect((await org.call('DELETE', `/api/v1/permission-groups/${foreign.id}`)).status).toBe(404);
  });

  it('takes a plan’s features away when the plan is lowered again', async () => {
    const org = await signupOrg();
    await setPlan(org.slug, 'PRO');
    await setPlan(org.slug, 'FREE');
    expect((await org.call('GET', '/api/v1/organization')).body.features).toEqual([]);
  });
});
