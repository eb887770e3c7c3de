import { describe, expect, it } from 'vitest';
import { LostRace, RACE_ATTEMPTS, racePauseMs, retryLostRaces } from '../../lib/db/races.js';
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

  it(`gives up after ${RACE_ATTEMPTS} attempts with the lost race as a 409 CONFLICT`, async () => {
    let calls = 0;
    const error = await retryLostRaces(async () => {
      calls += 1;
      throw new LostRace('The ticket changed concurrently; retry');
    }).catch((caught: unknown) => caught);
    expect(calls).toBe(RACE_ATTEMPTS);
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

  it('pauses a little longer after each lost attempt, with jitter', () => {
    for (let attempt = 1; attempt <= RACE_ATTEMPTS; attempt += 1) {
      const pause = racePauseMs(attempt);
      expect(pause).toBeGreaterThanOrEqual(10 * attempt);
      expect(pause).toBeLessThanOrEqual(30 * attempt);
    }
  });
});
