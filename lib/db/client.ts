import { AsyncLocalStorage } from 'node:async_hooks';
import { DynamoDBClient, TransactionConflictException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { raceBudget, racePauseMs } from './races.js';

/**
 * One DynamoDB client per container, built at module level and reused across invocations.
 * A middleware counts round trips (one per API call, retries not counted) into the
 * current request's meter, so tests and logs can hold each endpoint to its budget. It also
 * asks each data operation for the capacity it consumed (ReturnConsumedCapacity TOTAL: free,
 * a few bytes of answer) and adds it up: read units are DynamoDB's measure of bytes read
 * (up to 4 KB strongly consistent, 8 KB eventually consistent each), what a request costs.
 */
export interface RoundTripMeter {
  roundTrips: number;
  operations: string[];
  /** Whether to ask for consumed capacity (free on DynamoDB; DynamoDB Local spends time on it, a third more on a large COUNT). */
  capacity: boolean;
  readUnits: number;
  writeUnits: number;
}

/** The operations that read (their consumed capacity is read units); the other data operations write. */
const READS = new Set(['GetItem', 'BatchGetItem', 'Query', 'Scan', 'TransactGetItems']);
export const WRITE_OPERATIONS = new Set(['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem', 'TransactWriteItems']);

/** The capacity units of an answer: one ConsumedCapacity, or one per table (batches, transactions). */
function unitsOf(output: unknown): number {
  const consumed = (output as { ConsumedCapacity?: { CapacityUnits?: number } | { CapacityUnits?: number }[] } | undefined)?.ConsumedCapacity;
  if (!consumed) return 0;
  return (Array.isArray(consumed) ? consumed : [consumed]).reduce((sum, entry) => sum + (entry.CapacityUnits ?? 0), 0);
}

const meterStorage = new AsyncLocalStorage<RoundTripMeter>();

export function withRoundTripMeter<T>(meter: RoundTripMeter, fn: () => Promise<T>): Promise<T> {
  return meterStorage.run(meter, fn);
}

export const newMeter = (capacity = true): RoundTripMeter => ({ roundTrips: 0, operations: [], capacity, readUnits: 0, writeUnits: 0 });

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
      if (!meter) return next(args);
      const operation = String(context.commandName ?? 'unknown').replace(/Command$/, '');
      meter.roundTrips += 1;
      meter.operations.push(operation);
      const data = READS.has(operation) || WRITE_OPERATIONS.has(operation);
      const input = args.input as { ReturnConsumedCapacity?: string };
      if (data && meter.capacity && input.ReturnConsumedCapacity === undefined) input.ReturnConsumedCapacity = 'TOTAL';
      const result = await next(args);
      if (READS.has(operation)) meter.readUnits += unitsOf(result.output);
      else if (WRITE_OPERATIONS.has(operation)) meter.writeUnits += unitsOf(result.output);
      return result;
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
