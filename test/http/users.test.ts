import { describe, expect, it } from 'vitest';
import { api, createMember, signupOrg, useInProcess } from '../support/api.js';

// In process, through the same route table and handlers (test/support/api.ts).
useInProcess();

describe('users', () => {
  it('shows the caller with their permissions and organization on GET /users/me', async () => {
    const org = await signupOrg();
    const member = await createMember(org, { name: 'Max Member' });
    const me = await api('GET', '/api/v1/users/me', { token: member.token, org: org.slug });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ id: member.id, name: 'Max Member', role: 'TEAM_MEMBER', organization: { slug: org.slug, plan: 'FREE' } });
    expect(me.body.permissions).toContain('tickets:create');
    expect(me.body.permissions).not.toContain('users:manage');
  });

  it('lets an administrator create a user who can then log in', async () => {
    const org = await signupOrg();
    const created = await org.call('POST', '/api/v1/users', {
      body: { name: 'Bea', email: 'Bea@Example.test', password: 'bea password 1', role: 'TEAM_MEMBER' },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ id: expect.stringMatching(/^usr_/), name: 'Bea', email: 'bea@example.test', role: 'TEAM_MEMBER', isActive: true });
    expect(created.body).not.toHaveProperty('passwordHash');
    const login = await api('POST', '/api/v1/auth/login', { org: org.slug, body: { email: 'bea@example.test', password: 'bea password 1' } });
    expect(login.status).toBe(200);
  });

  it('puts a new member into the Members system group unless groups are given', async () => {
    const org = await signupOrg();
    const groups = (await org.call('GET', '/api/v1/permission-groups')).body.data;
    const members = groups.find((group: any) => group.name === 'Members');
    const created = await org.call('POST', '/api/v1/users', { body: { name: 'Cy', email: 'cy@example.test', password: 'cy password 12', role: 'TEAM_MEMBER' } });
    expect(created.body.permissionGroupIds).toEqual([members.id]);
  });

  it('refuses a duplicate e-mail with 409 and leaves the first user untouched', async () => {
    const org = await signupOrg();
    await createMember(org, { email: 'dup@example.test', name: 'First' });
    const again = await org.call('POST', '/api/v1/users', { body: { name: 'Second', email: 'DUP@example.test', password: 'second pass 1', role: 'TEAM_MEMBER' } });
    expect(again.status).toBe(409);
    const list = await org.call('GET', '/api/v1/users?search=dup@');
    expect(list.body.data.map((user: any) => user.name)).toEqual(['First']);
  });

  it.each([
    [{ role: 'OWNER' }, 'role'],
    [{ email: 'nope' }, 'email'],
    [{ name: '' }, 'name'],
    [{ password: 'short' }, 'password'],
    [{ permissionGroupIds: ['grp_unknown'] }, 'permissionGroupIds.0'],
    [{ role: 'CUSTOMER' }, 'customerId'],
    [{ customerId: 'cst_x' }, 'customerId'],
  ])('rejects %o with 400 naming %s', async (override, field) => {
    const org = await signupOrg();
    const response = await org.call('POST', '/api/v1/users', {
      body: { name: 'X', email: `x${Math.random()}@example.test`, password: 'long enough 1', role: 'TEAM_MEMBER', ...override },
    });
    expect(response.status).toBe(400);
    expect(response.body.error.details.issues[0].path).toBe(field);
  });

  it('refuses user management to a member without users:manage', async () => {
    const org = await signupOrg();
    const member = await createMember(org);
    const response = await api('POST', '/api/v1/users', {
      token: member.token,
      org: org.slug,
      body: { name: 'Z', email: 'z@example.test', password: 'long enough 1', role: 'ADMIN' },
    });
    expect(response.status).toBe(403);
    expect(response.body.error.code).toBe('FORBIDDEN');
    const patch = await api('PATCH', `/api/v1/users/${member.id}`, { token: member.token, org: org.slug, body: { role: 'ADMIN' } });
    expect(patch.status).toBe(403);
  });

  it('lists users paginated with an exact total and searches by name or e-mail', async () => {
    const org = await signupOrg();
    for (const name of ['Alpha', 'Bravo', 'Charlie']) await createMember(org, { name });
    const page = await org.call('GET', '/api/v1/users?limit=2&page=2');
    expect(page.status).toBe(200);
    expect(page.body).toMatchObject({ total: 4, page: 2, pageSize: 2, totalPages: 2 });
    expect(page.body.data).toHaveLength(2);
    const search = await org.call('GET', '/api/v1/users?search=brav');
    expect(search.body.data.map((user: any) => user.name)).toEqual(['Bravo']);
    const clamped = await org.call('GET', '/api/v1/users?limit=1000');
    expect(clamped.body.pageSize).toBe(100);
  });

  it('deactivates a user, whose sessions then stop working', async () => {
    const org = await signupOrg();
    const member = await createMember(org);
    const patched = await org.call('PATCH', `/api/v1/users/${member.id}`, { body: { isActive: false, name: 'Gone' } });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ isActive: false, name: 'Gone' });
    expect((await api('GET', '/api/v1/users/me', { token: member.token, org: org.slug })).status).toBe(401);
  });

  it('takes effect at once when a user is promoted to administrator', async () => {
    const org = await signupOrg();
    const member = await createMember(org);
    const groups = (await org.call('GET', '/api/v1/permission-groups')).body.data;
    const admins = groups.find((group: any) => group.name === 'Administrators');
    await org.call('PATCH', `/api/v1/users/${member.id}`, { body: { role: 'ADMIN', permissionGroupIds: [admins.id] } });
    const me = await api('GET', '/api/v1/users/me', { token: member.token, org: org.slug });
    expect(me.body.permissions).toEqual(['*']);
  });

  it('does not let an administrator deactivate themselves', async () => {
    const org = await signupOrg();
    const response = await org.call('PATCH', `/api/v1/users/${org.adminId}`, { body: { isActive: false } });
    expect(response.status).toBe(403);
  });

  it('answers 404 for unknown users and for users of another organization', async () => {
    const org = await signupOrg();
    const other = await signupOrg();
    expect((await org.call('GET', '/api/v1/users/usr_01ABCDEFGHJKMNPQRSTVWXYZ00')).status).toBe(404);
    expect((await org.call('GET', `/api/v1/users/${other.adminId}`)).status).toBe(404);
    expect((await org.call('PATCH', `/api/v1/users/${other.adminId}`, { body: { name: 'Hijack' } })).status).toBe(404);
    const single = await org.call('GET', `/api/v1/users/${org.adminId}`);
    expect(single.status).toBe(200);
  });
});
