import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { api, createToken, setPlan } from '../support/api.js';
import { oauthFetch } from '../support/oauth.js';
import { boardSetup, type BoardSetup } from '../support/tickets.js';
import { createAgent, createTicket } from '../support/factories.js';

/*
 * The MCP endpoint with both official clients: the 2.x client (protocol 2026-07-28) and the
 * 1.x client (2025-11-25, `initialize` first, served statelessly). Tools call the domain
 * functions REST uses; a claim made over MCP carries the client's name.
 */
let setup: BoardSetup;
const fetch = oauthFetch();
const mcpUrl = () => new URL(`http://${setup.org.slug}.localhost:${new URL(inject('baseUrl')).port}/api/v1/mcp`);

beforeAll(async () => {
  setup = await boardSetup('MCP');
  await setPlan(setup.org.slug, 'PRO');
}, 60_000);

async function modernClient(token: string, name = 'Modern Agent') {
  const client = new Client({ name, version: '2.0.0' });
  await client.connect(new StreamableHTTPClientTransport(mcpUrl(), { fetch: fetch as never, requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  return client;
}

async function legacyClient(token: string, name = 'Legacy Agent') {
  const client = new LegacyClient({ name, version: '1.0.0' });
  await client.connect(new LegacyTransport(mcpUrl(), { fetch: fetch as never, requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  return client;
}

describe('the MCP endpoint', () => {
  it('lists the tools to a 2026-07-28 client and claims with the client name', async () => {
    const agent = await createAgent(setup.org, { boardIds: [setup.boardId] });
    const ticket = await createTicket(setup.org, setup.boardId, { title: 'MCP claim' });
    const client = await modernClient(agent.token);
    const tools = await client.listTools();
    expect(tools.tools.map((tool) => tool.name)).toContain('tickets_claim');
    const result = await client.callTool({ name: 'tickets_claim', arguments: { displayId: ticket.displayId } });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ ticketId: ticket.id, claimedBy: 'Modern Agent' });
    const rest = await api('GET', `/api/v1/boards/${setup.boardId}/tickets/${ticket.id}`, { token: setup.org.adminToken, org: setup.org.slug });
    expect(rest.body.data.claim.claimedBy.name).toBe('Modern Agent');
    await client.close();
  });

  it('serves a 2025-11-25 client that starts with initialize, statelessly', async () => {
    const agent = await createAgent(setup.org, { boardIds: [setup.boardId] });
    const ticket = await createTicket(setup.org, setup.boardId, { title: 'Legacy claim' });
    const client = await legacyClient(agent.token);
    const tools = await client.listTools();
    expect(tools.tools.length).toBeGreaterThan(5);
    const result = await client.callTool({ name: 'tickets_claim', arguments: { ticketId: ticket.id } });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ claimedBy: 'Legacy Agent' });
    const heartbeat = await client.callTool({ name: 'tickets_heartbeat', arguments: { ticketId: ticket.id } });
    expect(heartbeat.isError).toBeFalsy();
    await client.close();
  });

  it('offers a read-only token the read tools only', async () => {
    const { token } = await createToken(setup.org, setup.org.adminToken, { readOnly: true });
    const client = await modernClient(token);
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    expect(names).toContain('tickets_list');
    expect(names).not.toContain('tickets_claim');
    await client.close();
  });

  it('refuses another Origin (DNS rebinding) and a missing token', async () => {
    const { token } = await createToken(setup.org, setup.org.adminToken);
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
    const foreign = await fetch(mcpUrl(), { method: 'POST', body, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', origin: 'http://evil.example.com' } });
    expect(foreign.status).toBe(403);
    const anonymous = await fetch(mcpUrl(), { method: 'POST', body, headers: { 'content-type': 'application/json' } });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toContain('resource_metadata=');
  });
});
