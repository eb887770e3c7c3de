import type { Clock } from '../../core/clock.js';
import type { DependencyItem } from '../../db/entities/index.js';
import { inTransactionChunks, transact } from '../../db/transact.js';
import type { JobRun } from '../../events/index.js';
import { saveTicket } from '../write.js';
import { systemContext } from '../system-context.js';
import { dependencyItemsOf } from '../record/edges.js';
import { recountBlockers, recountSubtickets } from '../record/recount.js';
import type { ReadinessChange } from '../record/readiness.js';

/**
 * The handler of READINESS_JOB (lib/tickets/jobs.ts), the backstop of the recount the write itself
 * made before answering (lib/tickets/write.ts, `settleReadiness`): a deleted ticket's
 * dependencies are removed in both directions; the tickets that depended on it have their open
 * blockers recounted; its parents their open subtickets. Every step recounts from what is
 * stored, so a replay, a write that already recounted, or two records racing, converge on the
 * same counts (a recount that finds the count right writes nothing). Queues no delivery.
 */
export async function propagateReadiness(event: JobRun<ReadinessChange>, clock: Clock): Promise<number> {
  const { ticketId, parentIds, deleted, dependents } = event.data;
  const ctx = systemContext(clock, { orgId: event.orgId });
  let dependentIds: string[] = [];
  if (dependents || deleted) {
    const items = await dependencyItemsOf(ticketId);
    dependentIds = items.filter((item) => item.direction === 'blocks').map((item) => item.otherId);
    if (deleted) await removeEveryDependency(items);
  }
  for (const dependentId of dependentIds) await recountBlockers(ctx, saveTicket, dependentId, ticketId);
  for (const parentId of parentIds) await recountSubtickets(ctx, saveTicket, parentId);
  return 0;
}

/** Removes each dependency of these items with its mirror, a transaction per chunk. */
async function removeEveryDependency(items: DependencyItem[]): Promise<void> {
  const keys = items.flatMap((item) => [
    { ticketId: item.ticketId, direction: item.direction, otherId: item.otherId },
    { ticketId: item.otherId, direction: item.direction === 'blocks' ? 'blockedBy' as const : 'blocks' as const, otherId: item.ticketId },
  ]);
  for (const chunk of inTransactionChunks(keys)) await transact((e) => chunk.map((key) => e.dependency.delete(key).commit()));
}
