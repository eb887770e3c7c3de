import { describe, expect, it } from 'vitest';
import { LostRace, MAX_RACE_ATTEMPTS, RACE_BUDGET_MS, racePauseMs, retryLostRaces } from '../../lib/db/races.js';
import { AppError, conflict } from '../../lib/core/errors.js';

describe('the race policy', () => {
  it('runs an operation again from its read while it loses races, then succeeds', async () => {
    let calls = 0;
    const result = await retryLostRaces(async (attempt) => {
      calls += 1;
      if (attempt < 3) throw new LostRace();
      return `won on attempt ${attempt}`;
    });
    expect(result).toBe('won on attempt 3');
    expect(calls).toBe(3);
  });

  it('keeps trying through about two seconds of pauses, then gives up with the lost race as a 409 CONFLICT', async () => {
    let calls = 0;
    const started = Date.now();
    const error = await retryLostRaces(async () => {
      calls += 1;
      throw new LostRace('The ticket changed concurrently; retry');
    }).catch((caught: unknown) => caught);
    const spent = Date.now() - started;
    expect(spent).toBeLessThanOrEqual(RACE_BUDGET_MS + 200);
    expect(calls).toBeGreaterThan(4);
    expect(calls).toBeLessThanOrEqual(MAX_RACE_ATTEMPTS);
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ status: 409, code: 'CONFLICT', message: 'The ticket changed concurrently; retry' });
  });

  it('never retries an answer: any other error ends the operation at once', async () => {
    let calls = 0;
    const error = await retryLostRaces(async () => {
      calls += 1;
      throw conflict('A status named "Done" already exists');
    }).catch((caught: unknown) => caught);
    expect(calls).toBe(1);
    expect(error).toMatchObject({ message: 'A status named "Done" already exists' });
  });

  it('draws each pause at random from a range that doubles with each loss, up to 250 ms', () => {
    for (let attempt = 1; attempt <= 10; attempt += 1) {
      const ceiling = Math.min(250, 10 * 2 ** (attempt - 1));
      const pauses = Array.from({ length: 200 }, () => racePauseMs(attempt));
      expect(Math.min(...pauses)).toBeGreaterThanOrEqual(0);
      expect(Math.max(...pauses)).toBeLessThanOrEqual(ceiling);
      // Full jitter: the whole range is used, not a band near its top.
      expect(Math.min(...pauses)).toBeLessThan(ceiling / 4);
    }
  });
});
