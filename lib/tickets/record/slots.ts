import type { TransactionEntities } from '../../db/transact.js';

/** The transaction item that frees one of an agent's claim slots (ADD -1; an upsert). */
export function releaseSlot(e: TransactionEntities, orgId: string, agentId: string) {
  return e.claimSlots.update({ orgId, agentId }).add({ held: -1 }).commit();
}
