import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import * as oauth from 'oauth4webapi';
import puppeteer, { type Browser } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { LocalRuntime } from '../../infra/local/runtime.js';
import { api, createMember, signupOrg, useRuntime, type TestOrg } from '../support/api.js';
import { authorizationUrl, clientOptions, completeInBrowser, completeInPage, discover, oauthFetch, startDocumentServer, startOAuthRuntime } from '../support/oauth.js';

const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/*
 * The whole OAuth flow the way an AI tool runs it, with independent parts: oauth4webapi as the
 * client (discovery, registration, PKCE, the authorization response with `iss`, token requests,
 * refresh, revocation, and RFC 9068 validation of the access token against the published
 * keys), and headless Chromium completing the service's sign-in and consent page. This file
 * runs its own local runtime with loopback outbound requests admitted, so a Client ID Metadata
 * Document can be served from 127.0.0.1 (over HTTPS with a self-signed certificate).
 */
let runtime: LocalRuntime;
let browser: Browser;
let org: TestOrg;
let origin: string;
let as: oauth.AuthorizationServer;
const fetch = oauthFetch();
const options = clientOptions(fetch);
const admin = (slug: string) => ({ email: `admin@${slug}.test`, password: 'correct horse battery' });
const dir = mkdtempSync(path.join(tmpdir(), 'oauth-flow-'));
let metadataServer: Awaited<ReturnType<typeof startDocumentServer>>;
let metadataUrl: string;

beforeAll(async () => {
  if (!existsSync(chromiumPath)) throw new Error(`Chromium not found at ${chromiumPath} (install the Debian package chromium, or set CHROMIUM_PATH)`);
  runtime = await startOAuthRuntime('wm-oauth-flow', inject('dynamoEndpoint'));
  useRuntime(runtime);
  browser = await puppeteer.launch({ executablePath: chromiumPath, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
  org = await signupOrg();
  origin = `http://${org.slug}.localhost:${runtime.port}`;
  as = await discover(origin, fetch);

  metadataServer = await startDocumentServer(dir);
  metadataUrl = `${metadataServer.base}/oauth/client.json`;
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await runtime?.stop();
  await metadataServer?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function registerClient(redirectUri: string, sessionToken = org.adminToken) {
  const response = await oauth.dynamicClientRegistrationRequest(as, { client_name: 'Test Assistant', redirect_uris: [redirectUri] }, { ...options, initialAccessToken: sessionToken });
  return oauth.processDynamicClientRegistrationResponse(response);
}

async function pkce() {
  const verifier = oauth.generateRandomCodeVerifier();
  return { verifier, challenge: await oauth.calculatePKCECodeChallenge(verifier) };
}

describe('the OAuth flow with a registered client, completed in Chromium', () => {
  it('registers, signs in, consents, exchanges the code, calls the API, refreshes and revokes', async () => {
    const redirectUri = 'http://127.0.0.1/callback';
    const client = await registerClient(redirectUri);
    expect(client.client_secret).toMatch(/^wmcs_/);
    expect(client.token_endpoint_auth_method).toBe('client_secret_post');

    // A loopback redirect URI matches on any port (RFC 8252 §7.3): the tool picks one at run time.
    const requested = 'http://127.0.0.1:49153/callback';
    const { verifier, challenge } = await pkce();
    const state = oauth.generateRandomState();
    const callback = await completeInBrowser(browser, authorizationUrl(as, { clientId: client.client_id, redirectUri: requested, codeChallenge: challenge, state, resource: `${origin}/api/v1/mcp` }), requested, admin(org.slug));
    expect(callback.searchParams.get('iss')).toBe(origin);
    const params = oauth.validateAuthResponse(as, client, callback, state);

    const auth = oauth.ClientSecretPost(client.client_secret as string);
    const tokens = await oauth.processAuthorizationCodeResponse(as, client, await oauth.authorizationCodeGrantRequest(as, client, auth, params, requested, verifier, options));
    expect(tokens.token_type).toBe('bearer');
    expect(tokens.expires_in).toBe(900);
    expect(tokens.scope).toBe('read write');

    // The access token is a JWT any resource server can check against the published keys (RFC 9068).
    const claims = await oauth.validateJwtAccessToken(as, new Request(`${origin}/api/v1/mcp`, { headers: { authorization: `Bearer ${tokens.access_token}` } }), `${origin}/api/v1/mcp`, options);
    expect(claims).toMatchObject({ iss: origin, sub: org.adminId, aud: `${origin}/api/v1/mcp`, org: org.orgId, scope: 'read write', client_id: client.client_id });

    // It works on the REST API of its organization's origin, like any credential.
    const me = await api('GET', '/api/v1/users/me', { token: tokens.access_token, headers: { host: `${org.slug}.localhost:${runtime.port}` } });
    expect(me.status).toBe(200);
    expect(me.body.id).toBe(org.adminId);

    const refreshed = await oauth.processRefreshTokenResponse(as, client, await oauth.refreshTokenGrantRequest(as, client, auth, tokens.refresh_token!, options));
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
    const narrowed = await oauth.processRefreshTokenResponse(as, client, await oauth.refreshTokenGrantRequest(as, client, auth, refreshed.refresh_token!, { ...options, additionalParameters: { scope: 'read' } }));
    expect(narrowed.scope).toBe('read');

    // Revoking the refresh token revokes the grant: the access tokens stop working at once.
    await oauth.processRevocationResponse(await oauth.revocationRequest(as, client, auth, narrowed.refresh_token!, options));
    const after = await api('GET', '/api/v1/users/me', { token: narrowed.access_token, headers: { host: `${org.slug}.localhost:${runtime.port}` } });
    expect(after.status).toBe(401);
    expect(after.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource/api/v1/mcp", error="invalid_token"`);
  });

  it('sends a user already signed in on the origin straight to consent, and Deny returns access_denied with state and iss', async () => {
    const redirectUri = 'http://127.0.0.1/deny';
    const client = await registerClient(redirectUri);
    const context = await browser.createBrowserContext();
    try {
      const page = await context.newPage();
      const first = await pkce();
      await completeInPage(page, authorizationUrl(as, { clientId: client.client_id, redirectUri, codeChallenge: first.challenge, state: 'state-one-12345' }), redirectUri, admin(org.slug));
      const second = await pkce();
      await page.goto(authorizationUrl(as, { clientId: client.client_id, redirectUri, codeChallenge: second.challenge, state: 'state-two-12345' }).toString(), { waitUntil: 'load' });
      expect(await page.$('input[name=password]')).toBeNull();
      const callback = await completeInPage(page, authorizationUrl(as, { clientId: client.client_id, redirectUri, codeChallenge: second.challenge, state: 'state-two-12345' }), redirectUri, { decision: 'Deny' });
      expect(callback.searchParams.get('error')).toBe('access_denied');
      expect(callback.searchParams.get('state')).toBe('state-two-12345');
      expect(callback.searchParams.get('iss')).toBe(origin);
      expect(callback.searchParams.get('code')).toBeNull();
    } finally {
      await context.close();
    }
  });

  it('works without a mouse and fits a phone: Tab and Enter sign in and allow', async () => {
    const redirectUri = 'http://localhost/keyboard';
    const client = await registerClient(redirectUri);
    const { challenge } = await pkce();
    const context = await browser.createBrowserContext();
    try {
      const page = await context.newPage();
      let callback: URL | undefined;
      await page.setRequestInterception(true);
      page.on('request', (request) => {
        if (request.url().startsWith(redirectUri)) {
          callback = new URL(request.url());
          void request.respond({ status: 200, body: 'done' });
        } else void request.continue();
      });
      // A phone's screen: the page fits its width.
      await page.setViewport({ width: 360, height: 740, isMobile: true, hasTouch: true });
      await page.goto(authorizationUrl(as, { clientId: client.client_id, redirectUri, codeChallenge: challenge, state: 'keyboard-state' }).toString(), { waitUntil: 'load' });
      expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(360);
      // The e-mail field has focus on arrival (autofocus lands just after load on a busy machine); its label names it.
      await page.waitForFunction("document.activeElement && document.activeElement.id === 'email'", { timeout: 5_000 }).catch(() => undefined);
      expect(await page.evaluate('document.activeElement && document.activeElement.id')).toBe('email');
      expect(await page.$eval('label[for=email]', (label) => label.textContent)).toBe('Email');
      await page.keyboard.type(admin(org.slug).email);
      await page.keyboard.press('Tab');
      expect(await page.evaluate('document.activeElement && document.activeElement.id')).toBe('password');
      await page.keyboard.type('a wrong password');
      await Promise.all([page.waitForNavigation(), page.keyboard.press('Enter')]);
      expect(await page.$eval('[role=alert]', (alert) => alert.textContent)).toContain('do not match');
      await page.focus('#password');
      await page.keyboard.type(admin(org.slug).password);
      await Promise.all([page.waitForNavigation(), page.keyboard.press('Enter')]);
      // Consent: the first Tab stop is Allow.
      await page.keyboard.press('Tab');
      expect(await page.evaluate('document.activeElement && document.activeElement.textContent')).toBe('Allow');
      await Promise.all([page.waitForNavigation(), page.keyboard.press('Enter')]);
      expect(callback?.searchParams.get('code')).toMatch(/^wmc_/);
    } finally {
      await context.close();
    }
  });

  it('serves the pages with a strict policy and a session cookie that scripts cannot read', async () => {
    const redirectUri = 'http://127.0.0.1/headers';
    const client = await registerClient(redirectUri);
    const { challenge } = await pkce();
    const page = await fetch(authorizationUrl(as, { clientId: client.client_id, redirectUri, codeChallenge: challenge }));
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toMatch(/^default-src 'none'; style-src 'sha256-[A-Za-z0-9+/=]+'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'$/);
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    const html = await page.text();
    expect(html).not.toMatch(/<script/i);
    const request = /name="request" value="([^"]+)"/.exec(html)![1]!;
    const signIn = await fetch(new URL('/api/v1/oauth/authorize/sign-in', origin), { method: 'POST', body: new URLSearchParams({ request, ...admin(org.slug) }), redirect: 'manual' });
    expect(signIn.status).toBe(303);
    const cookie = signIn.headers.get('set-cookie')!;
    expect(cookie).toMatch(/^wm_oauth_session=[^;]+; Path=\/api\/v1\/oauth; Max-Age=\d+; HttpOnly; SameSite=Lax$/);
  });
});

describe('a Client ID Metadata Document client', () => {
  it('is fetched, shown by its host, and completes the flow with PKCE alone', async () => {
    const redirectUri = 'http://127.0.0.1:7777/cimd';
    metadataServer.documents.set('/oauth/client.json', { body: JSON.stringify({ client_id: metadataUrl, client_name: 'Metadata Tool', redirect_uris: [redirectUri], token_endpoint_auth_method: 'none' }) });
    const client: oauth.Client = { client_id: metadataUrl, token_endpoint_auth_method: 'none' };
    const { verifier, challenge } = await pkce();
    const state = oauth.generateRandomState();
    const url = authorizationUrl(as, { clientId: metadataUrl, redirectUri, codeChallenge: challenge, state });
    const context = await browser.createBrowserContext();
    try {
      const page = await context.newPage();
      let consentText = '';
      page.on('load', () => void page.content().then((html) => (consentText += html)).catch(() => undefined));
      const callback = await completeInPage(page, url, redirectUri, admin(org.slug));
      expect(consentText).toContain('Metadata Tool');
      expect(consentText).toContain(`from 127.0.0.1:${new URL(metadataUrl).port}`);
      const params = oauth.validateAuthResponse(as, client, callback, state);
      const tokens = await oauth.processAuthorizationCodeResponse(as, client, await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, redirectUri, verifier, options));
      expect(tokens.access_token).toBeTruthy();
    } finally {
      await context.close();
    }
  });
});

describe('authorized clients', () => {
  it('are listed for the user, revocable, and revoked by logout', async () => {
    const member = await createMember(org, { name: 'Grace' });
    const login = await api('POST', '/api/v1/auth/login', { org: org.slug, body: { email: member.email, password: 'member password 1' } });
    const redirectUri = 'http://127.0.0.1/grants';
    const client = await registerClient(redirectUri, member.token);
    const auth = oauth.ClientSecretPost(client.client_secret as string);
    const obtain = async () => {
      const { verifier, challenge } = await pkce();
      const callback = await completeInBrowser(browser, authorizationUrl(as, { clientId: client.client_id, redirectUri, codeChallenge: challenge, state: 'grants-state' }), redirectUri, { email: member.email, password: 'member password 1' });
      const params = oauth.validateAuthResponse(as, client, callback, 'grants-state');
      return oauth.processAuthorizationCodeResponse(as, client, await oauth.authorizationCodeGrantRequest(as, client, auth, params, redirectUri, verifier, options));
    };
    const first = await obtain();
    const second = await obtain();
    const host = { host: `${org.slug}.localhost:${runtime.port}` };

    const listed = await api('GET', '/api/v1/oauth/grants', { token: member.token, org: org.slug });
    expect(listed.status).toBe(200);
    expect(listed.body.data).toHaveLength(2);
    expect(listed.body.data[0]).toMatchObject({ clientId: client.client_id, clientName: 'Test Assistant', scopes: ['read', 'write'] });

    const organizations = await api('GET', `/api/v1/oauth/me/organizations?client_id=${client.client_id}`, { token: first.access_token, headers: host });
    expect(organizations.status).toBe(200);
    expect(organizations.body.data).toEqual([{ id: org.orgId, slug: org.slug, name: `Org ${org.slug}`, scopes: ['read', 'write'] }]);

    // Another user cannot revoke it; the owner can, and only that grant's tokens stop.
    expect((await org.call('DELETE', `/api/v1/oauth/grants/${listed.body.data[1].id}`)).status).toBe(404);
    expect((await api('DELETE', `/api/v1/oauth/grants/${listed.body.data[1].id}`, { token: member.token, org: org.slug })).status).toBe(204);
    expect((await api('GET', '/api/v1/users/me', { token: first.access_token, headers: host })).status).toBe(401);
    expect((await api('GET', '/api/v1/users/me', { token: second.access_token, headers: host })).status).toBe(200);

    // Logging out revokes every grant of the user (the API reference): tokens and refresh alike.
    expect((await api('POST', '/api/v1/auth/logout', { token: login.body.token, org: org.slug })).status).toBe(204);
    expect((await api('GET', '/api/v1/users/me', { token: second.access_token, headers: host })).status).toBe(401);
    const refresh = await oauth.refreshTokenGrantRequest(as, client, auth, second.refresh_token!, options);
    expect(refresh.status).toBe(400);
    expect(((await refresh.json()) as { error: string }).error).toBe('invalid_grant');
  });
});
