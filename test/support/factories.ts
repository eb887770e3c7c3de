import { randomBytes } from 'node:crypto';
import { api, createMember, setPlan, signupOrg, type ApiResponse, type TestOrg } from './api.js';

/*
 * Test data, created through the real API as a client would create it: one factory per
 * resource, with defaults that pass validation and overrides merged over them. A factory
 * throws (naming the status and the error) when the API refuses, so a broken precondition
 * fails where it happens instead of in a later assertion.
 */

function expectCreated(what: string, response: ApiResponse): ApiResponse {
  if (response.status !== 201) throw new Error(`create ${what}: ${response.status} ${JSON.stringify(response.body)}`);
  return response;
}

/** A short random suffix, so names that must be unique in an organization are. */
const unique = (): string => randomBytes(3).toString('hex');

/** A fresh organization (signed up through the API), moved to `plan` by the platform operator when given. */
export async function createOrg(options: { plan?: 'FREE' | 'PRO' | 'ENTERPRISE' } = {}): Promise<TestOrg> {
  const org = await signupOrg();
  if (options.plan && options.plan !== 'FREE') await setPlan(org.slug, options.plan);
  return org;
}

/** Creates a board ("Board <random>" unless named) and answers it. */
export async function createBoard(org: TestOrg, overrides: Record<string, unknown> = {}, options: { token?: string } = {}): Promise<any> {
  return expectCreated('board', await org.call('POST', '/api/v1/boards', { body: { name: `Board ${unique()}`, ...overrides }, ...options })).body;
}

/** Creates a label (a random name, #123456 unless overridden) and answers it. */
export async function createLabel(org: TestOrg, overrides: Record<string, unknown> = {}): Promise<any> {
  return expectCreated('label', await org.call('POST', '/api/v1/labels', { body: { name: `Label ${unique()}`, color: '#123456', ...overrides } })).body;
}

/** Creates a custom field definition (TEXT with a random name unless overridden) and answers it. */
export async function createCustomField(org: TestOrg, overrides: Record<string, unknown> = {}): Promise<any> {
  return expectCreated('custom field', await org.call('POST', '/api/v1/custom-fields', { body: { name: `Field ${unique()}`, type: 'TEXT', ...overrides } })).body;
}

/** Creates an INTERNAL permission group holding `permissions` and answers it. */
export async function createPermissionGroup(org: TestOrg, permissions: string[], overrides: Record<string, unknown> = {}): Promise<any> {
  return expectCreated(
    'permission group',
    await org.call('POST', '/api/v1/permission-groups', { body: { name: `Group ${unique()}`, color: '#123456', type: 'INTERNAL', permissions, ...overrides } }),
  ).body;
}

export interface TestMember {
  id: string;
  token: string;
  email: string;
  /** The permission group the member was created in. */
  groupId: string;
  /** Calls the API with the member's session. */
  call: (method: string, path: string, body?: unknown) => Promise<ApiResponse>;
}

/**
 * A person holding exactly `permissions` (through a group of their own), signed in, and a direct
 * member of `boardIds`.
 */
export async function createMemberWith(org: TestOrg, permissions: string[], options: { name?: string; boardIds?: string[] } = {}): Promise<TestMember> {
  const group = await createPermissionGroup(org, permissions);
  const member = await createMember(org, { ...(options.name ? { name: options.name } : {}), permissionGroupIds: [group.id] });
  for (const boardId of options.boardIds ?? []) await addBoardMember(org, boardId, member.id);
  return { ...member, groupId: group.id, call: (method, path, body) => api(method, path, { token: member.token, org: org.slug, body }) };
}

/** A signed-in TEAM_MEMBER (or as overridden) who is a direct member of the board. */
export async function createBoardMember(org: TestOrg, boardId: string, overrides: Parameters<typeof createMember>[1] = {}): Promise<{ id: string; token: string; email: string }> {
  const member = await createMember(org, overrides);
  await addBoardMember(org, boardId, member.id);
  return member;
}

/** Makes a user (person or agent) a direct member of the board. */
export async function addBoardMember(org: TestOrg, boardId: string, userId: string): Promise<void> {
  const added = await org.call('POST', `/api/v1/boards/${boardId}/members`, { body: { userId } });
  if (added.status >= 300) throw new Error(`add board member: ${added.status} ${JSON.stringify(added.body)}`);
}

/** Creates a milestone on the board (its features must include milestones and releases) and answers it. */
export async function createMilestone(org: TestOrg, boardId: string, overrides: Record<string, unknown> = {}): Promise<any> {
  return expectCreated('milestone', await org.call('POST', `/api/v1/boards/${boardId}/milestones`, { body: { name: `Milestone ${unique()}`, dueDate: '2027-03-01', ...overrides } })).body;
}

/** Creates a ticket on the board (title "A ticket" unless overridden) and answers the full ticket. */
export async function createTicket(org: TestOrg, boardId: string, overrides: Record<string, unknown> = {}, options: { token?: string } = {}): Promise<any> {
  const response = await org.call('POST', `/api/v1/boards/${boardId}/tickets`, { body: { title: 'A ticket', ...overrides }, ...options });
  return expectCreated('ticket', response).body.data;
}

export interface TestAgent {
  id: string;
  token: string;
  /** Calls the API with the agent's token. */
  call: (method: string, path: string, body?: unknown) => Promise<ApiResponse>;
}

export interface AgentOptions {
  /** Fields of the agent itself (name, ownerId …). */
  agent?: Record<string, unknown>;
  /** Fields set after creation by PATCH (maxConcurrentClaims, gitIdentity …), as an administrator would. */
  settings?: Record<string, unknown>;
  /** Fields of the agent's token (clientLabel, denyDelete, readOnly, allowedBoardIds …). */
  token?: Record<string, unknown>;
  /** Boards the agent becomes a direct member of. */
  boardIds?: string[];
}

/**
 * An agent with one token, through the agent API (the organization must be on a plan with
 * agents): created, optionally configured, made a member of `boardIds`, and given a token.
 */
export async function createAgent(org: TestOrg, options: AgentOptions = {}): Promise<TestAgent> {
  const agents = `/api/v1/organizations/${org.orgId}/agents`;
  const id = expectCreated('agent', await org.call('POST', agents, { body: { name: 'Test agent', ...options.agent } })).body.id as string;
  if (options.settings) {
    const patched = await org.call('PATCH', `${agents}/${id}`, { body: options.settings });
    if (patched.status !== 200) throw new Error(`limit agent: ${patched.status} ${JSON.stringify(patched.body)}`);
  }
  for (const boardId of options.boardIds ?? []) await addBoardMember(org, boardId, id);
  const token = expectCreated('agent token', await org.call('POST', `${agents}/${id}/tokens`, { body: { name: 'agent token', ...options.token } })).body.token as string;
  return { id, token, call: (method, path, body) => api(method, path, { token, org: org.slug, body }) };
}

/** Creates a customer (a random name unless overridden) and answers it. */
export async function createCustomer(org: TestOrg, overrides: Record<string, unknown> = {}): Promise<any> {
  return expectCreated('customer', await org.call('POST', '/api/v1/customers', { body: { name: `Customer ${unique()}`, ...overrides } })).body;
}

/** Creates a team (a random name unless overridden; the organization's plan must include teams) and answers it. */
export async function createTeam(org: TestOrg, overrides: Record<string, unknown> = {}): Promise<any> {
  return expectCreated('team', await org.call('POST', '/api/v1/teams', { body: { name: `Team ${unique()}`, ...overrides } })).body;
}

/** Creates a ticket type (a random name, #123456 unless overridden) and answers it. */
export async function createTicketType(org: TestOrg, overrides: Record<string, unknown> = {}): Promise<any> {
  return expectCreated('ticket type', await org.call('POST', '/api/v1/ticket-types', { body: { name: `Type ${unique()}`, color: '#123456', ...overrides } })).body;
}

/** Creates a status (ACTIVE, a random name, #123456 unless overridden) and answers it. */
export async function createStatus(org: TestOrg, overrides: Record<string, unknown> = {}): Promise<any> {
  return expectCreated('status', await org.call('POST', '/api/v1/statuses', { body: { name: `Status ${unique()}`, color: '#123456', ...overrides } })).body;
}

/** Adds a comment to the ticket (as the administrator unless a token is given) and answers it. */
export async function createComment(org: TestOrg, boardId: string, ticketId: string, overrides: Record<string, unknown> = {}, options: { token?: string } = {}): Promise<any> {
  return expectCreated('comment', await org.call('POST', `/api/v1/boards/${boardId}/tickets/${ticketId}/comments`, { body: { content: 'A comment', ...overrides }, ...options })).body.data;
}

/** Creates a release on the board (its features must include milestones and releases) and answers it. */
export async function createRelease(org: TestOrg, boardId: string, overrides: Record<string, unknown> = {}): Promise<any> {
  return expectCreated('release', await org.call('POST', `/api/v1/boards/${boardId}/releases`, { body: { name: `Release ${unique()}`, version: '1.0.0', ...overrides } })).body;
}

/** Creates a webhook endpoint (the organization must be on a plan with webhooks) and answers it, its secret included. */
export async function createWebhookEndpoint(org: TestOrg, overrides: Record<string, unknown> = {}): Promise<any> {
  return expectCreated(
    'webhook endpoint',
    await org.call('POST', '/api/v1/webhook-endpoints', { body: { name: `Endpoint ${unique()}`, url: 'https://hooks.example.com/work', events: ['ticket.created'], ...overrides } }),
  ).body;
}

/** Creates a wiki space (a random name and slug unless overridden) and answers it. */
export async function createWikiSpace(org: TestOrg, overrides: Record<string, unknown> = {}): Promise<any> {
  const name = `Space ${unique()}`;
  return expectCreated('wiki space', await org.call('POST', '/api/v1/wiki/spaces', { body: { name, ...overrides } })).body;
}

/** Creates a published wiki page in the space and answers it. */
export async function createWikiPage(org: TestOrg, spaceId: string, overrides: Record<string, unknown> = {}): Promise<any> {
  return expectCreated('wiki page', await org.call('POST', `/api/v1/wiki/spaces/${spaceId}/pages`, { body: { title: `Page ${unique()}`, content: 'Some words.', isPublished: true, ...overrides } })).body;
}

