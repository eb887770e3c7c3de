import { describe, expect, it } from 'vitest';
import { db } from '../../lib/db/service.js';
import { inTransactionChunks, MAX_TRANSACTION_ITEMS, transact, TransactionTooLargeError } from '../../lib/db/transact.js';
import { newId } from '../../lib/core/ids.js';

describe('transact: the 100-item limit', () => {
  it('refuses a transaction of 101 items before sending anything', async () => {
    const orgId = newId('org');
    const keys = Array.from({ length: MAX_TRANSACTION_ITEMS + 1 }, (_, index) => ({ orgId, email: `u${index}@limit.test`, userId: newId('usr') }));
    await expect(transact((e) => keys.map((key) => e.userEmail.create(key).commit()))).rejects.toBeInstanceOf(TransactionTooLargeError);
    const written = await db().entities.userEmail.get({ orgId, email: 'u0@limit.test' }).go();
    expect(written.data).toBeNull();
  });

  it('sends a transaction of exactly 100 items', async () => {
    const orgId = newId('org');
    const keys = Array.from({ length: MAX_TRANSACTION_ITEMS }, (_, index) => ({ orgId, email: `u${index}@limit.test`, userId: newId('usr') }));
    await transact((e) => keys.map((key) => e.userEmail.create(key).commit()));
    expect((await db().entities.userEmail.get({ orgId, email: 'u99@limit.test' }).go()).data).not.toBeNull();
  });

  it('splits work into chunks that fit beside the reserved items', () => {
    const items = Array.from({ length: 250 }, (_, index) => index);
    expect(inTransactionChunks(items, 2).map((chunk) => chunk.length)).toEqual([98, 98, 54]);
    expect(inTransactionChunks(items).map((chunk) => chunk.length)).toEqual([100, 100, 50]);
    expect(inTransactionChunks([], 2)).toEqual([]);
  });
});
