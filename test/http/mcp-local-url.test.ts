import { Client, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { LocalRuntime } from '../../infra/local/runtime.js';
import { createToken, setPlan, signupOrg, uniqueSlug, useRuntime, type TestOrg } from '../support/api.js';
import { createBoard } from '../support/factories.js';
import { TestOAuthProvider } from '../support/mcp-oauth-provider.js';
import { authorizeOverHttp, oauthFetch } from '../support/oauth.js';

/*
 * The README's local MCP URL, as `npm start` serves it: `http://localhost:PORT/api/v1/mcp`, with
 * no custom header. Node does not resolve `<slug>.localhost` (ENOTFOUND), and without
 * X-Organization discovery used to end in "Organization not found"; a runtime with a default
 * organization (DEFAULT_ORGANIZATION; `npm start`: `acme`) reaches it from that URL. Each form the
 * README gives runs with the official MCP client: the URL alone (Claude Code, Cursor, VS Code:
 * 401, discovery, registration, sign-in and consent, token, tools) and the URL with only an
 * `Authorization` header (a personal or agent token). A credential of another organization still
 * reaches its own.
 */
let runtime: LocalRuntime;
let org: TestOrg;
let other: TestOrg;
let boardId: string;
let mcpUrl: URL;
const fetch = oauthFetch('a fresh address per request');
const slug = uniqueSlug('local');

beforeAll(async () => {
  const { startLocalRuntime } = await import('../../infra/local/runtime.js');
  runtime = await startLocalRuntime({
    credentialRateLimit: 0, port: 0, dynamoEndpoint: inject('dynamoEndpoint'), tableName: 'wm-mcp-local-url', logRequests: false, validateResponses: true,
    sweeperIntervalSeconds: 3600, trustForwardedFor: true, defaultOrganization: slug,
  });
  useRuntime(runtime);
  org = await signupOrg({ slug });
  other = await signupOrg();
  await Promise.all([setPlan(org.slug, 'PRO'), setPlan(other.slug, 'PRO')]);
  boardId = (await createBoard(org, { name: 'Reached from localhost' })).id;
  mcpUrl = new URL(`http://localhost:${runtime.port}/api/v1/mcp`);
}, 120_000);

afterAll(async () => {
  await runtime?.stop();
  // Nothing this file's runtime set reaches an `npm start` a later file of this worker spawns.
  delete process.env.DEFAULT_ORGANIZATION;
});

/** `tools/list` and `boards_list` through the official client on `transport`: the boards' ids. */
async function boardsOver(transport: StreamableHTTPClientTransport): Promise<string> {
  const mcp = new Client({ name: 'readme-snippet', version: '1.0.0' });
  await mcp.connect(transport);
  const { tools } = await mcp.listTools();
  expect(tools.map((tool) => tool.name)).toContain('tickets_claim_next');
  const boards = await mcp.callTool({ name: 'boards_list', arguments: {} });
  await mcp.close();
  expect(boards.isError).toBeFalsy();
  return JSON.stringify(boards.structuredContent);
}

describe("the README's local MCP URL (http://localhost:PORT/api/v1/mcp, no custom header)", () => {
  it('refuses no client for want of X-Organization: the URL alone goes through 401, discovery, registration, consent and a tool call', async () => {
    const provider = new TestOAuthProvider('http://127.0.0.1:52741/callback', { client_name: 'Claude Code', redirect_uris: ['http://127.0.0.1:52741/callback'], token_endpoint_auth_method: 'none' });
    const first = new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider, fetch: fetch as never });
    await expect(new Client({ name: 'claude-code', version: '1.0.0' }).connect(first)).rejects.toBeInstanceOf(UnauthorizedError);
    expect(provider.information?.client_id).toBeTruthy();
    // MCP clients ask for what the metadata advertises: read and write, never admin.
    expect(provider.authorizationUrl!.searchParams.get('scope')?.split(' ').sort()).toEqual(['read', 'write']);
    const { location } = await authorizeOverHttp(fetch, provider.authorizationUrl!, { email: `admin@${slug}.test`, password: 'correct horse battery' });
    expect(location?.toString().startsWith(provider.redirectUrl)).toBe(true);
    await first.finishAuth(location!.searchParams);
    expect(await boardsOver(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider, fetch: fetch as never }))).toContain(boardId);
  });

  it('refuses no token sent with only an Authorization header, and a token of another organization still reaches its own', async () => {
    const mine = await createToken(org, org.adminToken, { name: 'cursor' });
    expect(await boardsOver(new StreamableHTTPClientTransport(mcpUrl, { requestInit: { headers: { authorization: `Bearer ${mine.token}` } } }))).toContain(boardId);
    const theirs = await createToken(other, other.adminToken, { name: 'elsewhere' });
    const theirBoard = (await createBoard(other, { name: 'Their board' })).id;
    const seen = await boardsOver(new StreamableHTTPClientTransport(mcpUrl, { requestInit: { headers: { authorization: `Bearer ${theirs.token}` } } }));
    expect(seen).toContain(theirBoard);
    expect(seen).not.toContain(boardId);
  });
});
