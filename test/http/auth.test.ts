import { describe, expect, it } from 'vitest';
import { api, signupOrg, uniqueSlug, useInProcess } from '../support/api.js';

// In process, through the same route table and handlers (test/support/api.ts).
useInProcess();

describe('sign-up', () => {
  it('creates an organization on FREE with its administrator and signs them in', async () => {
    const slug = uniqueSlug('signup');
    const response = await api('POST', '/api/v1/auth/signup', {
      body: { organizationName: 'Acme', slug, name: 'Ada', email: 'Ada@Example.test', password: 'correct horse battery' },
    });
    expect(response.status).toBe(201);
    expect(response.body.organization).toMatchObject({ slug, name: 'Acme', plan: 'FREE' });
    expect(response.body.organization.id).toMatch(/^org_/);
    expect(response.body.user).toMatchObject({ name: 'Ada', email: 'ada@example.test', role: 'ADMIN' });
    expect(response.body.user).not.toHaveProperty('passwordHash');
    const me = await api('GET', '/api/v1/users/me', { token: response.body.token, org: slug });
    expect(me.status).toBe(200);
    expect(me.body.id).toBe(response.body.user.id);
  });

  it('seeds the default statuses, ticket type and system permission groups', async () => {
    const org = await signupOrg();
    const groups = await org.call('GET', '/api/v1/permission-groups');
    expect(groups.body.data.map((group: any) => group.name).sort()).toEqual(['Administrators', 'Agents', 'Customers', 'Members']);
    expect(groups.body.data.every((group: any) => group.isSystem)).toBe(true);
  });

  it('refuses a slug that is taken with 409 and writes nothing', async () => {
    const org = await signupOrg();
    const again = await api('POST', '/api/v1/auth/signup', {
      body: { organizationName: 'Other', slug: org.slug, name: 'Eve', email: 'eve@other.test', password: 'correct horse battery' },
    });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('CONFLICT');
    const login = await api('POST', '/api/v1/auth/login', { org: org.slug, body: { email: 'eve@other.test', password: 'correct horse battery' } });
    expect(login.status).toBe(401);
  });

  it.each([
    [{ slug: 'A b' }, 'slug'],
    [{ email: 'not-an-email' }, 'email'],
    [{ password: 'short' }, 'password'],
    [{ organizationName: 'x'.repeat(101) }, 'organizationName'],
    [{ extra: true }, 'extra'],
  ])('rejects invalid input %o with 400 naming %s', async (override, field) => {
    const response = await api('POST', '/api/v1/auth/signup', {
      body: { organizationName: 'Acme', slug: uniqueSlug('bad'), name: 'Ada', email: 'ada@acme.test', password: 'correct horse battery', ...override },
    });
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('VALIDATION_ERROR');
    expect(response.body.error.details.issues.map((issue: any) => issue.path).join(' ')).toContain(field);
    expect(response.body.error.requestId).toBeTruthy();
  });

  it('rejects malformed JSON with 400', async () => {
    const response = await api('POST', '/api/v1/auth/signup', { rawBody: '{"organizationName":', headers: { 'content-type': 'application/json' } });
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('VALIDATION_ERROR');
  });
});

describe('login, logout and password change', () => {
  it('logs in with e-mail and password of the addressed organization', async () => {
    const org = await signupOrg({ email: 'login@example.test' });
    const response = await api('POST', '/api/v1/auth/login', { org: org.slug, body: { email: 'LOGIN@example.test', password: 'correct horse battery' } });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ expiresIn: expect.any(Number), user: { id: org.adminId } });
  });

  it('answers a wrong password and an unknown e-mail with the same 401 INVALID_CREDENTIALS', async () => {
    const org = await signupOrg();
    const wrongPassword = await api('POST', '/api/v1/auth/login', { org: org.slug, body: { email: `admin@${org.slug}.test`, password: 'nope nope nope' } });
    const unknownEmail = await api('POST', '/api/v1/auth/login', { org: org.slug, body: { email: 'nobody@example.test', password: 'nope nope nope' } });
    expect(wrongPassword.status).toBe(401);
    expect(unknownEmail.status).toBe(401);
    expect(wrongPassword.body.error.code).toBe('INVALID_CREDENTIALS');
    expect(unknownEmail.body.error.code).toBe('INVALID_CREDENTIALS');
    expect(wrongPassword.body.error.message).toBe(unknownEmail.body.error.message);
  });

  it('refuses to log into another organization with valid credentials of the first', async () => {
    const first = await signupOrg({ email: 'shared@example.test' });
    const second = await signupOrg();
    const response = await api('POST', '/api/v1/auth/login', { org: second.slug, body: { email: 'shared@example.test', password: 'correct horse battery' } });
    expect(response.status).toBe(401);
    expect(first.slug).not.toBe(second.slug);
  });

  it('revokes the session on logout', async () => {
    const org = await signupOrg();
    const login = await api('POST', '/api/v1/auth/login', { org: org.slug, body: { email: `admin@${org.slug}.test`, password: 'correct horse battery' } });
    const token = login.body.token;
    expect((await api('POST', '/api/v1/auth/logout', { token, org: org.slug })).status).toBe(204);
    const after = await api('GET', '/api/v1/users/me', { token, org: org.slug });
    expect(after.status).toBe(401);
    // Other sessions of the same user live on.
    expect((await org.call('GET', '/api/v1/users/me')).status).toBe(200);
  });

  it('ends every earlier session when the password changes and returns a new one', async () => {
    const org = await signupOrg();
    const change = await org.call('POST', '/api/v1/auth/password', {
      body: { currentPassword: 'correct horse battery', newPassword: 'a brand new password' },
    });
    expect(change.status).toBe(200);
    expect((await org.call('GET', '/api/v1/users/me')).status).toBe(401);
    expect((await api('GET', '/api/v1/users/me', { token: change.body.token, org: org.slug })).status).toBe(200);
    const oldLogin = await api('POST', '/api/v1/auth/login', { org: org.slug, body: { email: `admin@${org.slug}.test`, password: 'correct horse battery' } });
    expect(oldLogin.status).toBe(401);
    const newLogin = await api('POST', '/api/v1/auth/login', { org: org.slug, body: { email: `admin@${org.slug}.test`, password: 'a brand new password' } });
    expect(newLogin.status).toBe(200);
  });

  it('refuses a password change with a wrong current password and changes nothing', async () => {
    const org = await signupOrg();
    const change = await org.call('POST', '/api/v1/auth/password', { body: { currentPassword: 'wrong password', newPassword: 'a brand new password' } });
    expect(change.status).toBe(400);
    expect(change.body.error.details.issues[0].path).toBe('currentPassword');
    expect((await org.call('GET', '/api/v1/users/me')).status).toBe(200);
  });
});

describe('authentication failures', () => {
  it('answers a missing credential with 401 and WWW-Authenticate: Bearer', async () => {
    const org = await signupOrg();
    const response = await api('GET', '/api/v1/users/me', { org: org.slug });
    expect(response.status).toBe(401);
    expect(response.body.error.code).toBe('UNAUTHENTICATED');
    expect(response.headers.get('www-authenticate')).toMatch(/^Bearer/);
  });

  it.each([
    ['garbage', 'not-a-token'],
    ['a forged JWT', 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1c3JfMSJ9.c2lnbmF0dXJl'],
    ['a well-formed but unknown token', `wmp_${'A'.repeat(43)}01M802A2VT6W6RP59YMTP4CQFP01M802A2VXXHVH7EYQC0V648M9`],
  ])('refuses %s with 401', async (_label, token) => {
    const org = await signupOrg();
    const response = await api('GET', '/api/v1/users/me', { token, org: org.slug });
    expect(response.status).toBe(401);
  });

  it('refuses a session presented to another organization', async () => {
    const first = await signupOrg();
    const second = await signupOrg();
    const response = await api('GET', '/api/v1/users/me', { token: first.adminToken, org: second.slug });
    expect(response.status).toBe(401);
  });

  it('resolves the organization from the subdomain of the base domain', async () => {
    const org = await signupOrg();
    const response = await api('GET', '/api/v1/users/me', { token: org.adminToken, headers: { host: `${org.slug}.localhost` } });
    expect(response.status).toBe(200);
    const other = await api('GET', '/api/v1/users/me', { token: org.adminToken, headers: { host: `someone-else.localhost` } });
    expect(other.status).toBe(401);
  });

  it('answers an unknown route like API Gateway does', async () => {
    const response = await api('GET', '/api/v1/nothing-here');
    expect(response.status).toBe(404);
  });
});
