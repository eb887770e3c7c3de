import { conflict } from '../core/errors.js';
import { guarded, type Guarded, type TransactionEntities } from '../db/transact.js';

/** Counters on the organization item that hold a limit under concurrent creates. */
export type LimitedCounter = 'liveAgentCount' | 'webhookEndpointCount';

/**
 * The transaction item that counts one more against the organization's limit: `+1` guarded by
 * `< limit` (its failure is `limitReached`). An organization whose counter was never written
 * (created before the counter existed) starts it from what was just counted, guarded by the
 * counter's absence (another create that started it meanwhile makes this one retry). Either
 * way two concurrent creates cannot both pass the limit.
 */
export function counterUp(
  e: TransactionEntities,
  orgId: string,
  counter: LimitedCounter,
  limit: number,
  countedWhenAbsent: number | undefined,
  limitReached: () => Error,
): Guarded {
  if (countedWhenAbsent !== undefined) {
    return guarded(
      e.organization
        .patch({ orgId })
        .set({ [counter]: countedWhenAbsent + 1 })
        .where((attr, op) => op.notExists(attr[counter]))
        .commit(),
      () => conflict('Created concurrently with another; retry'),
    );
  }
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
