import { signupOrg, type TestOrg } from './api.js';

/** A fresh organization with one board, and the organization's statuses by key (BACKLOG, DONE …). */
export interface BoardSetup {
  org: TestOrg;
  boardId: string;
  prefix: string;
  statuses: Record<string, any>;
}

export async function boardSetup(name: string, prefix?: string): Promise<BoardSetup> {
  const org = await signupOrg();
  const board = await org.call('POST', '/api/v1/boards', { body: { name, ...(prefix ? { prefix } : {}) } });
  if (board.status !== 201) throw new Error(`create board failed: ${board.status} ${JSON.stringify(board.body)}`);
  const statuses = (await org.call('GET', '/api/v1/statuses')).body.data;
  return { org, boardId: board.body.id, prefix: board.body.prefix, statuses: Object.fromEntries(statuses.map((status: any) => [status.key, status])) };
}
