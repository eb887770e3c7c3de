import { AppError } from '../core/errors.js';

/**
 * The project's one retry policy for lost races. A race is lost when a write meets a
 * concurrent one: either DynamoDB cancels a transaction because another transaction was
 * touching one of its items (TransactionConflict: nothing read is stale, the same write is
 * sent again, by `transact` and by the client middleware for single-item writes), or a
 * guarded write finds that what it read has changed (`LostRace`: read again, decide again, by
 * `retryLostRaces`). Either way: at most RACE_ATTEMPTS attempts, a jittered pause growing with
 * each attempt, then 409 CONFLICT. A failed condition that is an answer (a name taken, a
 * claim held, a limit reached) is never retried.
 */
export const RACE_ATTEMPTS = 4;

/** Milliseconds to wait before attempt `attempt + 1` (10–30 ms after the first loss, growing). */
export function racePauseMs(attempt: number): number {
  return 10 * attempt + Math.random() * 20 * attempt;
}

export const pauseAfterLostRace = (attempt: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, racePauseMs(attempt)));

/**
 * A guarded write found that what it read has changed since (its version, `updatedAt` or a
 * counter moved): the caller reads again and decides again. If it keeps losing, this escapes
 * as what it is, a 409 CONFLICT.
 */
export class LostRace extends AppError {
  constructor(message = 'The resource changed concurrently; retry') {
    super(409, 'CONFLICT', message);
    this.name = 'LostRace';
  }
}

/** Runs a read-decide-write operation again from its read whenever it throws LostRace (RACE_ATTEMPTS in all). */
export async function retryLostRaces<T>(operation: (attempt: number) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await operation(attempt);
    } catch (error) {
      if (!(error instanceof LostRace) || attempt >= RACE_ATTEMPTS) throw error;
      await pauseAfterLostRace(attempt);
    }
  }
}
