import { AsyncLocalStorage } from 'node:async_hooks';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

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
  return client;
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
