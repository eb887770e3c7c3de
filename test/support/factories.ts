import { api, type ApiResponse, type TestOrg } from './api.js';

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
  for (const boardId of options.boardIds ?? []) {
    const added = await org.call('POST', `/api/v1/boards/${boardId}/members`, { body: { userId: id } });
    if (added.status >= 300) throw new Error(`add agent to board: ${added.status} ${JSON.stringify(added.body)}`);
  }
  const token = expectCreated('agent token', await org.call('POST', `${agents}/${id}/tokens`, { body: { name: 'agent token', ...options.token } })).body.token as string;
  return { id, token, call: (method, path, body) => api(method, path, { token, org: org.slug, body }) };
}
