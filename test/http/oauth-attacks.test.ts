import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { SignJWT, decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { LocalRuntime } from '../../infra/local/runtime.js';
import { sha256Hex } from '../../lib/core/ids.js';
import { db } from '../../lib/db/service.js';
import { api, createToken, signupOrg, useRuntime, type TestOrg } from '../support/api.js';
import { codeFor, createGrant, oauthFetch, pkcePair, startDocumentServer, startOAuthRuntime, type TestGrant } from '../support/oauth.js';

/*
 * The attacks the authorization server must refuse, each named after the attack, each checked
 * to change nothing: code and refresh token replay, PKCE downgrades, redirect URI variants,
 * client impersonation, foreign resources and audiences, forged and revoked tokens, short
 * state, scope escalation, hostile metadata documents, and a consent post without its CSRF
 * token. Own runtime: loopback outbound requests admitted (metadata documents on 127.0.0.1).
 */
let runtime: LocalRuntime;
let org: TestOrg;
let other: TestOrg;
// Many flows from one file: each request comes from its own address, clear of the per-IP limits (tested on their own below).
const fetch = oauthFetch('a fresh address per request');
const dir = mkdtempSync(path.join(tmpdir(), 'oauth-attacks-'));
let metadataServer: Awaited<ReturnType<typeof startDocumentServer>>;
let metadataBase: string;
let documents: Awaited<ReturnType<typeof startDocumentServer>>['documents'];
const admin = (o: TestOrg) => ({ email: `admin@${o.slug}.test`, password: 'correct horse battery' });
const originOf = (o: TestOrg) => `http://${o.slug}.localhost:${runtime.port}`;

beforeAll(async () => {
  runtime = await startOAuthRuntime('wm-oauth-attacks', inject('dynamoEndpoint'));
  useRuntime(runtime);
  [org, other] = await Promise.all([signupOrg(), signupOrg()]);
  metadataServer = await startDocumentServer(dir);
  metadataBase = metadataServer.base;
  documents = metadataServer.documents;
}, 120_000);

afterAll(async () => {
  await runtime?.stop();
  await metadataServer?.close();
  rmSync(dir, { recursive: true, force: true });
});

const grantOf = (o: TestOrg = org) => createGrant(o, runtime.baseUrl, fetch);

async function token(o: TestOrg, params: Record<string, string>) {
  const response = await fetch(`${originOf(o)}/api/v1/oauth/token`, { method: 'POST', body: new URLSearchParams(params) });
  return { status: response.status, body: (await response.json()) as Record<string, string>, headers: response.headers };
}

const refreshWith = (grant: TestGrant, refreshToken = grant.refreshToken, extra: Record<string, string> = {}) =>
  token(org, { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: grant.clientId, client_secret: grant.clientSecret, ...extra });

const asUser = (accessToken: string, o: TestOrg = org) => api('GET', '/api/v1/users/me', { token: accessToken, headers: { host: `${o.slug}.localhost:${runtime.port}` } });

async function registered(redirectUris: string[], o: TestOrg = org) {
  const response = await fetch(`${originOf(o)}/api/v1/oauth/register`, {
    method: 'POST',
    headers: { authorization: `Bearer ${o.adminToken}`, 'content-type': 'application/json', 'x-forwarded-for': `10.77.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}` },
    body: JSON.stringify({ client_name: 'Attack target', redirect_uris: redirectUris }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, any>, headers: response.headers };
}

async function authorize(o: TestOrg, params: Record<string, string>) {
  const url = new URL(`${originOf(o)}/api/v1/oauth/authorize`);
  url.search = new URLSearchParams(params).toString();
  const response = await fetch(url, { redirect: 'manual' });
  return { status: response.status, location: response.headers.get('location') ? new URL(response.headers.get('location')!) : undefined, html: await response.text() };
}

const liveGrants = async (o: TestOrg = org) => (await api('GET', '/api/v1/oauth/grants', { token: o.adminToken, org: o.slug })).body.data as { id: string; clientId: string }[];

describe('authorization codes', () => {
  it('code reuse: a second exchange is refused and revokes everything the first issued', async () => {
    const client = (await registered(['http://127.0.0.1/reuse'])).body;
    const { code, verifier } = await codeFor(fetch, originOf(org), client.client_id, 'http://127.0.0.1/reuse', admin(org));
    const params = { grant_type: 'authorization_code', code, redirect_uri: 'http://127.0.0.1/reuse', client_id: client.client_id, client_secret: client.client_secret, code_verifier: verifier };
    const first = await token(org, params);
    expect(first.status).toBe(200);
    expect(first.headers.get('cache-control')).toBe('no-store');
    const second = await token(org, params);
    expect(second.status).toBe(400);
    expect(second.body.error).toBe('invalid_grant');
    expect((await asUser(first.body.access_token!)).status).toBe(401);
    expect((await token(org, { grant_type: 'refresh_token', refresh_token: first.body.refresh_token!, client_id: client.client_id, client_secret: client.client_secret })).body.error).toBe('invalid_grant');
  });

  it('PKCE wrong verifier: the exchange is refused and the code stays unused', async () => {
    const client = (await registered(['http://127.0.0.1/pkce'])).body;
    const { code, verifier } = await codeFor(fetch, originOf(org), client.client_id, 'http://127.0.0.1/pkce', admin(org));
    const base = { grant_type: 'authorization_code', code, redirect_uri: 'http://127.0.0.1/pkce', client_id: client.client_id, client_secret: client.client_secret };
    const wrong = await token(org, { ...base, code_verifier: (await pkcePair()).verifier });
    expect(wrong.body.error).toBe('invalid_grant');
    const missing = await token(org, base);
    expect(missing.body.error).toBe('invalid_request');
    // Nothing was spent: the right verifier still works.
    expect((await token(org, { ...base, code_verifier: verifier })).status).toBe(200);
  });

  it.each([
    ['PKCE plain', { code_challenge: 'a'.repeat(43), code_challenge_method: 'plain' }, 'invalid_request'],
    ['PKCE missing', {}, 'invalid_request'],
    ['PKCE downgrade (a verifier sent as the challenge)', { code_challenge: 'short-verifier-not-a-hash' }, 'invalid_request'],
    ['state of 7 characters', { code_challenge: 'a'.repeat(43), state: 'seven77' }, 'invalid_request'],
    ['a resource that is not ours', { code_challenge: 'a'.repeat(43), resource: 'https://evil.example.com/api/v1/mcp' }, 'invalid_target'],
    ['an unknown scope', { code_challenge: 'a'.repeat(43), scope: 'read superuser' }, 'invalid_scope'],
    ['another response type', { code_challenge: 'a'.repeat(43), response_type: 'token' }, 'unsupported_response_type'],
  ])('%s: redirected back with the error, state and iss, and no code', async (_name, params, error) => {
    const client = (await registered(['http://127.0.0.1/errors'])).body;
    const answer = await authorize(org, { response_type: 'code', client_id: client.client_id, redirect_uri: 'http://127.0.0.1/errors', state: 'state-12345678', ...params });
    expect(answer.status).toBe(302);
    expect(answer.location!.searchParams.get('error')).toBe(error);
    expect(answer.location!.searchParams.get('iss')).toBe(originOf(org));
    expect(answer.location!.searchParams.get('state')).toBe((params as { state?: string }).state ?? 'state-12345678');
    expect(answer.location!.searchParams.get('code')).toBeNull();
  });

  it.each([
    ['trailing slash', 'https://app.example.com/cb/'],
    ['other case', 'https://app.example.com/CB'],
    ['extra query', 'https://app.example.com/cb?next=1'],
    ['other port on a non-loopback host', 'https://app.example.com:8443/cb'],
    ['other scheme', 'http://app.example.com/cb'],
    ['fragment', 'https://app.example.com/cb#x'],
  ])('redirect URI variant (%s): shown on an error page, never redirected to', async (_name, redirectUri) => {
    const client = (await registered(['https://app.example.com/cb'])).body;
    const answer = await authorize(org, { response_type: 'code', client_id: client.client_id, redirect_uri: redirectUri, code_challenge: 'a'.repeat(43) });
    expect(answer.status).toBe(400);
    expect(answer.location).toBeUndefined();
    expect(answer.html).toContain('not one this client registered');
  });

  it('redirect URI of the exchange differing from the authorization: refused', async () => {
    const client = (await registered(['http://127.0.0.1/exact'])).body;
    const { code, verifier } = await codeFor(fetch, originOf(org), client.client_id, 'http://127.0.0.1/exact', admin(org));
    const answer = await token(org, { grant_type: 'authorization_code', code, redirect_uri: 'http://127.0.0.1:9999/exact', client_id: client.client_id, client_secret: client.client_secret, code_verifier: verifier });
    expect(answer.body.error).toBe('invalid_grant');
  });

  it('a code of another client: refused, and the code is not spent', async () => {
    const victim = (await registered(['http://127.0.0.1/victim'])).body;
    const thief = (await registered(['http://127.0.0.1/victim'])).body;
    const { code, verifier } = await codeFor(fetch, originOf(org), victim.client_id, 'http://127.0.0.1/victim', admin(org));
    const stolen = await token(org, { grant_type: 'authorization_code', code, redirect_uri: 'http://127.0.0.1/victim', client_id: thief.client_id, client_secret: thief.client_secret, code_verifier: verifier });
    expect(stolen.body.error).toBe('invalid_grant');
    expect((await token(org, { grant_type: 'authorization_code', code, redirect_uri: 'http://127.0.0.1/victim', client_id: victim.client_id, client_secret: victim.client_secret, code_verifier: verifier })).status).toBe(200);
  });

  it('wrong or missing client secret: 401 invalid_client', async () => {
    const client = (await registered(['http://127.0.0.1/secret'])).body;
    const { code, verifier } = await codeFor(fetch, originOf(org), client.client_id, 'http://127.0.0.1/secret', admin(org));
    const base = { grant_type: 'authorization_code', code, redirect_uri: 'http://127.0.0.1/secret', client_id: client.client_id, code_verifier: verifier };
    for (const secret of [undefined, 'wmcs_wrong', `${client.client_secret}x`]) {
      const answer = await token(org, { ...base, ...(secret ? { client_secret: secret } : {}) });
      expect(answer.status).toBe(401);
      expect(answer.body.error).toBe('invalid_client');
    }
    expect((await token(org, { ...base, client_secret: client.client_secret })).status).toBe(200);
  });

  it('a consent post without its CSRF token: refused, no code and no grant', async () => {
    const client = (await registered(['http://127.0.0.1/csrf'])).body;
    const { challenge } = await pkcePair();
    const url = new URL(`${originOf(org)}/api/v1/oauth/authorize`);
    url.search = new URLSearchParams({ response_type: 'code', client_id: client.client_id, redirect_uri: 'http://127.0.0.1/csrf', code_challenge: challenge }).toString();
    // Sign in and reach the consent page, then post the form without (and with another session's) CSRF token.
    const signedIn = await codeFor(fetch, originOf(org), client.client_id, 'http://127.0.0.1/csrf', admin(org));
    const page = await (await fetch(url, { headers: { cookie: signedIn.cookie! } })).text();
    const request = /name="request" value="([^"]+)"/.exec(page)![1]!;
    for (const csrf of [undefined, 'forged-token']) {
      const form = new URLSearchParams({ request, decision: 'allow', ...(csrf ? { csrf } : {}) });
      const response = await fetch(`${originOf(org)}/api/v1/oauth/authorize/consent`, { method: 'POST', body: form, headers: { cookie: signedIn.cookie! }, redirect: 'manual' });
      expect(response.status).toBe(403);
      expect(response.headers.get('location')).toBeNull();
    }
    // Without the session cookie (a cross-site post carries none under SameSite=Lax) it is refused too.
    const csrf = /name="csrf" value="([^"]+)"/.exec(page)![1]!;
    const noCookie = await fetch(`${originOf(org)}/api/v1/oauth/authorize/consent`, { method: 'POST', body: new URLSearchParams({ request, csrf, decision: 'allow' }), redirect: 'manual' });
    expect(noCookie.status).toBe(403);
    expect((await liveGrants()).filter((grant) => grant.clientId === client.client_id)).toHaveLength(0);
  });
});

describe("one organization's codes, refresh tokens and grants at another's endpoints", () => {
  it("refuses an authorization code of another organization at this organization's token endpoint, and leaves it unspent", async () => {
    const client = (await registered(['http://127.0.0.1/cross'])).body;
    const { code, verifier } = await codeFor(fetch, originOf(org), client.client_id, 'http://127.0.0.1/cross', admin(org));
    const params = { grant_type: 'authorization_code', code, redirect_uri: 'http://127.0.0.1/cross', client_id: client.client_id, client_secret: client.client_secret, code_verifier: verifier };
    const elsewhere = await token(other, params);
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.body.error).toBe('invalid_grant');
    expect(elsewhere.body.access_token).toBeUndefined();
    const home = await token(org, params);
    expect(home.status).toBe(200);
    expect(decodeJwt(home.body.access_token!)).toMatchObject({ iss: originOf(org), aud: `${originOf(org)}/api/v1/mcp` });
  });

  it("refuses a refresh token of another organization at this organization's token endpoint, and leaves it unspent", async () => {
    const grant = await grantOf();
    const elsewhere = await token(other, { grant_type: 'refresh_token', refresh_token: grant.refreshToken, client_id: grant.clientId, client_secret: grant.clientSecret });
    expect(elsewhere.body.error).toBe('invalid_grant');
    expect((await refreshWith(grant)).status).toBe(200);
  });

  it("ignores a revocation of another organization's tokens sent to this organization's endpoint", async () => {
    const grant = await grantOf();
    for (const value of [grant.refreshToken, grant.accessToken]) {
      const response = await fetch(`${originOf(other)}/api/v1/oauth/revoke`, { method: 'POST', body: new URLSearchParams({ token: value, client_id: grant.clientId, client_secret: grant.clientSecret }) });
      expect(response.status).toBe(200);
    }
    expect((await asUser(grant.accessToken)).status).toBe(200);
    expect((await refreshWith(grant)).status).toBe(200);
  });
});

describe('revocation authenticates the client (RFC 7009 §2.1)', () => {
  const revoke = (params: Record<string, string>) => fetch(`${originOf(org)}/api/v1/oauth/revoke`, { method: 'POST', body: new URLSearchParams(params) });

  it("refuses to revoke a confidential client's refresh token without its secret, with a wrong one, or with no client named, and the grant lives on", async () => {
    const grant = await grantOf();
    const attempts: Record<string, string>[] = [
      { token: grant.refreshToken, client_id: grant.clientId },
      { token: grant.refreshToken, client_id: grant.clientId, client_secret: 'not-the-secret' },
      { token: grant.refreshToken },
      { token: grant.accessToken },
    ];
    for (const params of attempts) {
      const response = await revoke(params);
      expect(response.status).toBe(401);
      expect(((await response.json()) as { error: string }).error).toBe('invalid_client');
    }
    expect((await asUser(grant.accessToken)).status).toBe(200);
    expect((await refreshWith(grant)).status).toBe(200);
  });

  it("refuses to let one client revoke another client's tokens (200, nothing revoked)", async () => {
    const [grant, stranger] = [await grantOf(), await grantOf()];
    for (const value of [grant.refreshToken, grant.accessToken]) {
      const response = await revoke({ token: value, client_id: stranger.clientId, client_secret: stranger.clientSecret });
      expect(response.status).toBe(200);
    }
    expect((await asUser(grant.accessToken)).status).toBe(200);
    expect((await refreshWith(grant)).status).toBe(200);
    const own = await revoke({ token: grant.refreshToken, client_id: grant.clientId, client_secret: grant.clientSecret });
    expect(own.status).toBe(200);
    expect((await refreshWith(grant)).body.error).toBe('invalid_grant');
  });
});

describe('refresh tokens', () => {
  it('refresh reuse after rotation: refused, and the whole grant is revoked', async () => {
    const grant = await grantOf();
    const rotated = await refreshWith(grant);
    expect(rotated.status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 5500)); // past the race allowance of 5 s
    const replay = await refreshWith(grant);
    expect(replay.body.error).toBe('invalid_grant');
    expect((await refreshWith(grant, rotated.body.refresh_token)).body.error).toBe('invalid_grant');
    expect((await asUser(rotated.body.access_token!)).status).toBe(401);
    expect((await liveGrants()).map((entry) => entry.id)).not.toContain(grant.grantId);
  });

  it('two concurrent refreshes: one rotation, both answered the same pair, and the grant lives on', async () => {
    const grant = await grantOf();
    const answers = await Promise.all([refreshWith(grant), refreshWith(grant)]);
    expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
    expect(answers[1]!.body.refresh_token).toBe(answers[0]!.body.refresh_token);
    expect(answers[1]!.body.access_token).toBe(answers[0]!.body.access_token);
    expect((await refreshWith(grant, answers[0]!.body.refresh_token)).status).toBe(200);
  });

  it('a refresh sent again at once (a lost response) gets the same pair; nothing new is minted', async () => {
    const grant = await grantOf();
    const first = await refreshWith(grant);
    const again = await refreshWith(grant);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ access_token: first.body.access_token, refresh_token: first.body.refresh_token, scope: first.body.scope });
    expect((await asUser(first.body.access_token!)).status).toBe(200);
  });

  it('refuses a spent refresh token sent with another request inside the race allowance, and revokes the grant', async () => {
    const grant = await grantOf();
    const first = await refreshWith(grant);
    const narrowed = await refreshWith(grant, grant.refreshToken, { scope: 'read' });
    expect(narrowed.body.error).toBe('invalid_grant');
    expect((await refreshWith(grant, first.body.refresh_token)).body.error).toBe('invalid_grant');
    expect((await asUser(first.body.access_token!)).status).toBe(401);
  });

  it('refuses a spent refresh token once its successor was used, and revokes the grant', async () => {
    const grant = await grantOf();
    const first = await refreshWith(grant);
    const second = await refreshWith(grant, first.body.refresh_token);
    expect(second.status).toBe(200);
    expect((await refreshWith(grant)).body.error).toBe('invalid_grant');
    expect((await asUser(second.body.access_token!)).status).toBe(401);
  });

  it('a refresh token of another client: refused, and the token is not spent', async () => {
    const grant = await grantOf();
    const thief = (await registered(['http://127.0.0.1/thief'])).body;
    const stolen = await token(org, { grant_type: 'refresh_token', refresh_token: grant.refreshToken, client_id: thief.client_id, client_secret: thief.client_secret });
    expect(stolen.body.error).toBe('invalid_grant');
    expect((await refreshWith(grant)).status).toBe(200);
  });

  it('a scope beyond the grant: invalid_scope; narrowing works', async () => {
    const grant = await grantOf();
    expect((await refreshWith(grant, grant.refreshToken, { scope: 'read admin' })).body.error).toBe('invalid_scope');
    const narrowed = await refreshWith(grant, grant.refreshToken, { scope: 'read' });
    expect(narrowed.body.scope).toBe('read');
  });
});

describe('access tokens', () => {
  it('a token of another organization, or for another resource, is refused with the resource metadata challenge', async () => {
    const grant = await grantOf();
    const elsewhere = await asUser(grant.accessToken, other);
    expect(elsewhere.status).toBe(401);
    expect(elsewhere.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${originOf(other)}/.well-known/oauth-protected-resource/api/v1/mcp", error="invalid_token"`);
    // The same organization reached without its origin (X-Organization on a shared host): not the token's audience.
    const sharedHost = await api('GET', '/api/v1/users/me', { token: grant.accessToken, org: org.slug });
    expect(sharedHost.status).toBe(401);
  });

  it('no token: 401 with the resource metadata, and no invalid_token error', async () => {
    const response = await api('GET', '/api/v1/users/me', { headers: { host: `${org.slug}.localhost:${runtime.port}` } });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${originOf(org)}/.well-known/oauth-protected-resource/api/v1/mcp"`);
  });

  it('tokens signed by another key, with alg none, or with a claim changed are refused', async () => {
    const grant = await grantOf();
    const claims = decodeJwt(grant.accessToken);
    const { privateKey } = generateKeyPairSync('ed25519');
    const otherKey = await new SignJWT(claims).setProtectedHeader({ alg: 'EdDSA', typ: 'at+jwt' }).sign(privateKey);
    const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const none = `${encode({ alg: 'none', typ: 'at+jwt' })}.${encode(claims)}.`;
    const [header, , signature] = grant.accessToken.split('.');
    const escalated = `${header}.${encode({ ...claims, scope: 'read write admin' })}.${signature}`;
    for (const forged of [otherKey, none, escalated]) expect((await asUser(forged)).status).toBe(401);
    expect((await asUser(grant.accessToken)).status).toBe(200);
  });

  it('an expired token is refused', async () => {
    const grant = await grantOf();
    await db().entities.credential.patch({ lookupKey: sha256Hex(grant.accessToken) }).set({ expiresAt: new Date(Date.now() - 1000).toISOString() }).go();
    expect((await asUser(grant.accessToken)).status).toBe(401);
  });

  it('a revoked token is refused at once, and revocation answers 200 whatever the token', async () => {
    const grant = await grantOf();
    for (const value of [grant.accessToken, 'not-a-token', grant.accessToken]) {
      const response = await fetch(`${originOf(org)}/api/v1/oauth/revoke`, { method: 'POST', body: new URLSearchParams({ token: value, client_id: grant.clientId, client_secret: grant.clientSecret }) });
      expect(response.status).toBe(200);
    }
    expect((await asUser(grant.accessToken)).status).toBe(401);
    // The grant itself lives on: the refresh token still works.
    expect((await refreshWith(grant)).status).toBe(200);
  });

  it('a password change revokes every grant of the user (the API reference)', async () => {
    const person = await signupOrg();
    const grant = await grantOf(person);
    expect((await asUser(grant.accessToken, person)).status).toBe(200);
    const changed = await api('POST', '/api/v1/auth/password', { token: person.adminToken, org: person.slug, body: { currentPassword: 'correct horse battery', newPassword: 'a new password 42' } });
    expect(changed.status).toBe(200);
    expect((await asUser(grant.accessToken, person)).status).toBe(401);
    const refresh = await token(person, { grant_type: 'refresh_token', refresh_token: grant.refreshToken, client_id: grant.clientId, client_secret: grant.clientSecret });
    expect(refresh.body.error).toBe('invalid_grant');
  });

  it('insufficient scope: 403 naming every scope the route needs', async () => {
    const grant = await grantOf();
    const readOnly = (await refreshWith(grant, grant.refreshToken, { scope: 'read' })).body.access_token!;
    const host = { host: `${org.slug}.localhost:${runtime.port}` };
    const write = await api('POST', '/api/v1/boards', { token: readOnly, headers: host, body: { name: 'Refused' } });
    expect(write.status).toBe(403);
    expect(write.body.error.code).toBe('INSUFFICIENT_SCOPE');
    expect(write.headers.get('www-authenticate')).toBe('Bearer error="insufficient_scope", scope="write"');
    const adminRoute = await api('GET', `/api/v1/organizations/${org.orgId}/agents`, { token: readOnly, headers: host });
    expect(adminRoute.status).toBe(403);
    expect(adminRoute.headers.get('www-authenticate')).toBe('Bearer error="insufficient_scope", scope="read admin"');
    expect((await api('GET', '/api/v1/boards', { token: readOnly, headers: host })).status).toBe(200);
  });
});

describe('registration', () => {
  it.each([
    ['javascript:', 'javascript:alert(1)'],
    ['data:', 'data:text/html,hi'],
    ['a fragment', 'https://app.example.com/cb#frag'],
    ['a wildcard', 'https://*.example.com/cb'],
    ['non-loopback http', 'http://app.example.com/cb'],
  ])('a redirect URI with %s is refused with invalid_redirect_uri', async (_name, uri) => {
    const answer = await registered([uri]);
    expect(answer.status).toBe(400);
    expect(answer.body.error).toBe('invalid_redirect_uri');
  });

  it('a confidential client needs a signed-in session: a personal token is refused, a bad token is a 401 challenge', async () => {
    const personal = await createToken(org, org.adminToken);
    const withToken = await fetch(`${originOf(org)}/api/v1/oauth/register`, { method: 'POST', headers: { authorization: `Bearer ${personal.token}`, 'content-type': 'application/json' }, body: JSON.stringify({ client_name: 'x', redirect_uris: ['https://a.example.com/cb'] }) });
    expect(withToken.status).toBe(403);
    const forged = await fetch(`${originOf(org)}/api/v1/oauth/register`, { method: 'POST', headers: { authorization: 'Bearer not-a-token', 'content-type': 'application/json' }, body: JSON.stringify({ client_name: 'x', redirect_uris: ['https://a.example.com/cb'] }) });
    expect(forged.status).toBe(401);
    expect(((await forged.json()) as { error: string }).error).toBe('invalid_token');
  });

  it('allows 5 registrations per hour from one address, then 429 with Retry-After and RateLimit headers', async () => {
    const send = () =>
      fetch(`${originOf(org)}/api/v1/oauth/register`, {
        method: 'POST',
        headers: { authorization: `Bearer ${org.adminToken}`, 'content-type': 'application/json', 'x-forwarded-for': '10.200.0.1' },
        body: JSON.stringify({ client_name: 'Limited', redirect_uris: ['https://a.example.com/cb'] }),
      });
    for (let index = 0; index < 5; index += 1) expect((await send()).status).toBe(201);
    const limited = await send();
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited.headers.get('ratelimit-policy')).toBe('"oauth-register";q=5;w=3600');
    expect(limited.headers.get('ratelimit')).toMatch(/^"oauth-register";r=0;t=\d+$/);
    expect(((await limited.json()) as { error: string }).error).toBe('rate_limited');
  });
});

describe('Client ID Metadata Documents', () => {
  const attempt = (clientId: string) => authorize(org, { response_type: 'code', client_id: clientId, redirect_uri: 'http://127.0.0.1/cimd', code_challenge: 'a'.repeat(43), state: 'cimd-state-1' });
  type Served = { status?: number; headers?: Record<string, string>; body: string };

  it.each<[string, (url: string) => Served]>([
    ['whose client_id differs from its URL', (url) => ({ body: JSON.stringify({ client_id: `${url}-other`, redirect_uris: ['http://127.0.0.1/cimd'] }) })],
    ['that redirects', () => ({ status: 302, headers: { location: `${metadataBase}/elsewhere.json` }, body: '' })],
    ['that is too large', (url) => ({ body: JSON.stringify({ client_id: url, redirect_uris: ['http://127.0.0.1/cimd'], padding: 'x'.repeat(6000) }) })],
    ['that asks for a secret', (url) => ({ body: JSON.stringify({ client_id: url, redirect_uris: ['http://127.0.0.1/cimd'], token_endpoint_auth_method: 'client_secret_post' }) })],
  ])('a metadata document %s is refused on an error page, never redirected to', async (name, document) => {
    const path = `/${name.replace(/\W+/g, '-')}.json`;
    const url = `${metadataBase}${path}`;
    documents.set(path, document(url));
    const answer = await attempt(url);
    expect(answer.status).toBe(400);
    expect(answer.location).toBeUndefined();
  });

  it.each(['https://10.0.0.1/client.json', 'https://169.254.169.254/latest/meta-data.json', 'https://[fd00::1]/client.json'])(
    'a metadata document that resolves to a private address (%s) is never fetched',
    async (clientId) => {
      const answer = await attempt(clientId);
      expect(answer.status).toBe(400);
      expect(answer.html).toContain('non-public address');
    },
  );
});

describe('switching organization with a refresh token (docs/oauth.md)', () => {
  it('gives a registered client an access token of another organization where the same person authorized it', async () => {
    const email = `switch-${Date.now()}@people.test`;
    const [first, second] = await Promise.all([signupOrg({ email }), signupOrg({ email })]);
    const client = (await registered(['http://127.0.0.1/switch'], first)).body;
    const user = (_o: TestOrg) => ({ email, password: 'correct horse battery' });
    const exchange = async (o: TestOrg) => {
      const { code, verifier } = await codeFor(fetch, originOf(o), client.client_id, 'http://127.0.0.1/switch', user(o));
      return (await token(o, { grant_type: 'authorization_code', code, redirect_uri: 'http://127.0.0.1/switch', client_id: client.client_id, client_secret: client.client_secret, code_verifier: verifier })).body;
    };
    const inFirst = await exchange(first);
    // Not yet authorized in the second organization: refused, and nothing is spent.
    const refused = await token(first, { grant_type: 'refresh_token', refresh_token: inFirst.refresh_token!, client_id: client.client_id, client_secret: client.client_secret, organization_id: second.orgId });
    expect(refused.body.error).toBe('invalid_grant');
    await exchange(second);
    const listed = await api('GET', `/api/v1/oauth/me/organizations?client_id=${client.client_id}`, { token: inFirst.access_token, headers: { host: `${first.slug}.localhost:${runtime.port}` } });
    expect(listed.body.data.map((entry: { id: string }) => entry.id).sort()).toEqual([first.orgId, second.orgId].sort());
    const switched = await token(first, { grant_type: 'refresh_token', refresh_token: inFirst.refresh_token!, client_id: client.client_id, client_secret: client.client_secret, organization_id: second.orgId });
    expect(switched.status).toBe(200);
    expect(decodeJwt(switched.body.access_token!)).toMatchObject({ org: second.orgId, aud: `${originOf(second)}/api/v1/mcp`, iss: originOf(second) });
    expect((await asUser(switched.body.access_token!, second)).status).toBe(200);
    expect((await asUser(switched.body.access_token!, first)).status).toBe(401);
  });
});
