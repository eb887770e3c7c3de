import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';
import { TestOAuthProvider } from '../support/mcp-oauth-provider.js';
import * as oauth from 'oauth4webapi';
import puppeteer, { type Browser } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { LocalRuntime } from '../../infra/local/runtime.js';
import { api, setPlan, useRuntime } from '../support/api.js';
import { db } from '../../lib/db/service.js';
import { boardSetup, type BoardSetup } from '../support/tickets.js';
import { authorizeOverHttp, clientOptions, completeInBrowser, discover, oauthFetch, startDocumentServer, startOAuthRuntime } from '../support/oauth.js';

const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/*
 * The MCP clients people use, each replaying its published way in: Client ID Metadata
 * Documents (Claude, VS Code, ChatGPT) and anonymous dynamic registration of a public client
 * (Cursor, with its own URI scheme; GitHub Copilot CLI, with a loopback redirect). Each runs the
 * official MCP client (2.x) through the 401, discovery, sign-in and consent (headless Chromium,
 * or the pages' forms over HTTP where the redirect is an application's own scheme, which a
 * browser hands to the operating system), the token exchange, `tools/list` and a tool call;
 * oauth4webapi checks the server metadata independently and refreshes the tokens as the client
 * would. The metadata documents are served over HTTPS from 127.0.0.1 (this runtime admits
 * loopback outbound requests), with the published content and redirect URIs.
 */
let runtime: LocalRuntime;
let browser: Browser;
let setup: BoardSetup;
let origin: string;
const fetch = oauthFetch('a fresh address per request');
const dir = mkdtempSync(path.join(tmpdir(), 'mcp-clients-'));
let documents: Awaited<ReturnType<typeof startDocumentServer>>;
const user = () => ({ email: `admin@${setup.org.slug}.test`, password: 'correct horse battery' });

beforeAll(async () => {
  if (!existsSync(chromiumPath)) throw new Error(`Chromium not found at ${chromiumPath}`);
  runtime = await startOAuthRuntime('wm-mcp-clients', inject('dynamoEndpoint'));
  useRuntime(runtime);
  browser = await puppeteer.launch({ executablePath: chromiumPath, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
  setup = await boardSetup('Clients');
  await setPlan(setup.org.slug, 'PRO');
  origin = `http://${setup.org.slug}.localhost:${runtime.port}`;
  documents = await startDocumentServer(dir);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await runtime?.stop();
  await documents?.close();
  rmSync(dir, { recursive: true, force: true });
});

/**
 * One client's first contact through to a tool call: 401 and discovery, the user sent to the
 * authorization page (signed in and consenting there), the code exchanged, then `tools/list`
 * and `boards_list` over MCP with the new token. Returns what the client was given.
 */
async function connect(provider: TestOAuthProvider, options: { serverUrl?: string; headers?: Record<string, string>; browserPrefix?: string } = {}) {
  const url = new URL(options.serverUrl ?? `${origin}/api/v1/mcp`);
  const transportOptions = { authProvider: provider, fetch: fetch as never, ...(options.headers ? { requestInit: { headers: options.headers } } : {}) };
  const first = new StreamableHTTPClientTransport(url, transportOptions);
  await expect(new Client({ name: 'matrix', version: '1.0.0' }).connect(first)).rejects.toBeInstanceOf(UnauthorizedError);
  const authorizationUrl = provider.authorizationUrl!;
  expect(authorizationUrl).toBeDefined();
  const callback = options.browserPrefix
    ? await completeInBrowser(browser, authorizationUrl, options.browserPrefix, user())
    : (await authorizeOverHttp(fetch, authorizationUrl, user())).location!;
  expect(callback.toString().startsWith(provider.redirectUrl)).toBe(true);
  expect(callback.searchParams.get('state')).toBe('client-matrix-state');
  await first.finishAuth(callback.searchParams);
  expect(provider.saved?.access_token).toBeTruthy();

  const mcp = new Client({ name: provider.clientMetadata.client_name, version: '1.0.0' });
  await mcp.connect(new StreamableHTTPClientTransport(url, transportOptions));
  const { tools } = await mcp.listTools();
  expect(tools.map((tool) => tool.name)).toContain('tickets_claim');
  const boards = await mcp.callTool({ name: 'boards_list', arguments: {} });
  expect(boards.isError).toBeFalsy();
  expect(JSON.stringify(boards.structuredContent)).toContain(setup.boardId);
  await mcp.close();
  return { authorizationUrl, callback, tokens: provider.saved as { access_token: string; refresh_token: string; scope: string } };
}

/** Serves a published Client ID Metadata Document's content at a path of the local HTTPS server; its client_id is that URL. */
function publish(pathname: string, document: Record<string, unknown>): string {
  const url = `${documents.base}${pathname}`;
  documents.documents.set(pathname, { body: JSON.stringify({ client_id: url, ...document }) });
  return url;
}

/** oauth4webapi's view of the server: the metadata it validates, and a refresh as the client sends it. */
async function refreshIndependently(clientId: string, refreshToken: string, additionalParameters: Record<string, string> = {}) {
  const as = await discover(origin, fetch);
  expect(as.token_endpoint_auth_methods_supported).toContain('none');
  expect(as.client_id_metadata_document_supported).toBe(true);
  const client = { client_id: clientId, token_endpoint_auth_method: 'none' };
  return oauth.processRefreshTokenResponse(as, client, await oauth.refreshTokenGrantRequest(as, client, oauth.None(), refreshToken, { ...clientOptions(fetch), additionalParameters }));
}

describe('the MCP clients people use connect', () => {
  it('Claude: a Client ID Metadata Document with its claude.ai callback', async () => {
    const metadataUrl = publish('/oauth/claude-client-metadata', {
      client_name: 'Claude',
      client_uri: 'https://claude.ai',
      redirect_uris: ['https://claude.ai/api/mcp/auth_callback'],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    });
    const provider = new TestOAuthProvider('https://claude.ai/api/mcp/auth_callback', { client_name: 'Claude', redirect_uris: ['https://claude.ai/api/mcp/auth_callback'] }, { metadataUrl });
    const { authorizationUrl, callback, tokens } = await connect(provider, { browserPrefix: 'https://claude.ai/api/mcp/auth_callback' });
    expect(authorizationUrl.searchParams.get('client_id')).toBe(metadataUrl);
    expect(callback.searchParams.get('iss')).toBe(origin);
    const refreshed = await refreshIndependently(metadataUrl, tokens.refresh_token);
    expect((await api('GET', '/api/v1/users/me', { token: refreshed.access_token, headers: { host: new URL(origin).host } })).status).toBe(200);
  });

  it('VS Code: the vscode.dev metadata document, returning to its fixed loopback port', async () => {
    const metadataUrl = publish('/oauth/client-metadata.json', {
      client_name: 'Visual Studio Code',
      client_uri: 'https://code.visualstudio.com',
      redirect_uris: ['http://127.0.0.1:33418', 'https://vscode.dev/redirect'],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    });
    const provider = new TestOAuthProvider('http://127.0.0.1:33418', { client_name: 'Visual Studio Code', redirect_uris: ['http://127.0.0.1:33418', 'https://vscode.dev/redirect'] }, { metadataUrl });
    const { callback } = await connect(provider, { browserPrefix: 'http://127.0.0.1:33418' });
    expect(callback.origin).toBe('http://127.0.0.1:33418');
  });

  it('ChatGPT: a metadata document, with resource echoed at authorization, token and refresh', async () => {
    const redirect = 'https://chatgpt.com/connector_platform_oauth_redirect';
    const metadataUrl = publish('/oauth/chatgpt-client-metadata.json', {
      client_name: 'ChatGPT',
      redirect_uris: [redirect],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    });
    const provider = new TestOAuthProvider(redirect, { client_name: 'ChatGPT', redirect_uris: [redirect] }, { metadataUrl });
    const { authorizationUrl, tokens } = await connect(provider, { browserPrefix: redirect });
    const resource = `${origin}/api/v1/mcp`;
    expect(authorizationUrl.searchParams.get('resource')).toBe(resource);
    const refreshed = await refreshIndependently(metadataUrl, tokens.refresh_token, { resource });
    expect(refreshed.access_token).toBeTruthy();
    const elsewhere = await refreshIndependently(metadataUrl, refreshed.refresh_token!, { resource: 'https://elsewhere.example.com/mcp' }).catch((error: unknown) => error);
    expect(elsewhere).toBeInstanceOf(oauth.ResponseBodyError);
    expect((elsewhere as oauth.ResponseBodyError).error).toBe('invalid_target');
  });

  it("Cursor: anonymous registration of a public client with its own cursor:// scheme and its web callback", async () => {
    // Cursor's registration as it sends it, through oauth4webapi: no credential at all.
    const as = await discover(origin, fetch);
    const registration = {
      client_name: 'Cursor',
      redirect_uris: ['cursor://anysphere.cursor-mcp/oauth/callback', 'https://www.cursor.com/agents/mcp/oauth/callback'],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
    };
    const registered = await oauth.processDynamicClientRegistrationResponse(await oauth.dynamicClientRegistrationRequest(as, registration, clientOptions(fetch)));
    expect(registered).toMatchObject({ token_endpoint_auth_method: 'none', redirect_uris: registration.redirect_uris });
    expect(registered.client_secret).toBeUndefined();

    const provider = new TestOAuthProvider('cursor://anysphere.cursor-mcp/oauth/callback', registration, { registered });
    const { callback, tokens } = await connect(provider);
    expect(callback.protocol).toBe('cursor:');
    expect(callback.searchParams.get('iss')).toBe(origin);
    expect((await refreshIndependently(registered.client_id, tokens.refresh_token)).access_token).toBeTruthy();

    // Its web callback works too (in the browser), with the same registration.
    const web = new TestOAuthProvider('https://www.cursor.com/agents/mcp/oauth/callback', registration, { registered });
    await connect(web, { browserPrefix: 'https://www.cursor.com/agents/mcp/oauth/callback' });
  });

  it('GitHub Copilot CLI: anonymous registration by the MCP client itself, with a loopback redirect', async () => {
    const provider = new TestOAuthProvider('http://127.0.0.1:52731/', {
      client_name: 'GitHub Copilot CLI',
      redirect_uris: ['http://127.0.0.1:52731/'],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    });
    await connect(provider, { browserPrefix: 'http://127.0.0.1:52731/' });
    expect(provider.information).toMatchObject({ token_endpoint_auth_method: 'none' });
    expect(provider.information.client_secret).toBeUndefined();
    const grants = (await setup.org.call('GET', '/api/v1/oauth/grants')).body.data as { clientName: string }[];
    expect(grants.map((grant) => grant.clientName)).toEqual(expect.arrayContaining(['Claude', 'Visual Studio Code', 'ChatGPT', 'Cursor', 'GitHub Copilot CLI']));
  });

  it('a Node MCP client against a shared origin (npm start on localhost), naming the organization with X-Organization', async () => {
    const provider = new TestOAuthProvider('http://127.0.0.1:52732/callback', {
      client_name: 'Local Tool',
      redirect_uris: ['http://127.0.0.1:52732/callback'],
      token_endpoint_auth_method: 'none',
    });
    const shared = `http://127.0.0.1:${runtime.port}`;
    const { authorizationUrl, callback } = await connect(provider, { serverUrl: `${shared}/api/v1/mcp`, headers: { 'x-organization': setup.org.slug }, browserPrefix: 'http://127.0.0.1:52732/callback' });
    expect(authorizationUrl.origin).toBe(shared);
    expect(authorizationUrl.searchParams.get('org')).toBe(setup.org.slug);
    expect(callback.searchParams.get('iss')).toBe(shared);
  });
});

describe('open registration refuses', () => {
  const register = (body: Record<string, unknown>, ip = `10.9.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`) =>
    fetch(`${origin}/api/v1/oauth/register`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-forwarded-for': ip }, body: JSON.stringify(body) });

  it.each([
    ['javascript:', 'javascript:alert(1)//'],
    ['data:', 'data:text/html,hi'],
    ['file:', 'file:///etc/passwd'],
    ['vbscript:', 'vbscript:msgbox(1)'],
    ['plain http to a non-loopback host', 'http://app.example.com/cb'],
    ['a fragment', 'cursor://anysphere.cursor-mcp/cb#x'],
  ])('a redirect URI with %s', async (_name, uri) => {
    const response = await register({ client_name: 'Evil', redirect_uris: [uri] });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: string }).error).toBe('invalid_redirect_uri');
  });

  it('a confidential client without a credential (token_endpoint_auth_method client_secret_post)', async () => {
    const response = await register({ client_name: 'Secretive', redirect_uris: ['https://app.example.com/cb'], token_endpoint_auth_method: 'client_secret_post' });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: string }).error).toBe('invalid_client_metadata');
  });

  it('a private-use scheme for a confidential client registered with a session', async () => {
    const response = await fetch(`${origin}/api/v1/oauth/register`, {
      method: 'POST',
      headers: { authorization: `Bearer ${setup.org.adminToken}`, 'content-type': 'application/json', 'x-forwarded-for': '10.8.0.1' },
      body: JSON.stringify({ client_name: 'Desk', redirect_uris: ['com.example.desk:/callback'] }),
    });
    expect(response.status).toBe(400);
  });

  it('a sixth registration from one address within the hour, counting nothing', async () => {
    for (let index = 0; index < 5; index += 1) expect((await register({ client_name: `Tool ${index}`, redirect_uris: ['com.example.tool:/cb'] }, '10.7.7.7')).status).toBe(201);
    const limited = await register({ client_name: 'Tool 6', redirect_uris: ['com.example.tool:/cb'] }, '10.7.7.7');
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBeTruthy();
  });

  it('a public client never used within 24 hours of its registration; one that was used stays', async () => {
    const unused = (await (await register({ client_name: 'Forgotten', redirect_uris: ['com.example.forgotten:/cb'] })).json()) as { client_id: string };
    const stored = (await db().entities.oauthClient.get({ clientId: unused.client_id }).go()).data!;
    expect(stored).toMatchObject({ kind: 'PUBLIC', orgId: setup.org.orgId });
    expect(Date.parse(stored.expiresAt!) - Date.parse(stored.createdAt)).toBe(24 * 3600 * 1000);
    await db().entities.oauthClient.patch({ clientId: unused.client_id }).set({ expiresAt: new Date(Date.now() - 1000).toISOString() }).go();
    const query = new URLSearchParams({ response_type: 'code', client_id: unused.client_id, redirect_uri: 'com.example.forgotten:/cb', code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256', state: 'state-12345' });
    const page = await fetch(`${origin}/api/v1/oauth/authorize?${query}`, { redirect: 'manual' });
    expect(page.status).toBe(400);
    expect(await page.text()).toContain('Unknown client');

    const grants = (await setup.org.call('GET', '/api/v1/oauth/grants')).body.data as { clientId: string; clientName: string }[];
    const used = grants.find((grant) => grant.clientName === 'Cursor')!;
    const kept = (await db().entities.oauthClient.get({ clientId: used.clientId }).go()).data!;
    expect(kept.usedAt).toBeDefined();
    expect(kept.expiresAt).toBeUndefined();
    expect(kept.ttl).toBeUndefined();
  });

  it("a public client at another organization's authorization endpoint", async () => {
    const registered = (await (await register({ client_name: 'Homebound', redirect_uris: ['com.example.home:/cb'] })).json()) as { client_id: string };
    const other = await boardSetup('Elsewhere');
    const query = new URLSearchParams({ response_type: 'code', client_id: registered.client_id, redirect_uri: 'com.example.home:/cb', code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256', state: 'state-12345' });
    const page = await fetch(`http://${other.org.slug}.localhost:${runtime.port}/api/v1/oauth/authorize?${query}`, { redirect: 'manual' });
    expect(page.status).toBe(400);
    expect(await page.text()).toContain('Unknown client');
  });
});
