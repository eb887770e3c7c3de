import { describe, expect, it } from 'vitest';
import { ConditionalCheckFailedException, TransactionConflictException } from '@aws-sdk/client-dynamodb';
import { retryTransactionConflicts } from '../../lib/db/client.js';
import { MAX_RACE_ATTEMPTS } from '../../lib/db/races.js';

/** A handler failing with the given errors in turn, then answering `done`. */
function handler(errors: Error[]) {
  let calls = 0;
  const next = async () => {
    calls += 1;
    const error = errors[calls - 1];
    if (error) throw error;
    return 'done';
  };
  return { next, calls: () => calls };
}

/** The SDK's own exception classes, as its deserializer builds them from DynamoDB's answer. */
const EXCEPTIONS = { TransactionConflictException, ConditionalCheckFailedException };
const named = (name: keyof typeof EXCEPTIONS) => new EXCEPTIONS[name]({ message: name, $metadata: {} });
const noPause = () => 0;

describe('single-item writes that meet a concurrent transaction', () => {
  it('are sent again until they pass', async () => {
    const h = handler([named('TransactionConflictException'), named('TransactionConflictException')]);
    await expect(retryTransactionConflicts(h.next, noPause)({})).resolves.toBe('done');
    expect(h.calls()).toBe(3);
  });

  it(`give up with the conflict once the race budget is spent (here: after ${MAX_RACE_ATTEMPTS} attempts that take no time)`, async () => {
    const h = handler(Array.from({ length: 60 }, () => named('TransactionConflictException')));
    await expect(retryTransactionConflicts(h.next, noPause)({})).rejects.toMatchObject({ name: 'TransactionConflictException' });
    expect(h.calls()).toBe(MAX_RACE_ATTEMPTS);
  });

  it('never retry any other error (a failed condition is an answer)', async () => {
    const h = handler([named('ConditionalCheckFailedException')]);
    await expect(retryTransactionConflicts(h.next, noPause)({})).rejects.toMatchObject({ name: 'ConditionalCheckFailedException' });
    expect(h.calls()).toBe(1);
  });
});
