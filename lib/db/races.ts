import { Conflict } from '../core/errors.js';

/**
 * The project's one retry policy for lost races. A race is lost when a write meets a
 * concurrent one: either DynamoDB cancels a transaction because another transaction was
 * touching one of its items (TransactionConflict: nothing read is stale, the same write is
 * sent again, by `transact` and by the client middleware for single-item writes), or a
 * guarded write finds that what it read has changed (`LostRace`: read again, decide again, by
 * `retryLostRaces`). Either way the operation tries again after a pause drawn at random
 * (full jitter) from a range that doubles with each loss, for as long as its budget of about two
 * seconds of pauses lasts, then answers 409 CONFLICT. Writes that do not conflict all get through that
 * way: on a busy item each pause spreads the contenders out. A failed condition that is an
 * answer (a name taken, a claim held, a limit reached, an expected version that no longer
 * holds) is never retried.
 */
export const RACE_BUDGET_MS = 2_000;
/** However little time the pauses take (tests pause for nothing), an operation stops after this many attempts. */
export const MAX_RACE_ATTEMPTS = 40;

/** Milliseconds to wait before attempt `attempt + 1`: uniform from 0 to 10 ms × 2^(attempt−1), at most 250. */
export function racePauseMs(attempt: number): number {
  return Math.random() * Math.min(250, 10 * 2 ** (attempt - 1));
}

/**
 * The pauses one operation may still take: each `pause(attempt)` after a lost attempt waits and
 * answers true, or answers false once the pauses would exceed RACE_BUDGET_MS in all (the work of
 * each attempt does not count: on a contended item the attempts take turns) or the attempts
 * reach MAX_RACE_ATTEMPTS.
 */
export function raceBudget(draw: (attempt: number) => number = racePauseMs): { pause(attempt: number): Promise<boolean> } {
  let paused = 0;
  return {
    async pause(attempt) {
      if (attempt >= MAX_RACE_ATTEMPTS) return false;
      const wait = draw(attempt);
      if (paused + wait > RACE_BUDGET_MS) return false;
      paused += wait;
      await new Promise((resolve) => setTimeout(resolve, wait));
      return true;
    },
  };
}

/**
 * A guarded write found that what it read has changed since (its version, `updatedAt` or a
 * counter moved): the caller reads again and decides again. If it keeps losing, this escapes
 * as what it is, a 409 CONFLICT.
 */
export class LostRace extends Conflict {
  constructor(message = 'The resource changed concurrently; retry') {
    super(message);
    this.name = 'LostRace';
  }
}

/** Runs a read-decide-write operation again from its read whenever it throws LostRace, within the race budget. */
export async function retryLostRaces<T>(operation: (attempt: number) => Promise<T>): Promise<T> {
  const budget = raceBudget();
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await operation(attempt);
    } catch (error) {
      if (!(error instanceof LostRace) || !(await budget.pause(attempt))) throw error;
    }
  }
}
