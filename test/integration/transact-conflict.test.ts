import { afterEach, describe, expect, it } from 'vitest';
import { mockClient, type AwsClientStub } from 'aws-sdk-client-mock';
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, TransactWriteCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { db } from '../../lib/db/service.js';
import { documentDb } from '../../lib/db/client.js';
import { guarded, transact } from '../../lib/db/transact.js';
import { AppError, conflict } from '../../lib/core/errors.js';
import { newId } from '../../lib/core/ids.js';
import { MAX_RACE_ATTEMPTS } from '../../lib/db/races.js';

/*
 * DynamoDB Local serializes transactions, so it never reports TransactionConflict (another
 * transaction touching one of the items at the same moment, as shared counters do on AWS).
 * aws-sdk-client-mock injects exactly that cancellation; every other call reaches DynamoDB
 * Local unchanged.
 */

const realSend = DynamoDBDocumentClient.prototype.send as (this: DynamoDBDocumentClient, command: TransactWriteCommand) => Promise<any>;

/** A TransactionCanceledException as the SDK builds it from DynamoDB's answer: one reason per item. */
function cancelled(codes: string[]) {
  return new TransactionCanceledException({
    message: `Transaction cancelled, please refer cancellation reasons for specific reasons [${codes.join(', ')}]`,
    $metadata: {},
    CancellationReasons: codes.map((code) => ({ Code: code, ...(code === 'None' ? {} : { Message: code }) })),
  });
}

let mock: AwsClientStub<DynamoDBDocumentClient> | undefined;

/** Cancels the first `conflicts` TransactWriteItems with the given reasons; the rest run for real. */
function conflictFirst(conflicts: number, codes: string[]) {
  const client = documentDb();
  mock = mockClient(DynamoDBDocumentClient);
  let calls = 0;
  mock.on(TransactWriteCommand).callsFake(async (input: TransactWriteCommandInput) => {
    calls += 1;
    if (calls <= conflicts) throw cancelled(codes);
    return realSend.call(client, new TransactWriteCommand(input));
  });
  return { calls: () => calls };
}

afterEach(() => {
  mock?.restore();
  mock = undefined;
});

/** A two-item write (two notifications of one user) and a read-back of what was written. */
function twoNotifications() {
  const orgId = newId('org');
  const userId = newId('usr');
  const ids = [newId('ntf'), newId('ntf')];
  const at = new Date().toISOString();
  // Each item may carry its own failure (a guarded item), named here after its position.
  const write = (failureOf?: (index: number) => AppError) =>
    transact((e) =>
      ids.map((notificationId, index) => {
        const item = e.notification.create({ orgId, userId, notificationId, type: 'TICKET_CLAIM_EXPIRED', data: {}, createdAt: at, ttl: 2_000_000_000 }).commit();
        return failureOf ? guarded(item, () => failureOf(index)) : item;
      }),
    );
  const stored = async () => (await db().entities.notification.query.byUser({ orgId, userId }).go({ pages: 'all' })).data.length;
  return { write, stored };
}

describe('transactions that lose to a concurrent transaction', () => {
  it('are sent again and succeed once the other transaction is done', async () => {
    const { write, stored } = twoNotifications();
    const counter = conflictFirst(2, ['None', 'TransactionConflict']);
    await write();
    expect(counter.calls()).toBe(3);
    mock!.restore();
    expect(await stored()).toBe(2);
  });

  it('end in 409 CONFLICT once the race budget (about two seconds of pauses) is spent, with nothing written', async () => {
    const { write, stored } = twoNotifications();
    const counter = conflictFirst(1_000, ['TransactionConflict', 'None']);
    const error = await write().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ status: 409, code: 'CONFLICT' });
    expect(counter.calls()).toBeGreaterThan(4);
    expect(counter.calls()).toBeLessThanOrEqual(MAX_RACE_ATTEMPTS);
    mock!.restore();
    expect(await stored()).toBe(0);
  });

  it('are not sent again when a condition failed: the condition\'s error wins at once', async () => {
    const { write } = twoNotifications();
    const counter = conflictFirst(1, ['TransactionConflict', 'ConditionalCheckFailed']);
    const error = await write((index) => conflict(`item ${index} failed`)).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ status: 409, message: 'item 1 failed' });
    expect(counter.calls()).toBe(1);
  });
});
