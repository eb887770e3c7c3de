import { beforeAll, describe, expect, it } from 'vitest';
import { api, baseUrl, createMember, mailedToken, outbox, signupOrg, useInProcess, type TestOrg } from '../support/api.js';
import { codeFor, oauthFetch } from '../support/oauth.js';
import { db } from '../../lib/db/service.js';

// Permissions and validation: in process, through the same route table (test/support/api.ts).
useInProcess();

/*
 * People join and recover (docs/console.md, "People join and recover"): an administrator invites
 * by e-mail, the invitee accepts from the mailed link and is signed in; a person who forgot their
 * password gets a single-use, expiring link that ends every session and grant. Without a mail
 * service the messages wait in the platform operator's outbox, which these tests read.
 */
let org: TestOrg;

beforeAll(async () => {
  org = await signupOrg();
});

const invite = (body: Record<string, unknown>, token = org.adminToken) => api('POST', '/api/v1/invitations', { token, org: org.slug, body });
const accept = (body: Record<string, unknown>, slug = org.slug) => api('POST', '/api/v1/invitations/accept', { org: slug, body });
const login = (email: string, password: string) => api('POST', '/api/v1/auth/login', { org: org.slug, body: { email, password } });

describe('invitations', () => {
  it('mails a link that makes the invitee a member, signed in, once', async () => {
    const email = `Invitee-${Date.now()}@Example.test`;
    const created = await invite({ email });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ email: email.toLowerCase(), role: 'TEAM_MEMBER', invitedBy: { id: org.adminId, name: 'Ada Admin' } });
    expect(JSON.stringify(created.body)).not.toMatch(/token|secret|link/i);
    expect((await org.call('GET', '/api/v1/invitations')).body.data.map((item: { id: string }) => item.id)).toContain(created.body.id);

    const { token, link, mail } = await mailedToken(org.slug, email.toLowerCase());
    expect(mail.subject).toBe(`Ada Admin invited you to Org ${org.slug}`);
    expect(link.pathname).toBe('/app/join');
    expect(link.searchParams.get('org')).toBe(org.slug);
    expect(mail.text).toContain(mail.link);

    const accepted = await accept({ token, name: 'Ivy Invitee', password: 'invitee password 1' });
    expect(accepted.status).toBe(201);
    expect(accepted.body.user).toMatchObject({ name: 'Ivy Invitee', email: email.toLowerCase(), role: 'TEAM_MEMBER', isAgent: false });
    const me = await api('GET', '/api/v1/users/me', { token: accepted.body.token, org: org.slug });
    expect(me.status).toBe(200);
    expect(me.body.id).toBe(accepted.body.user.id);
    expect((await login(email, 'invitee password 1')).status).toBe(200);

    // Used: the link works once, and the invitation is no longer pending.
    const again = await accept({ token, name: 'Someone else', password: 'another password 1' });
    expect(again.status).toBe(400);
    expect(again.body.error.details.issues[0].path).toBe('token');
    expect((await org.call('GET', '/api/v1/invitations')).body.data.map((item: { id: string }) => item.id)).not.toContain(created.body.id);
  });

  it('refuses a wrong secret, another organization, and a withdrawn or expired invitation, changing nothing', async () => {
    const email = `withdrawn-${Date.now()}@example.test`;
    const created = await invite({ email });
    const { token } = await mailedToken(org.slug, email);
    const [id] = token.split('.');
    const other = await signupOrg();
    for (const [attempt, slug] of [[`${id}.wrong-secret`, org.slug], [token, other.slug], ['not-a-token', org.slug]] as const) {
      const refused = await accept({ token: attempt, name: 'Mallory', password: 'mallory password 1' }, slug);
      expect(refused.status, attempt).toBe(400);
    }
    expect((await org.call('DELETE', `/api/v1/invitations/${created.body.id}`)).status).toBe(204);
    expect((await org.call('DELETE', `/api/v1/invitations/${created.body.id}`)).status).toBe(404);
    expect((await accept({ token, name: 'Late', password: 'late password 1' })).status).toBe(400);
    expect((await login(email, 'late password 1')).status).toBe(401);

    const expiring = await invite({ email: `expired-${Date.now()}@example.test` });
    const expiredToken = (await mailedToken(org.slug, expiring.body.email)).token;
    await db().entities.invitation.patch({ orgId: org.orgId, invitationId: expiring.body.id }).set({ expiresAt: new Date(Date.now() - 1000).toISOString() }).go();
    expect((await accept({ token: expiredToken, name: 'Late', password: 'late password 1' })).status).toBe(400);
    expect((await org.call('GET', '/api/v1/invitations')).body.data.map((item: { id: string }) => item.id)).not.toContain(expiring.body.id);
  });

  it('invites only with users:manage, never past what the inviter holds, and never an existing member', async () => {
    const member = await createMember(org);
    const byMember = await invite({ email: 'nope@example.test' }, member.token);
    expect(byMember.status).toBe(403);
    const existing = await invite({ email: member.email });
    expect(existing.status).toBe(409);
    expect((await invite({ email: 'customer@example.test', role: 'CUSTOMER' })).status).toBe(400);
    expect((await invite({ email: 'unknown-group@example.test', permissionGroupIds: ['grp_01J00000000000000000000000'] })).status).toBe(400);
    // The list and the withdrawal need users:manage too.
    expect((await api('GET', '/api/v1/invitations', { token: member.token, org: org.slug })).status).toBe(403);
    expect((await outbox(org.slug)).some((mail) => mail.to === 'nope@example.test')).toBe(false);
  });

  it('puts the invitee in the groups named, as an administrator only when an administrator invites', async () => {
    const groups = (await org.call('GET', '/api/v1/permission-groups')).body.data as { id: string; name: string }[];
    const admins = groups.find((group) => group.name === 'Administrators')!;
    // A member may not invite an administrator, even one with users:manage.
    expect((await invite({ email: 'sneaky@example.test', role: 'ADMIN' }, (await createMember(org)).token)).status).toBe(403);
    const email = `admin-invitee-${Date.now()}@example.test`;
    const created = await invite({ email, role: 'ADMIN', permissionGroupIds: [admins.id] });
    expect(created.status).toBe(201);
    const accepted = await accept({ token: (await mailedToken(org.slug, email)).token, name: 'Second Admin', password: 'second admin pw 1' });
    expect(accepted.body.user).toMatchObject({ role: 'ADMIN', permissionGroupIds: [admins.id] });
  });

  it('keeps the outbox for the platform operator alone', async () => {
    expect((await api('GET', `/api/v1/platform/organizations/${org.slug}/outbox`)).status).toBe(401);
    expect((await org.call('GET', `/api/v1/platform/organizations/${org.slug}/outbox`)).status).toBe(401);
    expect((await api('GET', '/api/v1/platform/organizations/no-such-org-here/outbox', { token: undefined })).status).toBe(401);
  });
});

describe('password reset', () => {
  const requestReset = (email: string) => api('POST', '/api/v1/auth/password-reset', { org: org.slug, body: { email }, headers: { 'x-forwarded-for': `10.7.${Math.floor(Math.random() * 250)}.1` } });
  const confirm = (token: string, password: string) => api('POST', '/api/v1/auth/password-reset/confirm', { org: org.slug, body: { token, password } });

  it('answers alike for a known and an unknown address, and mails only the known one', async () => {
    const member = await createMember(org);
    const unknown = `nobody-${Date.now()}@example.test`;
    const [known, stranger] = await Promise.all([requestReset(member.email), requestReset(unknown)]);
    expect([known.status, stranger.status]).toEqual([204, 204]);
    expect(known.body).toBeUndefined();
    expect(stranger.body).toBeUndefined();
    const mails = await outbox(org.slug);
    expect(mails.some((mail) => mail.to === member.email && mail.link.includes('/app/reset?'))).toBe(true);
    expect(mails.some((mail) => mail.to === unknown)).toBe(false);
  });

  it('sets a new password once, ending every session and OAuth grant', async () => {
    const member = await createMember(org);
    const grant = await oauthGrantOf(member.email, 'member password 1');
    expect((await requestReset(member.email)).status).toBe(204);
    const { token } = await mailedToken(org.slug, member.email);
    expect((await confirm(token, 'short')).status).toBe(400);

    expect((await confirm(token, 'brand new password 1')).status).toBe(204);
    expect((await api('GET', '/api/v1/users/me', { token: member.token, org: org.slug })).status).toBe(401);
    expect((await refreshGrant(grant)).status).toBe(400);
    expect((await login(member.email, 'member password 1')).status).toBe(401);
    expect((await login(member.email, 'brand new password 1')).status).toBe(200);

    const reused = await confirm(token, 'third password 123');
    expect(reused.status).toBe(400);
    expect(reused.body.error.details.issues[0].path).toBe('token');
    expect((await login(member.email, 'brand new password 1')).status).toBe(200);
  });

  it('voids a link once the password changed since, and an expired one', async () => {
    const member = await createMember(org);
    await requestReset(member.email);
    const { token } = await mailedToken(org.slug, member.email);
    const changed = await api('POST', '/api/v1/auth/password', { token: member.token, org: org.slug, body: { currentPassword: 'member password 1', newPassword: 'changed password 1' } });
    expect(changed.status).toBe(200);
    expect((await confirm(token, 'attacker password 1')).status).toBe(400);
    expect((await login(member.email, 'changed password 1')).status).toBe(200);

    await requestReset(member.email);
    const second = await mailedToken(org.slug, member.email);
    const [resetId] = second.token.split('.');
    await db().entities.passwordReset.patch({ orgId: org.orgId, resetId: resetId! }).set({ expiresAt: new Date(Date.now() - 1000).toISOString() }).go();
    expect((await confirm(second.token, 'attacker password 1')).status).toBe(400);
    expect((await login(member.email, 'changed password 1')).status).toBe(200);
  });

  it('counts requests per address: the sixth in an hour answers 429, for a known and an unknown address alike', async () => {
    for (const email of [(await createMember(org)).email, `unknown-${Date.now()}@example.test`]) {
      const statuses: number[] = [];
      for (let attempt = 0; attempt < 6; attempt++) statuses.push((await requestReset(email)).status);
      expect(statuses, email).toEqual([204, 204, 204, 204, 204, 429]);
    }
  }, 30_000);
});

/** An OAuth grant of the person (its refresh token), made through the real endpoints: registration, the authorization pages, the code exchange. */
async function oauthGrantOf(email: string, password: string): Promise<{ origin: string; clientId: string; clientSecret: string; refreshToken: string }> {
  const fetch = oauthFetch();
  const origin = `http://${org.slug}.localhost:${new URL(baseUrl()).port}`;
  const redirectUri = 'http://127.0.0.1/reset-callback';
  const registered = await fetch(`${origin}/api/v1/oauth/register`, {
    method: 'POST',
    headers: { authorization: `Bearer ${org.adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'Reset test client', redirect_uris: [redirectUri] }),
  });
  const client = (await registered.json()) as { client_id: string; client_secret: string };
  const code = await codeFor(fetch, origin, client.client_id, redirectUri, { email, password });
  const tokens = await fetch(`${origin}/api/v1/oauth/token`, {
    method: 'POST',
    body: new URLSearchParams({ grant_type: 'authorization_code', code: code.code, redirect_uri: redirectUri, client_id: client.client_id, client_secret: client.client_secret, code_verifier: code.verifier }),
  });
  expect(tokens.status).toBe(200);
  return { origin, clientId: client.client_id, clientSecret: client.client_secret, refreshToken: ((await tokens.json()) as { refresh_token: string }).refresh_token };
}

function refreshGrant(grant: Awaited<ReturnType<typeof oauthGrantOf>>) {
  return oauthFetch()(`${grant.origin}/api/v1/oauth/token`, {
    method: 'POST',
    body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: grant.refreshToken, client_id: grant.clientId, client_secret: grant.clientSecret }),
  });
}
