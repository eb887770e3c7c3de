import { guarded, type Guarded, type TransactionEntities } from '../db/transact.js';

/** Counters on the organization item that hold a limit under concurrent creates. */
export type LimitedCounter = 'liveAgentCount' | 'webhookEndpointCount';

/**
 * The transaction item that counts one more against the organization's limit: `+1` guarded by
 * `< limit` (its failure is `limitReached`), so two concurrent creates cannot both pass it.
 * Sign-up starts every counter at 0.
 */
export function counterUp(e: TransactionEntities, orgId: string, counter: LimitedCounter, limit: number, limitReached: () => Error): Guarded {
  return guarded(
    e.organization
      .patch({ orgId })
      .add({ [counter]: 1 })
      .where((attr, op) => op.lt(attr[counter], limit))
      .commit(),
    limitReached,
  );
}

/** The transaction item that counts one less (a delete). */
export const counterDown = (e: TransactionEntities, orgId: string, counter: LimitedCounter) =>
  e.organization.patch({ orgId }).add({ [counter]: -1 }).commit();
