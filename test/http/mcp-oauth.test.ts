import { existsSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed } from '@modelcontextprotocol/sdk/shared/auth.js';
import { TestOAuthProvider } from '../support/mcp-oauth-provider.js';
import puppeteer, { type Browser } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { api, setPlan } from '../support/api.js';
import { boardSetup, type BoardSetup } from '../support/tickets.js';
import { createTicket } from '../support/factories.js';
import { dispatchedEventsOf } from '../support/events.js';
import { completeInBrowser, oauthFetch } from '../support/oauth.js';

const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/*
 * An AI tool's whole first contact, with the official 1.x client (2025-11-25): it meets 401,
 * discovers the authorization server from the resource metadata, sends the user through the
 * service's sign-in and consent page (headless Chromium), exchanges the code with PKCE, and
 * then works a ticket over MCP: list tools, claim (under the client's name), heartbeat, report
 * done with the claim released; the stream consumer hands on ticket.reported.
 */
let setup: BoardSetup;
let browser: Browser;
const fetch = oauthFetch();
const redirectUri = 'http://127.0.0.1:43123/oauth/callback';

beforeAll(async () => {
  if (!existsSync(chromiumPath)) throw new Error(`Chromium not found at ${chromiumPath}`);
  browser = await puppeteer.launch({ executablePath: chromiumPath, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
  setup = await boardSetup('MCP OAuth');
  await setPlan(setup.org.slug, 'PRO');
  await setup.org.call('PATCH', `/api/v1/organizations/${setup.org.orgId}/agents/policies`, { body: { statusTransitionsRequireApproval: [] } });
}, 60_000);

afterAll(async () => {
  await browser?.close();
});

describe('an MCP 1.x client that signs in with OAuth', () => {
  it('authorizes in the browser, then claims, heartbeats and reports a ticket under its own name', async () => {
    const origin = `http://${setup.org.slug}.localhost:${new URL(inject('baseUrl')).port}`;
    const registered = await fetch(`${origin}/api/v1/oauth/register`, {
      method: 'POST',
      headers: { authorization: `Bearer ${setup.org.adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'Desk Assistant', redirect_uris: ['http://127.0.0.1/oauth/callback'] }),
    });
    const client = (await registered.json()) as OAuthClientInformationMixed;
    const provider = new TestOAuthProvider(redirectUri, { client_name: 'Desk Assistant', redirect_uris: [redirectUri], token_endpoint_auth_method: 'client_secret_post', grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'] }, { registered: client, state: 'mcp-oauth-state-123' });
    const url = new URL(`${origin}/api/v1/mcp`);

    // First contact: 401, discovery, and the user is sent to the authorization page.
    const first = new StreamableHTTPClientTransport(url, { authProvider: provider, fetch: fetch as never });
    await expect(new Client({ name: 'Desk Assistant', version: '1.0.0' }).connect(first)).rejects.toBeInstanceOf(UnauthorizedError);
    expect(provider.authorizationUrl?.origin).toBe(origin);
    const callback = await completeInBrowser(browser, provider.authorizationUrl!, redirectUri, { email: `admin@${setup.org.slug}.test`, password: 'correct horse battery' });
    expect(callback.searchParams.get('iss')).toBe(origin);
    await first.finishAuth(callback.searchParams.get('code')!);
    expect(provider.saved?.access_token).toBeTruthy();

    const mcp = new Client({ name: 'Desk Assistant', version: '1.0.0' });
    await mcp.connect(new StreamableHTTPClientTransport(url, { authProvider: provider, fetch: fetch as never }));
    expect((await mcp.listTools()).tools.map((tool) => tool.name)).toContain('tickets_report');
    const ticket = await createTicket(setup.org, setup.boardId, { title: 'Via OAuth', statusId: setup.statuses.IN_PROGRESS.id });
    const claimed = await mcp.callTool({ name: 'tickets_claim', arguments: { displayId: ticket.displayId } });
    expect(claimed.structuredContent).toMatchObject({ claimedBy: 'Ada Admin', client: 'Desk Assistant' });
    const claimCount = (claimed.structuredContent as { claimCount: number }).claimCount;
    expect((await mcp.callTool({ name: 'tickets_heartbeat', arguments: { displayId: ticket.displayId, claimCount } })).isError).toBeFalsy();
    const report = await mcp.callTool({ name: 'tickets_report', arguments: { displayId: ticket.displayId, claimCount, outcome: 'done', summary: 'Done through MCP', setStatus: true, releaseClaim: true } });
    expect(report.structuredContent).toMatchObject({ statusChanged: true, claimReleased: true });
    await mcp.close();

    const events = await dispatchedEventsOf(setup.org.orgId, ticket.id, 4);
    expect(events.find((event) => event.type === 'ticket.reported')?.data).toMatchObject({ outcome: 'done', claimReleased: true, statusChanged: true, clientName: 'Desk Assistant', actorId: setup.org.adminId });
    const rest = await api('GET', `/api/v1/boards/${setup.boardId}/tickets/${ticket.id}`, { token: setup.org.adminToken, org: setup.org.slug });
    expect(rest.body.data.claim).toBeNull();
  });
});
