import { runSweep } from '../lib/sweeper/index.js';
import { systemClock } from '../lib/core/clock.js';
import { log, publishMetrics, takeColdStart } from '../lib/core/telemetry.js';

/** Runs every minute (EventBridge schedule; locally, the runtime's timer). */
export const handler = async (): Promise<Record<string, number>> => {
  const coldStart = takeColdStart();
  const started = Date.now();
  const results = await runSweep(systemClock);
  const clears = Object.values(results).reduce((sum, count) => sum + Math.max(count, 0), 0);
  log.info('sweep', { results, clears, ms: Date.now() - started, coldStart });
  publishMetrics({ SweeperClears: clears });
  return results;
};
