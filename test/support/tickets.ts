import { db } from '../../lib/db/service.js';
import { signupOrg, type TestOrg } from './api.js';
import { createBoard } from './factories.js';

/** A fresh organization with one board, and the organization's statuses by key (BACKLOG, DONE …). */
export interface BoardSetup {
  org: TestOrg;
  boardId: string;
  prefix: string;
  statuses: Record<string, any>;
}

export async function boardSetup(name: string, prefix?: string): Promise<BoardSetup> {
  const org = await signupOrg();
  const board = await createBoard(org, { name, ...(prefix ? { prefix } : {}) });
  const statuses = (await org.call('GET', '/api/v1/statuses')).body.data;
  return { org, boardId: board.id, prefix: board.prefix, statuses: Object.fromEntries(statuses.map((status: any) => [status.key, status])) };
}

/**
 * Lets a ticket's claim lapse at once, as if its lease had run out without the sweeper: the
 * expiry moves to `at` (1 s ago by default). The whole item is put again, so the entity derives
 * every index key from it (the claim indexes are sparse: a patch would have to name every
 * composite of their keys).
 */
export async function lapseClaim(ticketId: string, at = new Date(Date.now() - 1000).toISOString()): Promise<string> {
  const { data: ticket } = await db().entities.ticket.get({ ticketId }).go({ consistent: true });
  if (!ticket?.claimedById) throw new Error(`ticket ${ticketId} is not claimed`);
  await db().entities.ticket.put({ ...ticket, claimExpiresAt: at }).go();
  return at;
}
