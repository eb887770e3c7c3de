import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { createMember, createToken, setPlan, type TestOrg } from '../support/api.js';
import { oauthFetch } from '../support/oauth.js';
import { boardSetup, type BoardSetup } from '../support/tickets.js';
import { createAgent, createTicket, type TestAgent } from '../support/factories.js';

/*
 * The inbox inside AI clients (docs/console.md, "The inbox inside AI clients"): `inbox_show`
 * names its MCP Apps view, the view is one HTML document of MIME type
 * `text/html;profile=mcp-app`, and deciding from it goes through the same tools and checks as
 * anywhere. Driven by the official MCP client, as a host would.
 */
let setup: BoardSetup;
let org: TestOrg;
let agent: TestAgent;
let statuses: Record<string, { id: string }>;
const fetch = oauthFetch();
const mcpUrl = () => new URL(`http://${setup.org.slug}.localhost:${new URL(inject('baseUrl')).port}/api/v1/mcp`);

async function connect(token: string): Promise<Client> {
  const client = new Client({ name: 'Apps Host', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(mcpUrl(), { fetch: fetch as never, requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  return client;
}

/** An agent's move into a gated status: refused, and left as a suggestion for a person. */
async function suggestedMove(title: string): Promise<{ ticketId: string; displayId: string; suggestionId: string }> {
  const ticket = await createTicket(org, setup.boardId, { title, statusId: statuses.IN_PROGRESS!.id });
  const refused = await agent.call('PATCH', `/api/v1/boards/${setup.boardId}/tickets/${ticket.id}/status`, { statusId: statuses.DONE!.id, reason: 'Tests pass' });
  expect(refused.status).toBe(403);
  return { ticketId: ticket.id, displayId: ticket.displayId, suggestionId: refused.body.error.details.suggestionId };
}

beforeAll(async () => {
  setup = await boardSetup('APP');
  org = setup.org;
  await setPlan(org.slug, 'PRO');
  expect((await org.call('PATCH', `/api/v1/boards/${setup.boardId}`, { body: { features: { explainableStatus: true } } })).status).toBe(200);
  statuses = Object.fromEntries((await org.call('GET', '/api/v1/statuses')).body.data.map((status: { key: string }) => [status.key, status]));
  agent = await createAgent(org, { agent: { name: 'App Bot', ownerId: org.adminId }, boardIds: [setup.boardId] });
}, 60_000);

describe('the inbox as an MCP App', () => {
  it('names its view on inbox_show, and serves the view as one HTML document with its script inline', async () => {
    const client = await connect(org.adminToken);
    const tools = (await client.listTools()).tools;
    const inbox = tools.find((tool) => tool.name === 'inbox_show')!;
    expect(inbox._meta).toMatchObject({ ui: { resourceUri: 'ui://work-management/inbox.html' }, 'ui/resourceUri': 'ui://work-management/inbox.html' });
    expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['suggestions_decide', 'time_entries_decide']));
    const resources = (await client.listResources()).resources;
    expect(resources).toContainEqual(expect.objectContaining({ uri: 'ui://work-management/inbox.html', mimeType: 'text/html;profile=mcp-app' }));
    const read = await client.readResource({ uri: 'ui://work-management/inbox.html' });
    const [view] = read.contents as { uri: string; mimeType: string; text: string; _meta?: unknown }[];
    expect(view).toMatchObject({ uri: 'ui://work-management/inbox.html', mimeType: 'text/html;profile=mcp-app' });
    expect(view!.text).toMatch(/^<!doctype html>/);
    expect(view!.text).toContain('<script type="module">');
    expect(view!.text).not.toContain('/*SCRIPT*/');
    // Nothing is fetched from elsewhere: no external script, style or image.
    expect(view!.text).not.toMatch(/<(script|link|img)[^>]+(src|href)=/i);
    await client.close();
  });

  it('shows what waits (also to a client without the extension), and approving from it moves the ticket', async () => {
    const move = await suggestedMove('Ship from the app');
    const client = await connect(org.adminToken);
    const shown = await client.callTool({ name: 'inbox_show', arguments: {} });
    expect(shown.isError).toBeFalsy();
    const content = shown.structuredContent as { suggestions: { id: string; displayId: string; to: string }[]; mayApproveTime: boolean };
    expect(content.suggestions).toContainEqual(expect.objectContaining({ id: move.suggestionId, displayId: move.displayId, to: 'Done' }));
    // The same, as text, for a client that renders no view.
    expect((shown.content as { type: string; text: string }[])[0]!.text).toContain(move.displayId);

    const decided = await client.callTool({ name: 'suggestions_decide', arguments: { boardId: setup.boardId, ticketId: move.ticketId, suggestionId: move.suggestionId, decision: 'accept' } });
    expect(decided.structuredContent).toMatchObject({ id: move.suggestionId, state: 'ACCEPTED' });
    const ticket = await org.call('GET', `/api/v1/boards/${setup.boardId}/tickets/${move.ticketId}`);
    expect(ticket.body.data.status.id).toBe(statuses.DONE!.id);
    const again = await client.callTool({ name: 'suggestions_decide', arguments: { boardId: setup.boardId, ticketId: move.ticketId, suggestionId: move.suggestionId, decision: 'reject' } });
    expect(again.isError).toBe(true);
    expect((await client.callTool({ name: 'inbox_show', arguments: {} })).structuredContent).toMatchObject({ suggestions: expect.not.arrayContaining([expect.objectContaining({ id: move.suggestionId })]) });
    await client.close();
  });

  it('approves and rejects agent time, and holds deciders to the same checks as REST', async () => {
    const ticket = await createTicket(org, setup.boardId, { title: 'Time from the app' });
    const booked = await agent.call('POST', '/api/v1/time-tracking/entries', { ticketId: ticket.id, durationMinutes: 25, description: 'Worked' });
    expect(booked.body.state).toBe('PENDING');
    const member = await createMember(org);
    const memberClient = await connect(member.token);
    const memberInbox = (await memberClient.callTool({ name: 'inbox_show', arguments: {} })).structuredContent as { mayApproveTime: boolean; pendingTime: unknown[] };
    expect(memberInbox).toMatchObject({ mayApproveTime: false, pendingTime: [] });
    const refused = await memberClient.callTool({ name: 'time_entries_decide', arguments: { entryId: booked.body.id, decision: 'approve' } });
    expect(refused.isError).toBe(true);
    expect(JSON.parse((refused.content as { text: string }[])[0]!.text).error.code).toBe('FORBIDDEN');
    await memberClient.close();

    const client = await connect(org.adminToken);
    const inbox = (await client.callTool({ name: 'inbox_show', arguments: {} })).structuredContent as { pendingTime: { id: string; minutes: number }[] };
    expect(inbox.pendingTime).toContainEqual(expect.objectContaining({ id: booked.body.id, minutes: 25 }));
    const approved = await client.callTool({ name: 'time_entries_decide', arguments: { entryId: booked.body.id, decision: 'approve' } });
    expect(approved.structuredContent).toMatchObject({ id: booked.body.id, state: 'APPROVED' });
    const second = await agent.call('POST', '/api/v1/time-tracking/entries', { ticketId: ticket.id, durationMinutes: 5, description: 'Padding' });
    const rejected = await client.callTool({ name: 'time_entries_decide', arguments: { entryId: second.body.id, decision: 'reject', reason: 'Not this ticket' } });
    expect(rejected.structuredContent).toMatchObject({ id: second.body.id, state: 'REJECTED' });
    expect((await org.call('GET', `/api/v1/boards/${setup.boardId}/tickets/${ticket.id}/time-entries`)).body.data.map((entry: { state: string; rejectionReason: string | null }) => [entry.state, entry.rejectionReason]).sort()).toEqual([
      ['APPROVED', null],
      ['REJECTED', 'Not this ticket'],
    ]);
    // A read-only token is offered no deciding tool; the agent may decide nothing.
    const readOnly = await connect((await createToken(org, org.adminToken, { name: 'read only', readOnly: true })).token);
    const readOnlyTools = (await readOnly.listTools()).tools.map((tool) => tool.name);
    expect(readOnlyTools).toContain('inbox_show');
    expect(readOnlyTools).not.toContain('suggestions_decide');
    expect(readOnlyTools).not.toContain('time_entries_decide');
    await readOnly.close();
    const agentClient = await connect(agent.token);
    const byAgent = await agentClient.callTool({ name: 'suggestions_decide', arguments: { boardId: setup.boardId, ticketId: ticket.id, suggestionId: 'sug_01J00000000000000000000000', decision: 'accept' } });
    expect(byAgent.isError).toBe(true);
    await agentClient.close();
    await client.close();
  });
});
