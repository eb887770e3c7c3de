import { beforeAll, describe, expect, it } from 'vitest';
import { api, createToken, expectValidationError, setPlan, useInProcess } from '../support/api.js';
import { boardSetup, type BoardSetup } from '../support/tickets.js';
import { createAgent, createBoard, createMemberWith, createTicket } from '../support/factories.js';

// In process, through the same route table and handlers (test/support/api.ts).
useInProcess();

/*
 * What an outside probe of every route found, each closed and held here by a test named after
 * what it refuses: deeply nested JSON, JSON-RPC batches, a board-limited token reaching a
 * dependency it cannot see, outbound URLs that reach this machine or name no host, system
 * permission groups renamed by a non-administrator, and control characters in stored URLs.
 */
let setup: BoardSetup;

beforeAll(async () => {
  setup = await boardSetup('Probe');
  await setPlan(setup.org.slug, 'PRO');
}, 60_000);

const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
const mcp = (token: string, rawBody: string) =>
  api('POST', '/api/v1/mcp', { token, org: setup.org.slug, rawBody, headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' } });

describe('nesting depth of JSON bodies', () => {
  it.each([
    ['sign-in', '/api/v1/auth/login', false],
    ['sign-up', '/api/v1/auth/signup', false],
    ['the OAuth token endpoint', '/api/v1/oauth/token', false],
    ['client registration', '/api/v1/oauth/register', false],
    ['revocation', '/api/v1/oauth/revoke', false],
    ['ticket creation', 'tickets', true],
  ])('refuses 3,000 levels of nested arrays at %s with a 400 naming the limit', async (_name, path, authenticated) => {
    const target = path === 'tickets' ? `/api/v1/boards/${setup.boardId}/tickets` : path;
    const response = await api('POST', target, { org: setup.org.slug, rawBody: nested(3000), headers: { 'content-type': 'application/json' }, ...(authenticated ? { token: setup.org.adminToken } : {}) });
    expect(response.status).toBe(400);
    expect(JSON.stringify(response.body)).toContain('64');
    if (authenticated) expect(response.body.error.code).toBe('VALIDATION_ERROR');
  });

  it('reads a body nested 64 levels deep as JSON (an ordinary validation error, not the depth limit)', async () => {
    const response = await setup.org.call('POST', `/api/v1/boards/${setup.boardId}/tickets`, { rawBody: `{"title":${nested(63)}}`, headers: { 'content-type': 'application/json' } });
    expectValidationError(response, 'title');
    expect(response.body.error.details.maxDepth).toBeUndefined();
  });

  it('refuses a deeply nested MCP message with a JSON-RPC error', async () => {
    const response = await mcp(setup.org.adminToken, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"boards_list","arguments":${nested(3000)}}}`);
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe(-32600);
    expect(response.body.error.message).toContain('64');
  });
});

describe('JSON-RPC batches', () => {
  it('refuses a batch of 100 comments_add calls with a JSON-RPC error, and adds no comment', async () => {
    const ticket = await createTicket(setup.org, setup.boardId, { title: 'Batch target' });
    const call = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'comments_add', arguments: { ticketId: ticket.id, content: `batched ${id}` } } });
    const response = await mcp(setup.org.adminToken, JSON.stringify(Array.from({ length: 100 }, (_, index) => call(index + 1))));
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe(-32600);
    expect(response.body.error.message).toMatch(/batch/i);
    const comments = await setup.org.call('GET', `/api/v1/boards/${setup.boardId}/tickets/${ticket.id}/comments`);
    expect(comments.body.total).toBe(0);
  });
});

describe('dependencies on tickets a board-limited token cannot see', () => {
  it('refuses to remove a dependency on a hidden blocker (404), keeps the ticket blocked, and names no hidden ticket in its timeline', async () => {
    const hiddenBoard = await createBoard(setup.org, { name: 'Hidden', prefix: `HD${Math.floor(Math.random() * 900 + 100)}` });
    const blocker = await createTicket(setup.org, hiddenBoard.id, { title: 'Secret blocker' });
    const ticket = await createTicket(setup.org, setup.boardId, { title: 'Waits in the open' });
    expect((await setup.org.call('PUT', `/api/v1/boards/${setup.boardId}/tickets/${ticket.id}/dependencies/${blocker.id}`)).status).toBe(200);
    const limited = await createToken(setup.org, setup.org.adminToken, { name: 'one board', allowedBoardIds: [setup.boardId] });
    const asLimited = (method: string, path: string) => api(method, path, { token: limited.token, org: setup.org.slug });

    for (const ref of [blocker.id, blocker.displayId]) {
      const removed = await asLimited('DELETE', `/api/v1/boards/${setup.boardId}/tickets/${ticket.id}/dependencies/${ref}`);
      expect(removed.status).toBe(404);
    }
    const seen = await asLimited('GET', `/api/v1/boards/${setup.boardId}/tickets/${ticket.id}`);
    expect(seen.body.data.openBlockerCount).toBe(1);
    expect(seen.body.data.isReady).toBe(false);

    // The administrator, who sees both boards, removes it: the ticket is unblocked.
    expect((await setup.org.call('DELETE', `/api/v1/boards/${setup.boardId}/tickets/${ticket.id}/dependencies/${blocker.id}`)).status).toBe(204);
    const timeline = (await asLimited('GET', `/api/v1/boards/${setup.boardId}/tickets/${ticket.id}/timeline`)).body.data as { kind: string; details: Record<string, unknown> }[];
    const dependencyEntries = timeline.filter((entry) => ['DEPENDENCY_ADDED', 'DEPENDENCY_REMOVED', 'UNBLOCKED'].includes(entry.kind));
    expect(dependencyEntries.map((entry) => entry.kind)).toEqual(['DEPENDENCY_ADDED', 'DEPENDENCY_REMOVED', 'UNBLOCKED']);
    const text = JSON.stringify(dependencyEntries);
    expect(text).not.toContain(blocker.id);
    expect(text).not.toContain(blocker.displayId);
    for (const entry of dependencyEntries) expect(entry.details.hidden).toBe(true);
    // The administrator's timeline names the blocker.
    const full = JSON.stringify((await setup.org.call('GET', `/api/v1/boards/${setup.boardId}/tickets/${ticket.id}/timeline`)).body.data);
    expect(full).toContain(blocker.displayId);
  });
});

describe('outbound URLs that reach this machine or name no host', () => {
  const refused = [
    'https://[::127.0.0.1]/hooks',
    'https://[::ffff:0:7f00:1]/hooks',
    'https://[::a00:1]/hooks',
    'https://localhost.:8443/x',
    'https://foo.localhost./x',
    'https:///x',
    'https:/x',
    'https:x',
    'https://hooks.example.com/a\u0007b',
  ];

  it.each(refused)('refuses %j as a webhook endpoint, at creation and on update, and changes nothing', async (url) => {
    const created = await setup.org.call('POST', '/api/v1/webhook-endpoints', { body: { name: 'Refused', url, events: ['ticket.created'] } });
    expectValidationError(created, 'url');
    const endpoint = (await setup.org.call('POST', '/api/v1/webhook-endpoints', { body: { name: 'Fine', url: 'https://hooks.example.com/ok', events: ['ticket.created'] } })).body;
    expectValidationError(await setup.org.call('PATCH', `/api/v1/webhook-endpoints/${endpoint.id}`, { body: { url } }), 'url');
    expect((await setup.org.call('GET', `/api/v1/webhook-endpoints/${endpoint.id}`)).body.url).toBe('https://hooks.example.com/ok');
    await setup.org.call('DELETE', `/api/v1/webhook-endpoints/${endpoint.id}`);
  });

  it.each(refused)('refuses %j as the time-booking sync endpoint', async (url) => {
    expectValidationError(await setup.org.call('PUT', '/api/v1/time-tracking/sync-endpoint', { body: { url } }), 'url');
    expect((await setup.org.call('GET', '/api/v1/time-tracking/sync-endpoint')).status).toBe(404);
  });
});

describe('system permission groups', () => {
  it('refuses a non-administrator who manages permission groups a rename of Administrators or Members (403), and lets an administrator rename one', async () => {
    const groups = (await setup.org.call('GET', '/api/v1/permission-groups')).body.data as { id: string; name: string; isSystem: boolean }[];
    const administrators = groups.find((group) => group.name === 'Administrators')!;
    const members = groups.find((group) => group.name === 'Members')!;
    const manager = await createMemberWith(setup.org, ['settings:manage-permission-groups']);
    const asManager = (id: string, body: unknown) => api('PATCH', `/api/v1/permission-groups/${id}`, { token: manager.token, org: setup.org.slug, body });
    for (const [group, name] of [[administrators, 'Guests'], [members, 'Administrators']] as const) {
      const response = await asManager(group.id, { name });
      expect(response.status).toBe(403);
    }
    const after = (await setup.org.call('GET', '/api/v1/permission-groups')).body.data as { id: string; name: string }[];
    expect(after.find((group) => group.id === administrators.id)!.name).toBe('Administrators');
    expect(after.find((group) => group.id === members.id)!.name).toBe('Members');
    // Its colour, and a group of the organization's own, stay the manager's to change.
    expect((await asManager(members.id, { color: '#123456' })).status).toBe(200);
    expect((await setup.org.call('PATCH', `/api/v1/permission-groups/${members.id}`, { body: { name: 'Members' } })).status).toBe(200);
  });
});

describe('control characters in stored URLs', () => {
  it('refuses a handoff link with NUL or BEL (400 naming the link) and keeps the lease', async () => {
    const agent = await createAgent(setup.org, { boardIds: [setup.boardId] });
    const ticket = await createTicket(setup.org, setup.boardId, { title: 'Handoff links' });
    const claimPath = `/api/v1/boards/${setup.boardId}/tickets/${ticket.id}/claim`;
    expect((await api('POST', claimPath, { token: agent.token, org: setup.org.slug, body: {} })).status).toBe(201);
    for (const link of ['https://example.com/a\u0000b', 'https://example.com/\u0007bell']) {
      const released = await api('DELETE', claimPath, { token: agent.token, org: setup.org.slug, body: { handoff: { summary: 'Done half', links: [link] } } });
      expectValidationError(released, 'handoff.links.0');
    }
    expect((await setup.org.call('GET', `/api/v1/boards/${setup.boardId}/tickets/${ticket.id}`)).body.data.claim).not.toBeNull();
  });

  it('refuses an OAuth redirect URI with a control character', async () => {
    const response = await api('POST', '/api/v1/oauth/register', { org: setup.org.slug, body: { client_name: 'Bell', redirect_uris: ['http://127.0.0.1/cb\u0007'] }, headers: { 'x-forwarded-for': '198.51.100.91' } });
    expect(response.status).toBe(400);
  });
});
