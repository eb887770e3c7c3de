import { AsyncLocalStorage } from 'node:async_hooks';
import { DynamoDBClient, TransactionConflictException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { raceBudget, racePauseMs } from './races.js';

/**
 * One DynamoDB client per container, built at module level and reused across invocations.
 * A middleware counts round trips (one per API call, retries not counted) into the
 * current request's meter, so tests and logs can hold each endpoint to its budget.
 */
export interface RoundTripMeter {
  roundTrips: number;
  operations: string[];
}

const meterStorage = new AsyncLocalStorage<RoundTripMeter>();

export function withRoundTripMeter<T>(meter: RoundTripMeter, fn: () => Promise<T>): Promise<T> {
  return meterStorage.run(meter, fn);
}

export const newMeter = (): RoundTripMeter => ({ roundTrips: 0, operations: [] });

function buildClient(): DynamoDBClient {
  const endpoint = process.env.DYNAMODB_ENDPOINT;
  const client = new DynamoDBClient(
    endpoint
      ? {
          endpoint,
          region: process.env.AWS_REGION ?? 'local',
          credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
        }
      : {},
  );
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const meter = meterStorage.getStore();
      if (meter) {
        meter.roundTrips += 1;
        meter.operations.push(String(context.commandName ?? 'unknown').replace(/Command$/, ''));
      }
      return next(args);
    },
    { step: 'initialize', name: 'roundTripMeter' },
  );
  // Each retry runs serialize → send again: a fresh request, counted as the one round trip above.
  // biome-ignore lint/suspicious/noExplicitAny: the SDK middleware passes any command output through
  client.middlewareStack.add((next) => retryTransactionConflicts(next as (args: unknown) => Promise<any>) as typeof next, {
    step: 'initialize',
    name: 'transactionConflictRetry',
    priority: 'low',
  });
  return client;
}

/**
 * A single-item write (PutItem, UpdateItem, DeleteItem) on an item that a concurrent
 * transaction is writing fails with TransactionConflictException, having written nothing;
 * the SDK does not retry it. This handler sends it again under the project's race policy
 * (lib/db/races.ts), like `transact` does for cancelled transactions. Exported for its unit test.
 */
export function retryTransactionConflicts<Output>(next: (args: unknown) => Promise<Output>, pause = racePauseMs) {
  return async (args: unknown): Promise<Output> => {
    const budget = raceBudget(pause);
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await next(args);
      } catch (error) {
        if (!(error instanceof TransactionConflictException) || !(await budget.pause(attempt))) throw error;
      }
    }
  };
}

let rawClient: DynamoDBClient | undefined;
let documentClient: DynamoDBDocumentClient | undefined;

export function dynamo(): DynamoDBClient {
  rawClient ??= buildClient();
  return rawClient;
}

export function documentDb(): DynamoDBDocumentClient {
  documentClient ??= DynamoDBDocumentClient.from(dynamo(), {
    marshallOptions: { removeUndefinedValues: true },
  });
  return documentClient;
}
