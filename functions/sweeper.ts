import { runSweep } from '../lib/sweeper/index.js';
import { systemClock } from '../lib/core/clock.js';

/** Runs every minute (EventBridge schedule; locally, the runtime's timer). */
export const handler = async (): Promise<Record<string, number>> => {
  const results = await runSweep(systemClock);
  console.log(JSON.stringify({ msg: 'sweep', results }));
  return results;
};
