import { describe, expect, it } from 'vitest';
import { api, createMember, createToken, signupOrg, useInProcess } from '../support/api.js';

// In process, through the same route table and handlers (test/support/api.ts).
useInProcess();

describe('personal access tokens', () => {
  it('returns the secret once on create and lists tokens without it', async () => {
    const org = await signupOrg();
    const created = await org.call('POST', '/api/v1/users/me/tokens', {
      body: { name: 'laptop', expiresInDays: 30, readOnly: false, denyDelete: true, clientLabel: 'Cursor' },
    });
    expect(created.status).toBe(201);
    expect(created.body.token).toMatch(/^wmp_/);
    expect(created.body).toMatchObject({ name: 'laptop', readOnly: false, denyDelete: true, clientLabel: 'Cursor', allowedBoardIds: [] });
    expect(created.body.tokenPrefix).toBe(created.body.token.slice(0, 12));
    expect(Date.parse(created.body.expiresAt) - Date.parse(created.body.createdAt)).toBe(30 * 86400 * 1000);

    const list = await org.call('GET', '/api/v1/users/me/tokens');
    expect(list.status).toBe(200);
    expect(list.body.tokens).toHaveLength(1);
    expect(list.body.tokens[0]).toMatchObject({ id: created.body.id, name: 'laptop', tokenPrefix: created.body.tokenPrefix });
    expect(JSON.stringify(list.body)).not.toContain(created.body.token);
  });

  it('authenticates with the token and records its use', async () => {
    const org = await signupOrg();
    const { token } = await createToken(org, org.adminToken);
    const me = await api('GET', '/api/v1/users/me', { token, org: org.slug });
    expect(me.status).toBe(200);
    expect(me.body.id).toBe(org.adminId);
    const list = await org.call('GET', '/api/v1/users/me/tokens');
    expect(list.body.tokens[0].lastUsedAt).not.toBeNull();
    // Use is recorded at most every few minutes: the next request costs only the auth read
    // (round-trips/scenarios.test.ts: "authenticates an access token in one round trip").
  });

  it('cuts a revoked token off at once', async () => {
    const org = await signupOrg();
    const { id, token } = await createToken(org, org.adminToken);
    expect((await api('GET', '/api/v1/users/me', { token, org: org.slug })).status).toBe(200);
    const revoke = await org.call('DELETE', `/api/v1/users/me/tokens/${id}`);
    expect(revoke.status).toBe(204);
    expect((await api('GET', '/api/v1/users/me', { token, org: org.slug })).status).toBe(401);
    expect((await org.call('DELETE', `/api/v1/users/me/tokens/${id}`)).status).toBe(404);
  });

  it('refuses a token presented to another organization', async () => {
    const org = await signupOrg();
    const other = await signupOrg();
    const { token } = await createToken(org, org.adminToken);
    expect((await api('GET', '/api/v1/users/me', { token, org: other.slug })).status).toBe(401);
  });

  it('refuses a token whose embedded ids were tampered with', async () => {
    const org = await signupOrg();
    const member = await createMember(org);
    const { token } = await createToken(org, org.adminToken);
    // Same secret, but claiming to be the member: the stored credential names the admin.
    const forged = token.slice(0, 4 + 43 + 26) + member.id.slice(4);
    expect((await api('GET', '/api/v1/users/me', { token: forged, org: org.slug })).status).toBe(401);
  });

  it('lets nobody revoke or see another user’s tokens', async () => {
    const org = await signupOrg();
    const member = await createMember(org);
    const adminToken = await createToken(org, org.adminToken);
    const memberList = await api('GET', '/api/v1/users/me/tokens', { token: member.token, org: org.slug });
    expect(memberList.body.tokens).toEqual([]);
    const revoke = await api('DELETE', `/api/v1/users/me/tokens/${adminToken.id}`, { token: member.token, org: org.slug });
    expect(revoke.status).toBe(404);
    expect((await api('GET', '/api/v1/users/me', { token: adminToken.token, org: org.slug })).status).toBe(200);
  });

  it('needs a signed-in session to manage tokens, so a token cannot mint a wider token', async () => {
    const org = await signupOrg();
    const { token } = await createToken(org, org.adminToken);
    const mint = await api('POST', '/api/v1/users/me/tokens', { token, org: org.slug, body: { name: 'escalate' } });
    expect(mint.status).toBe(403);
    expect((await api('GET', '/api/v1/users/me/tokens', { token, org: org.slug })).status).toBe(403);
  });

  it.each([
    [{ name: '' }, 'name'],
    [{ name: 'x'.repeat(201) }, 'name'],
    [{ expiresInDays: 0 }, 'expiresInDays'],
    [{ expiresInDays: 3651 }, 'expiresInDays'],
    [{ clientLabel: 'x'.repeat(201) }, 'clientLabel'],
    [{ allowedBoardIds: Array.from({ length: 101 }, (_, i) => `brd_${i}`) }, 'allowedBoardIds'],
    [{ allowedBoardIds: ['brd_unknown'] }, 'allowedBoardIds.0'],
    [{ readOnly: 'yes' }, 'readOnly'],
  ])('rejects %o with 400 naming %s and creates nothing', async (override, field) => {
    const org = await signupOrg();
    const response = await org.call('POST', '/api/v1/users/me/tokens', { body: { name: 'ok', ...override } });
    expect(response.status).toBe(400);
    expect(response.body.error.details.issues[0].path).toBe(field);
    expect((await org.call('GET', '/api/v1/users/me/tokens')).body.tokens).toEqual([]);
  });
});

describe('token restrictions at request time', () => {
  it('lets a readOnly token only read', async () => {
    const org = await signupOrg();
    const { token } = await createToken(org, org.adminToken, { readOnly: true });
    expect((await api('GET', '/api/v1/organization', { token, org: org.slug })).status).toBe(200);
    const write = await api('PATCH', '/api/v1/organization', { token, org: org.slug, body: { name: 'Renamed' } });
    expect(write.status).toBe(403);
    expect(write.body.error.code).toBe('PAT_READ_ONLY');
    expect((await org.call('GET', '/api/v1/organization')).body.name).not.toBe('Renamed');
  });

  it('blocks every DELETE request of a denyDelete token with 403 PAT_DENY_DELETE', async () => {
    const org = await signupOrg();
    const group = await org.call('POST', '/api/v1/permission-groups', { body: { name: 'Temp', color: '#123456', permissions: [] } });
    const { token } = await createToken(org, org.adminToken, { denyDelete: true });
    const response = await api('DELETE', `/api/v1/permission-groups/${group.body.id}`, { token, org: org.slug });
    expect(response.status).toBe(403);
    expect(response.body.error.code).toBe('PAT_DENY_DELETE');
    expect((await org.call('GET', `/api/v1/permission-groups/${group.body.id}`)).status).toBe(200);
    // Other writes are allowed.
    expect((await api('PATCH', `/api/v1/permission-groups/${group.body.id}`, { token, org: org.slug, body: { name: 'Kept' } })).status).toBe(200);
  });

  it('keeps a token to the permissions of its holder', async () => {
    const org = await signupOrg();
    const member = await createMember(org);
    const { token } = await createToken(org, member.token);
    const response = await api('POST', '/api/v1/permission-groups', { token, org: org.slug, body: { name: 'Nope', color: '#123456', permissions: [] } });
    expect(response.status).toBe(403);
  });
});
