import type { Clock } from '../core/clock.js';
import { sweepLapsedClaims, sweepStaleSearchIndex, type SweepScope } from '../tickets/index.js';
import { log } from '../core/telemetry.js';
import { sweepStaleWikiIndex } from '../wiki/index.js';

/** One periodic housekeeping job; returns how many items it handled. */
export interface SweepTask {
  name: string;
  run(clock: Clock, scope: SweepScope): Promise<number>;
}

/**
 * The tasks the scheduled sweeper runs each minute: lapsed-claim clearing (byClaimExpiry,
 * never a Scan) and search markers no index run cleared (byAge); TTL already removes expired
 * sessions, codes, outbox records, notifications.
 */
export const sweepTasks: SweepTask[] = [
  { name: 'lapsedClaims', run: sweepLapsedClaims },
  { name: 'staleSearchIndex', run: sweepStaleSearchIndex },
  { name: 'staleWikiIndex', run: sweepStaleWikiIndex },
];

export async function runSweep(clock: Clock, scope: SweepScope = {}, tasks: SweepTask[] = sweepTasks): Promise<Record<string, number>> {
  const results: Record<string, number> = {};
  for (const task of tasks) {
    try {
      results[task.name] = await task.run(clock, scope);
    } catch (error) {
      log.error('sweep task failed', { task: task.name }, error);
      results[task.name] = -1;
    }
  }
  return results;
}
