import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { api, createToken, setPlan } from '../support/api.js';
import { oauthFetch } from '../support/oauth.js';
import { boardSetup, type BoardSetup } from '../support/tickets.js';
import { createAgent, createTicket } from '../support/factories.js';
import { dispatchedEventsOf } from '../support/events.js';
import { createGrant } from '../support/oauth.js';
import { holdIdempotencyKey } from '../support/idempotency.js';

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

/**
 * The error of a refused tool call: `isError`, no structured content (it would have to satisfy
 * the tool's output schema, which describes success), and the error as JSON in the text content.
 */
function toolError(result: { isError?: unknown; structuredContent?: unknown; content?: unknown }): { code: string; message: string; details?: any } {
  expect(result.isError).toBe(true);
  expect(result.structuredContent).toBeUndefined();
  const [first] = result.content as { type: string; text: string }[];
  expect(first?.type).toBe('text');
  return (JSON.parse(first!.text) as { error: { code: string; message: string; details?: unknown } }).error;
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
    expect(result.structuredContent).toMatchObject({ ticketId: ticket.id, claimedBy: 'Test agent', client: 'Modern Agent' });
    const rest = await api('GET', `/api/v1/boards/${setup.boardId}/tickets/${ticket.id}`, { token: setup.org.adminToken, org: setup.org.slug });
    expect(rest.body.data.claim.claimedBy.name).toBe('Test agent');
    expect(rest.body.data.claim.client).toBe('Modern Agent');
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
    expect(result.structuredContent).toMatchObject({ claimedBy: 'Test agent', client: 'Legacy Agent' });
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

  it('reports a run: done with releaseClaim moves the ticket, frees the claim and emits ticket.reported with the spec fields', async () => {
    // No approval needed for agents' moves in this organization (the gate is tested below).
    await setup.org.call('PATCH', `/api/v1/organizations/${setup.org.orgId}/agents/policies`, { body: { statusTransitionsRequireApproval: [] } });
    const agent = await createAgent(setup.org, { boardIds: [setup.boardId] });
    const ticket = await createTicket(setup.org, setup.boardId, { title: 'Report me', statusId: setup.statuses.IN_PROGRESS.id });
    const client = await modernClient(agent.token, 'Reporter');
    const claimed = await client.callTool({ name: 'tickets_claim', arguments: { ticketId: ticket.id } });
    const claimCount = (claimed.structuredContent as { claimCount: number }).claimCount;
    const report = await client.callTool({ name: 'tickets_report', arguments: { ticketId: ticket.id, outcome: 'done', summary: 'Fixed the login bug', prUrl: 'https://github.com/acme/app/pull/7', branch: 'fix/login', setStatus: true, releaseClaim: true, claimCount } });
    expect(report.isError).toBeFalsy();
    expect(report.structuredContent).toMatchObject({ outcome: 'done', statusChanged: true, claimReleased: true, statusId: setup.statuses.DONE.id });
    const rest = await api('GET', `/api/v1/boards/${setup.boardId}/tickets/${ticket.id}`, { token: setup.org.adminToken, org: setup.org.slug });
    expect(rest.body.data.claim).toBeNull();
    expect(rest.body.data.status.id).toBe(setup.statuses.DONE.id);
    const events = await dispatchedEventsOf(setup.org.orgId, ticket.id, 4);
    const reported = events.find((event) => event.type === 'ticket.reported')!;
    expect(reported.data).toEqual({
      ticketId: ticket.id, boardId: setup.boardId, projectId: setup.boardId, organizationId: setup.org.orgId, claimCount: 1,
      actorId: agent.id, outcome: 'done', summary: 'Fixed the login bug', prUrl: 'https://github.com/acme/app/pull/7', branch: 'fix/login',
      statusChanged: true, claimReleased: true, clientName: 'Reporter',
    });
    // The agents overview counts the run from its maintained counters.
    const overview = await api('GET', `/api/v1/organizations/${setup.org.orgId}/agents/overview`, { token: setup.org.adminToken, org: setup.org.slug });
    const row = overview.body.agents.find((entry: { agentId?: string; id?: string }) => (entry.agentId ?? entry.id) === agent.id);
    expect(row.reportedLast7Days).toMatchObject({ total: 1, done: 1 });
    // A report without a claim: CLAIM_NOT_HELD, as an error result.
    const again = await client.callTool({ name: 'tickets_report', arguments: { ticketId: ticket.id, outcome: 'partial', summary: 'More' } });
    expect(again.isError).toBe(true);
    expect(toolError(again).code).toBe('CLAIM_NOT_HELD');
    // Bad input is a tool result too, naming the problem (not a protocol error).
    const invalid = await client.callTool({ name: 'tickets_report', arguments: { ticketId: ticket.id, outcome: 'finished', summary: 'x' } });
    expect(invalid.isError).toBe(true);
    expect(JSON.stringify(invalid.content)).toContain('outcome');
    // Text that is not valid Unicode is refused, naming the field, as over REST.
    const broken = await client.callTool({ name: 'tickets_create', arguments: { boardId: setup.boardId, title: 'Broken \ud800' } });
    expect(toolError(broken)).toMatchObject({ code: 'VALIDATION_ERROR', details: { issues: [{ path: 'title' }] } });
    await client.close();
  });

  it('claims the next ready ticket, hands it over with a handoff and fences comments and time entries (fleet tools)', async () => {
    const fleet = await boardSetup('MCP fleet');
    await setPlan(fleet.org.slug, 'PRO');
    const holder = await createAgent(fleet.org, { boardIds: [fleet.boardId] });
    const successor = await createAgent(fleet.org, { boardIds: [fleet.boardId] });
    const ticket = await createTicket(fleet.org, fleet.boardId, { title: 'Fleet work', statusId: fleet.statuses.IN_PROGRESS.id });
    const fleetUrl = new URL(`http://${fleet.org.slug}.localhost:${new URL(inject('baseUrl')).port}/api/v1/mcp`);
    const connect = async (token: string) => {
      const client = new Client({ name: 'Fleet agent', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(fleetUrl, { fetch: fetch as never, requestInit: { headers: { authorization: `Bearer ${token}` } } }));
      return client;
    };
    const a = await connect(holder.token);
    const taken = (await a.callTool({ name: 'tickets_claim_next', arguments: { boardIds: [fleet.boardId] } })).structuredContent as { claim: { ticketId: string; claimCount: number; handoff: string | null } };
    expect(taken.claim).toMatchObject({ ticketId: ticket.id, claimCount: 1, handoff: null });
    expect((await a.callTool({ name: 'tickets_heartbeat', arguments: { ticketId: ticket.id, note: 'Half the tests pass', claimCount: 1 } })).isError).toBeFalsy();
    expect((await a.callTool({ name: 'comments_add', arguments: { ticketId: ticket.id, content: 'Progress', claimCount: 1 } })).isError).toBeFalsy();
    // The handoff is REST's own object (one schema for both): without its summary it is refused, and the lease stays.
    const badRelease = await a.callTool({ name: 'tickets_release', arguments: { ticketId: ticket.id, handoff: { nextSteps: 'no summary' }, claimCount: 1 } });
    expect(badRelease.isError).toBe(true);
    expect(JSON.stringify(badRelease.content)).toContain('summary');
    const released = await a.callTool({ name: 'tickets_release', arguments: { ticketId: ticket.id, handoff: { summary: 'Parser done', nextSteps: 'Write the lexer', branch: 'feat/parser', links: ['https://example.com/pr/9'] }, claimCount: 1 } });
    expect(released.structuredContent).toEqual({ released: true });

    const b = await connect(successor.token);
    const next = (await b.callTool({ name: 'tickets_claim_next', arguments: {} })).structuredContent as { claim: { ticketId: string; claimCount: number; handoff: string } };
    expect(next.claim.ticketId).toBe(ticket.id);
    expect(next.claim.claimCount).toBe(2);
    for (const part of ['Handed over by', 'Summary: Parser done', 'Next steps: Write the lexer', 'Branch: feat/parser', 'Links: https://example.com/pr/9', 'Last note', 'Half the tests pass']) expect(next.claim.handoff).toContain(part);
    // The first agent's fence is stale now: its comment and its time are refused, nothing written.
    const comment = await a.callTool({ name: 'comments_add', arguments: { ticketId: ticket.id, content: 'Late', claimCount: 1 } });
    expect(toolError(comment).code).toBe('CLAIM_SUPERSEDED');
    const time = await a.callTool({ name: 'time_log', arguments: { ticketId: ticket.id, durationMinutes: 30, claimCount: 1 } });
    expect(toolError(time).code).toBe('CLAIM_SUPERSEDED');
    expect((await b.callTool({ name: 'time_log', arguments: { ticketId: ticket.id, durationMinutes: 15, claimCount: 2 } })).isError).toBeFalsy();
    const comments = await fleet.org.call('GET', `/api/v1/boards/${fleet.boardId}/tickets/${ticket.id}/comments`);
    expect(comments.body.data.map((entry: { content: string }) => entry.content)).toEqual(['Progress']);
    const entries = await fleet.org.call('GET', `/api/v1/boards/${fleet.boardId}/tickets/${ticket.id}/time-entries`);
    expect(entries.body.data.map((entry: { userId?: string; user?: { id: string } }) => entry.user?.id ?? entry.userId)).toEqual([successor.id]);
    // Nothing else is ready: claim null.
    expect((await b.callTool({ name: 'tickets_claim_next', arguments: {} })).structuredContent).toEqual({ claim: null });
    await a.close();
    await b.close();
  });

  it('fences writes: a superseded claimCount is refused over MCP and over REST, and changes nothing', async () => {
    const first = await createAgent(setup.org, { boardIds: [setup.boardId] });
    const second = await createAgent(setup.org, { boardIds: [setup.boardId] });
    const ticket = await createTicket(setup.org, setup.boardId, { title: 'Fenced' });
    const a = await modernClient(first.token, 'First');
    const old = (await a.callTool({ name: 'tickets_claim', arguments: { ticketId: ticket.id, leaseSeconds: 60 } })).structuredContent as { claimCount: number };
    // The first agent's lease is released by an administrator and the second agent takes the ticket.
    expect((await api('DELETE', `/api/v1/boards/${setup.boardId}/tickets/${ticket.id}/claim`, { token: setup.org.adminToken, org: setup.org.slug, body: {} })).status).toBe(200);
    const b = await modernClient(second.token, 'Second');
    expect((await b.callTool({ name: 'tickets_claim', arguments: { ticketId: ticket.id } })).isError).toBeFalsy();
    const stale = await a.callTool({ name: 'tickets_update', arguments: { ticketId: ticket.id, title: 'Overwritten', claimCount: old.claimCount } });
    expect(stale.isError).toBe(true);
    expect(toolError(stale).code).toBe('CLAIM_SUPERSEDED');
    const heartbeat = await a.callTool({ name: 'tickets_heartbeat', arguments: { ticketId: ticket.id, claimCount: old.claimCount } });
    expect(toolError(heartbeat).code).toBe('CLAIM_SUPERSEDED');
    const rest = await api('PATCH', `/api/v1/boards/${setup.boardId}/tickets/${ticket.id}`, { token: first.token, org: setup.org.slug, headers: { 'x-claim-count': String(old.claimCount) }, body: { title: 'Overwritten' } });
    expect(rest.status).toBe(409);
    expect(rest.body.error.code).toBe('CLAIM_SUPERSEDED');
    const current = await api('GET', `/api/v1/boards/${setup.boardId}/tickets/${ticket.id}`, { token: setup.org.adminToken, org: setup.org.slug });
    expect(current.body.data.title).toBe('Fenced');
    // The holder's own claimCount passes.
    const own = await api('PATCH', `/api/v1/boards/${setup.boardId}/tickets/${ticket.id}`, { token: second.token, org: setup.org.slug, headers: { 'x-claim-count': String(current.body.data.claim.claimCount) }, body: { title: 'By the holder' } });
    expect(own.status).toBe(200);
    await a.close();
    await b.close();
  });

  it('meets the approval gate: tickets_set_status answers AGENT_APPROVAL_REQUIRED with a pending suggestion', async () => {
    const gated = await boardSetup('Gated MCP');
    await setPlan(gated.org.slug, 'PRO');
    await gated.org.call('PATCH', `/api/v1/boards/${gated.boardId}`, { body: { features: { explainableStatus: true } } });
    await gated.org.call('PATCH', `/api/v1/organizations/${gated.org.orgId}/agents/policies`, { body: { statusTransitionsRequireApproval: ['DONE'] } });
    const agent = await createAgent(gated.org, { boardIds: [gated.boardId] });
    const ticket = await createTicket(gated.org, gated.boardId, { title: 'Gate', statusId: gated.statuses.IN_PROGRESS.id });
    const url = new URL(`http://${gated.org.slug}.localhost:${new URL(inject('baseUrl')).port}/api/v1/mcp`);
    const client = new Client({ name: 'Gatekeeper', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(url, { fetch: fetch as never, requestInit: { headers: { authorization: `Bearer ${agent.token}` } } }));
    const result = await client.callTool({ name: 'tickets_set_status', arguments: { ticketId: ticket.id, statusId: gated.statuses.DONE.id, reason: 'Finished' } });
    expect(result.isError).toBe(true);
    const error = toolError(result);
    expect(error.code).toBe('AGENT_APPROVAL_REQUIRED');
    expect(error.details.suggestionId).toMatch(/^sug_/);
    // A report asking for the gated status records the run and keeps the status.
    await client.callTool({ name: 'tickets_claim', arguments: { ticketId: ticket.id } });
    const report = await client.callTool({ name: 'tickets_report', arguments: { ticketId: ticket.id, outcome: 'done', summary: 'Done, pending approval', setStatus: true } });
    expect(report.structuredContent).toMatchObject({ statusChanged: false, approvalRequired: true, claimReleased: false, statusId: gated.statuses.IN_PROGRESS.id });
    await client.close();
  });

  it('confines every tool to allowedBoardIds, and an OAuth token of scope read sees read tools only', async () => {
    const other = await api('POST', '/api/v1/boards', { token: setup.org.adminToken, org: setup.org.slug, body: { name: 'Elsewhere' } });
    const hidden = await createTicket(setup.org, other.body.id, { title: 'Out of reach' });
    const agent = await createAgent(setup.org, { boardIds: [setup.boardId, other.body.id], token: { allowedBoardIds: [setup.boardId] } });
    const client = await modernClient(agent.token);
    const listed = (await client.callTool({ name: 'tickets_list', arguments: { limit: 50 } })).structuredContent as { tickets: { boardId: string }[] };
    expect(listed.tickets.every((entry) => entry.boardId === setup.boardId)).toBe(true);
    const denied = await client.callTool({ name: 'tickets_claim', arguments: { ticketId: hidden.id } });
    expect(denied.isError).toBe(true);
    await client.close();

    const grant = await createGrant(setup.org, inject('baseUrl'));
    const narrowed = await fetch(`${grant.origin}/api/v1/oauth/token`, { method: 'POST', body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: grant.refreshToken, client_id: grant.clientId, client_secret: grant.clientSecret, scope: 'read' }) });
    const readToken = ((await narrowed.json()) as { access_token: string }).access_token;
    const reader = await modernClient(readToken);
    const names = (await reader.listTools()).tools.map((tool) => tool.name);
    expect(names).toEqual(['boards_list', 'statuses_list', 'tickets_list', 'tickets_search', 'tickets_get', 'comments_list', 'wiki_search', 'wiki_get_page', 'inbox_show']);
    await reader.close();
  });

  it('cuts a long description with a marker, and tickets_get reads on from the offset it names', async () => {
    const description = `${'x'.repeat(9_000)}THE END`;
    const ticket = await createTicket(setup.org, setup.boardId, { title: 'Long', description });
    const { token } = await createToken(setup.org, setup.org.adminToken);
    const client = await modernClient(token);
    const first = (await client.callTool({ name: 'tickets_get', arguments: { ticketId: ticket.id } })).structuredContent as { ticket: { description: string } };
    expect(first.ticket.description).toContain('tickets_get with descriptionOffset=8000 reads on');
    const rest = (await client.callTool({ name: 'tickets_get', arguments: { ticketId: ticket.id, descriptionOffset: 8000 } })).structuredContent as { ticket: { description: string } };
    expect(rest.ticket.description).toBe(`${'x'.repeat(1_000)}THE END`);
    await client.close();
  });

  it('lets a denyDelete token release its own claim but not another holder\'s', async () => {
    const careful = await createAgent(setup.org, { boardIds: [setup.boardId], token: { denyDelete: true } });
    const other = await createAgent(setup.org, { boardIds: [setup.boardId] });
    const own = await createTicket(setup.org, setup.boardId, { title: 'Own claim' });
    const theirs = await createTicket(setup.org, setup.boardId, { title: 'Their claim' });
    const client = await modernClient(careful.token, 'Careful');
    await client.callTool({ name: 'tickets_claim', arguments: { ticketId: own.id } });
    expect((await client.callTool({ name: 'tickets_release', arguments: { ticketId: own.id } })).structuredContent).toEqual({ released: true });
    const holder = await modernClient(other.token, 'Holder');
    await holder.callTool({ name: 'tickets_claim', arguments: { ticketId: theirs.id } });
    const refused = await client.callTool({ name: 'tickets_release', arguments: { ticketId: theirs.id } });
    expect(refused.isError).toBe(true);
    expect(toolError(refused).code).toBe('PAT_DENY_DELETE');
    await client.close();
    await holder.close();
  });

  it('logs time with time_log through the REST domain function: an agent\'s time lands PENDING, factored, capped', async () => {
    const owner = (await setup.org.call('GET', '/api/v1/users/me')).body;
    const agent = await createAgent(setup.org, { agent: { ownerId: owner.id }, settings: { timeFactor: 1.5, weeklyHoursCap: 1 }, boardIds: [setup.boardId] });
    const ticket = await createTicket(setup.org, setup.boardId, { title: 'Timed over MCP' });
    const client = await modernClient(agent.token, 'Time Agent');
    const logged = await client.callTool({ name: 'time_log', arguments: { displayId: ticket.displayId, durationMinutes: 20, description: 'Investigated', date: '2026-11-25' } });
    expect(logged.isError).toBeFalsy();
    expect(logged.structuredContent).toEqual({ id: expect.stringMatching(/^te_/), state: 'PENDING', durationMinutes: 30, date: '2026-11-25' });
    const entries = (await setup.org.call('GET', `/api/v1/time-tracking/entries?userId=${agent.id}`)).body.data;
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ source: 'MCP', rawDurationMinutes: 20, durationMinutes: 30, description: 'Investigated', ticketId: ticket.id });
    // 30 of the 60 minutes of that week are booked: another 30 × 1.5 = 45 would pass the cap.
    const refused = await client.callTool({ name: 'time_log', arguments: { ticketId: ticket.id, durationMinutes: 30, date: '2026-11-26' } });
    expect(refused.isError).toBe(true);
    expect(toolError(refused)).toMatchObject({
      code: 'WEEKLY_HOURS_CAP_REACHED',
      details: { cap: 1, used: 0.5, requested: 0.75 },
    });
    const invalid = await client.callTool({ name: 'time_log', arguments: { ticketId: ticket.id, durationMinutes: 10, date: '25.11.2026' } });
    expect(invalid.isError).toBe(true);
    await client.close();
  });

  it('searches the wiki and reads a long page in windows of at most 20,000 characters, through the REST domain functions', async () => {
    const { token } = await createToken(setup.org, setup.org.adminToken);
    const client = await modernClient(token);
    const space = (await setup.org.call('POST', '/api/v1/wiki/spaces', { body: { name: `MCP wiki ${Date.now()}` } })).body;
    const content = `${'Line with "quotes" and emoji 🚀\n'.repeat(2_000)}The END marker.`;
    const page = (await setup.org.call('POST', `/api/v1/wiki/spaces/${space.id}/pages`, { body: { title: 'Long read', content } })).body;
    const found = await client.callTool({ name: 'wiki_search', arguments: { query: 'end MARKER' } });
    expect(found.isError).toBeFalsy();
    expect((found.structuredContent as any).hits).toEqual([{ spaceId: space.id, pageId: page.id, title: 'Long read', snippet: expect.stringContaining('The END marker.') }]);
    const inSpace = await client.callTool({ name: 'wiki_search', arguments: { query: 'long read', spaceId: space.id } });
    expect((inSpace.structuredContent as any).total).toBe(1);

    let offset: number | null = 0;
    let read = '';
    let calls = 0;
    while (offset !== null) {
      const result = await client.callTool({ name: 'wiki_get_page', arguments: { spaceId: space.id, pageId: page.id, offset } });
      const window = result.structuredContent as any;
      expect(window.contentLength).toBe(content.length);
      expect((result.content as any)[0].text.length).toBeLessThanOrEqual(20_000);
      const text: string = window.content;
      read += window.nextOffset === null ? text : text.slice(0, window.nextOffset - offset);
      if (window.nextOffset !== null) expect(text).toContain(`wiki_get_page with offset ${window.nextOffset}`);
      offset = window.nextOffset;
      calls += 1;
    }
    expect(read).toBe(content);
    expect(calls).toBeGreaterThan(2);
    const beyond = await client.callTool({ name: 'wiki_get_page', arguments: { spaceId: space.id, pageId: page.id, offset: content.length + 1 } });
    expect(beyond.isError).toBe(true);
    await client.close();
  });

  it('answers server/discover (2026-07-28) with its versions, capabilities and identity', async () => {
    const { token } = await createToken(setup.org, setup.org.adminToken);
    const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': {} };
    const response = await fetch(mcpUrl(), {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'server/discover' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: meta } }),
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { result: { supportedVersions: string[]; capabilities: Record<string, unknown>; _meta: Record<string, unknown> } };
    expect(body.result.supportedVersions).toContain('2026-07-28');
    expect(body.result.capabilities).toHaveProperty('tools');
    expect(body.result._meta['io.modelcontextprotocol/serverInfo']).toEqual({ name: 'work-management', version: '1.0.0' });
  });

  it('takes an idempotencyKey on the tools that are not idempotent: a retried call does its work once; another call with the key, or one while the first runs, is refused', async () => {
    const agent = await createAgent(setup.org, { boardIds: [setup.boardId] });
    const client = await modernClient(agent.token);
    const { tools } = await client.listTools();
    const keyed = tools.filter((tool) => 'idempotencyKey' in ((tool.inputSchema.properties ?? {}) as object)).map((tool) => tool.name);
    expect(keyed).toEqual(tools.filter((tool) => !tool.annotations?.readOnlyHint && !tool.annotations?.idempotentHint).map((tool) => tool.name));
    expect(keyed).toEqual(expect.arrayContaining(['tickets_create', 'comments_add', 'time_log']));

    const key = `mcp-${Date.now().toString(36)}`;
    const create = (title: string, idempotencyKey = key) => client.callTool({ name: 'tickets_create', arguments: { boardId: setup.boardId, title, idempotencyKey } });
    const first = await create('Created once over MCP');
    expect(first.isError).toBeFalsy();
    expect(first._meta?.idempotentReplayed).toBeUndefined();
    const again = await create('Created once over MCP');
    expect(again.structuredContent).toEqual(first.structuredContent);
    expect(again._meta).toMatchObject({ idempotentReplayed: true });
    const listed = await setup.org.call('GET', `/api/v1/boards/${setup.boardId}/tickets?includePlanning=true&limit=100`);
    expect((listed.body.data as { title: string }[]).filter((ticket) => ticket.title === 'Created once over MCP')).toHaveLength(1);

    expect(toolError(await create('Another ticket')).code).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(toolError(await create('Too long a key', 'k'.repeat(256))).code).toBe('VALIDATION_ERROR');

    // A first call still running holds its key.
    const running = `mcp-running-${Date.now().toString(36)}`;
    await holdIdempotencyKey(setup.org.orgId, agent.id, running);
    expect(toolError(await create('While running', running)).code).toBe('IDEMPOTENCY_KEY_IN_USE');
    await client.close();
  });

  it('describes every tool compactly: flat input objects, title, annotations, output schema; the catalogue under 28,000 characters (about 7,000 tokens)', async () => {
    const { token } = await createToken(setup.org, setup.org.adminToken);
    const client = await modernClient(token);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual([
      'boards_list', 'statuses_list', 'tickets_list', 'tickets_search', 'tickets_get', 'tickets_create', 'tickets_update', 'tickets_set_status',
      'tickets_claim_next', 'tickets_claim', 'tickets_heartbeat', 'tickets_release', 'tickets_report', 'comments_list', 'comments_add', 'time_log',
      'wiki_search', 'wiki_get_page', 'inbox_show', 'suggestions_decide', 'time_entries_decide',
    ]);
    for (const tool of tools) {
      expect(tool.inputSchema.type).toBe('object');
      for (const combinator of ['anyOf', 'oneOf', 'allOf']) expect(tool.inputSchema).not.toHaveProperty(combinator);
      expect(tool.title).toBeTruthy();
      expect(tool.outputSchema?.type).toBe('object');
      expect(tool.annotations).toMatchObject({ openWorldHint: false });
      for (const hint of ['readOnlyHint', 'destructiveHint', 'idempotentHint']) expect(typeof (tool.annotations as Record<string, unknown>)[hint]).toBe('boolean');
    }
    // Refusing undeclared arguments lists `additionalProperties: false` in each tool's schema (29 characters each).
    expect(JSON.stringify(tools).length).toBeLessThan(28_000);
    // The README names the tools in this order, with their count and the size of the list.
    const readme = readFileSync('README.md', 'utf8');
    const documented = /\*\*Tools\*\* \((\d+), in the order `tools\/list` gives them; the list is ([\d,]+) characters of JSON[^)]*\): ([^\n]+)\./.exec(readme);
    expect(documented, 'the README\'s **Tools** line').not.toBeNull();
    expect(Number(documented![1])).toBe(tools.length);
    expect(Number(documented![2]!.replaceAll(',', ''))).toBe(JSON.stringify(tools).length);
    expect([...documented![3]!.matchAll(/`(\w+)`/g)].map((match) => match[1])).toEqual(tools.map((tool) => tool.name));
    expect(readFileSync('docs/performance.md', 'utf8')).toContain(`\`tools/list\`: ${tools.length} tools, ${JSON.stringify(tools).length.toLocaleString('en-US')} characters`);
    const prompt = await client.getPrompt({ name: 'work_next_ticket' });
    expect(JSON.stringify(prompt.messages)).toContain('tickets_claim');
    await client.close();
  });
});
