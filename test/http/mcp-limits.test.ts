import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { api, setPlan } from '../support/api.js';
import { oauthFetch } from '../support/oauth.js';
import { boardSetup, type BoardSetup } from '../support/tickets.js';
import { createAgent, createTicket } from '../support/factories.js';

/*
 * MCP tools take what their REST counterparts take: every limit of a field both offer is the
 * same (read from `tools/list` and the OpenAPI document, as clients see them), and an argument
 * a tool does not declare is a tool error naming it, never dropped in silence.
 */
let setup: BoardSetup;
let client: Client;
let openapi: any;
const fetch = oauthFetch();

beforeAll(async () => {
  setup = await boardSetup('McpLimits');
  await setPlan(setup.org.slug, 'PRO');
  openapi = (await api('GET', '/api/v1/openapi.json')).body;
  client = await connect(setup.org.adminToken);
}, 60_000);

afterAll(async () => {
  await client?.close();
});

async function connect(token: string) {
  const connected = new Client({ name: 'Limits probe', version: '1.0.0' });
  const url = new URL(`http://${setup.org.slug}.localhost:${new URL(inject('baseUrl')).port}/api/v1/mcp`);
  await connected.connect(new StreamableHTTPClientTransport(url, { fetch: fetch as never, requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  return connected;
}

const TICKET = '/api/v1/boards/{boardId}/tickets/{ticketId}';
/** Each tool's REST counterpart: the route, and which of its body (or query) fields each tool argument is. */
const COUNTERPARTS: Record<string, { route: string; fields: Record<string, string> }> = {
  boards_list: { route: 'GET /api/v1/boards', fields: { search: 'search' } },
  tickets_search: { route: 'GET /api/v1/issues', fields: { query: 'search' } },
  tickets_create: { route: 'POST /api/v1/boards/{boardId}/tickets', fields: { title: 'title', description: 'description', priority: 'priority', assigneeId: 'assigneeId', statusId: 'statusId' } },
  tickets_update: { route: `PATCH ${TICKET}`, fields: { title: 'title', description: 'description', priority: 'priority', assigneeId: 'assigneeId', dueDate: 'dueDate' } },
  tickets_set_status: { route: `PATCH ${TICKET}/status`, fields: { statusId: 'statusId', reason: 'reason' } },
  tickets_claim_next: {
    route: 'POST /api/v1/claims/next',
    fields: { leaseSeconds: 'leaseSeconds', assign: 'assign', boardIds: 'boardIds', statusIds: 'statusIds', labelIds: 'labelIds', typeIds: 'typeIds', priorities: 'priorities' },
  },
  tickets_claim: { route: `POST ${TICKET}/claim`, fields: { leaseSeconds: 'leaseSeconds', assign: 'assign' } },
  tickets_heartbeat: { route: `POST ${TICKET}/claim/heartbeat`, fields: { extendSeconds: 'extendSeconds', note: 'note', usage: 'usage' } },
  tickets_report: {
    route: `POST ${TICKET}/reports`,
    fields: { outcome: 'outcome', summary: 'summary', prUrl: 'prUrl', branch: 'branch', setStatus: 'setStatus', releaseClaim: 'releaseClaim', usage: 'usage' },
  },
  tickets_release: {
    route: `DELETE ${TICKET}/claim`,
    fields: { reason: 'reason', handoff: 'handoff' },
  },
  comments_add: { route: `POST ${TICKET}/comments`, fields: { content: 'content' } },
  time_log: { route: 'POST /api/v1/time-tracking/entries', fields: { durationMinutes: 'durationMinutes', description: 'description', date: 'date' } },
  wiki_search: { route: 'GET /api/v1/wiki/search', fields: { query: 'q' } },
  suggestions_decide: { route: `POST ${TICKET}/suggestions/{suggestionId}/reject`, fields: { reason: 'reason' } },
  time_entries_decide: { route: 'POST /api/v1/time-tracking/entries/{entryId}/reject', fields: { reason: 'reason' } },
};

/**
 * Arguments only MCP has, each with why: naming a ticket (REST names it in the path), fencing
 * (REST: the X-Claim-Count header), idempotency (REST: the Idempotency-Key header), pages sized
 * for a model's context, and tools with no REST twin (a run's report, reading a wiki page in windows).
 */
const MCP_ONLY = new Set([
  'ticketId', 'displayId', 'boardId', 'claimCount', 'idempotencyKey', 'page', 'limit', 'descriptionOffset',
  'statusId', 'assigneeId', 'claimable', 'assignedToMe', 'claimedBy', 'includePlanning',
  'outcome', 'prUrl', 'branch', 'setStatus', 'releaseClaim', 'summary',
  'spaceId', 'pageId', 'offset',
  // Deciding from the inbox: REST names the suggestion or entry in the path, and the decision by the route (accept / reject).
  'suggestionId', 'entryId', 'decision',
]);

const LIMIT_KEYWORDS = ['maxLength', 'minLength', 'maximum', 'minimum', 'exclusiveMaximum', 'exclusiveMinimum', 'maxItems', 'minItems', 'pattern', 'enum'];

function resolve(schema: any): any {
  let current = schema;
  while (current?.$ref) current = current.$ref.split('/').slice(1).reduce((node: any, key: string) => node[key], openapi);
  return current;
}

/** The limits a schema states, by path (`items.maxLength`), null branches of a nullable aside. */
function limitsOf(schema: any, at = ''): Record<string, unknown> {
  const node = resolve(schema);
  if (!node || typeof node !== 'object') return {};
  const found: Record<string, unknown> = {};
  // A date's pattern is what its format says; the MCP listing keeps the format alone (lib/mcp/server.ts).
  const dated = node.format === 'date' || node.format === 'date-time';
  for (const keyword of LIMIT_KEYWORDS) if (node[keyword] !== undefined && !(dated && keyword === 'pattern')) found[`${at}${keyword}`] = node[keyword];
  const branches = [...(node.anyOf ?? []), ...(node.oneOf ?? [])].filter((branch: any) => resolve(branch)?.type !== 'null');
  branches.forEach((branch: any, index: number) => {
    Object.assign(found, limitsOf(branch, branches.length > 1 ? `${at}${index}.` : at));
  });
  if (node.items) Object.assign(found, limitsOf(node.items, `${at}items.`));
  return found;
}

/** A REST field's schema: a body property (dotted into nested objects) or a query parameter. */
function restField(routeKey: string, field: string): any {
  const [method, path] = routeKey.split(' ') as [string, string];
  const operation = openapi.paths[path][method.toLowerCase()];
  if (method === 'GET') return operation.parameters.map(resolve).find((parameter: any) => parameter.name === field && parameter.in === 'query')?.schema;
  let schema = resolve(operation.requestBody.content['application/json'].schema);
  for (const part of field.split('.')) {
    const object = resolve(schema);
    schema = (object.properties ?? resolve((object.anyOf ?? []).find((branch: any) => resolve(branch).properties))?.properties)?.[part];
  }
  return schema;
}

describe('MCP tool inputs against their REST counterparts', () => {
  it('refuses to differ: every argument a tool shares with its REST route has the same limits, and every other argument is accounted for', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(expect.arrayContaining(Object.keys(COUNTERPARTS)));
    const compared: string[] = [];
    for (const tool of tools) {
      const counterpart = COUNTERPARTS[tool.name];
      for (const [argument, schema] of Object.entries(tool.inputSchema.properties ?? {})) {
        const field = counterpart?.fields[argument];
        if (!field) {
          expect(MCP_ONLY.has(argument), `${tool.name}.${argument} has no REST counterpart named in this test`).toBe(true);
          continue;
        }
        const rest = restField(counterpart.route, field);
        expect(rest, `${counterpart.route} has no field ${field}`).toBeDefined();
        expect(limitsOf(schema), `${tool.name}.${argument} against ${counterpart.route} ${field}`).toEqual(limitsOf(rest));
        compared.push(`${tool.name}.${argument}`);
      }
    }
    // The fields the finding named are among those compared.
    expect(compared).toEqual(expect.arrayContaining(['tickets_create.title', 'tickets_update.title', 'tickets_update.dueDate', 'comments_add.content', 'tickets_claim.leaseSeconds', 'tickets_release.handoff', 'time_log.date']));
  });

  it('refuses a comment of 10,001 characters and a title of 201, as REST does', async () => {
    const ticket = await createTicket(setup.org, setup.boardId, { title: 'Long inputs' });
    const comment = await client.callTool({ name: 'comments_add', arguments: { ticketId: ticket.id, content: 'x'.repeat(10_001) } });
    expect(comment.isError).toBe(true);
    const created = await client.callTool({ name: 'tickets_create', arguments: { boardId: setup.boardId, title: 't'.repeat(201) } });
    expect(created.isError).toBe(true);
    const updated = await client.callTool({ name: 'tickets_update', arguments: { ticketId: ticket.id, title: 't'.repeat(201) } });
    expect(updated.isError).toBe(true);
    expect((await setup.org.call('GET', `/api/v1/boards/${setup.boardId}/tickets/${ticket.id}/comments`)).body.total).toBe(0);
    expect((await setup.org.call('GET', `/api/v1/boards/${setup.boardId}/tickets/${ticket.id}`)).body.data.title).toBe('Long inputs');
  });

  it('clamps a lease outside 60–14,400 seconds as REST does, instead of refusing it', async () => {
    const agent = await createAgent(setup.org, { boardIds: [setup.boardId] });
    const agentClient = await connect(agent.token);
    try {
      const ticket = await createTicket(setup.org, setup.boardId, { title: 'Short lease' });
      const before = Date.now();
      const claimed = await agentClient.callTool({ name: 'tickets_claim', arguments: { ticketId: ticket.id, leaseSeconds: 5 } });
      expect(claimed.isError).toBeFalsy();
      const lease = (Date.parse((claimed.structuredContent as { claimExpiresAt: string }).claimExpiresAt) - before) / 1000;
      expect(lease).toBeGreaterThan(55);
      expect(lease).toBeLessThan(70);
      const renewed = await agentClient.callTool({ name: 'tickets_heartbeat', arguments: { ticketId: ticket.id, extendSeconds: 99_999 } });
      expect(renewed.isError).toBeFalsy();
      expect(Date.parse((renewed.structuredContent as { claimExpiresAt: string }).claimExpiresAt) - Date.now()).toBeLessThanOrEqual(14_400_000);
    } finally {
      await agentClient.close();
    }
  });

  it('refuses an argument a tool does not declare (tickets_release with a flat summary, not the handoff object REST takes), naming it, and keeps the lease', async () => {
    const agent = await createAgent(setup.org, { boardIds: [setup.boardId] });
    const agentClient = await connect(agent.token);
    try {
      const ticket = await createTicket(setup.org, setup.boardId, { title: 'Handoff shape' });
      expect((await agentClient.callTool({ name: 'tickets_claim', arguments: { ticketId: ticket.id } })).isError).toBeFalsy();
      const flat = await agentClient.callTool({ name: 'tickets_release', arguments: { ticketId: ticket.id, summary: 'Half done' } });
      expect(flat.isError).toBe(true);
      expect(JSON.stringify(flat.content)).toContain('summary');
      expect((await setup.org.call('GET', `/api/v1/boards/${setup.boardId}/tickets/${ticket.id}`)).body.data.claim).not.toBeNull();
      const released = await agentClient.callTool({ name: 'tickets_release', arguments: { ticketId: ticket.id, handoff: { summary: 'Half done' } } });
      expect(released.isError).toBeFalsy();
      const handoffs = await setup.org.call('GET', `/api/v1/boards/${setup.boardId}/tickets/${ticket.id}/handoffs`);
      expect(handoffs.body.data[0].summary).toBe('Half done');
    } finally {
      await agentClient.close();
    }
  });
});
