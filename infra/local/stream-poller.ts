import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type _Record,
  type GetRecordsCommandOutput,
} from '@aws-sdk/client-dynamodb-streams';
import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { localClient } from './dynamodb.js';

export type StreamLambda = (event: { Records: unknown[] }) => Promise<{ batchItemFailures?: { itemIdentifier: string }[] } | undefined>;

export interface StreamPoller {
  /** Resolves once every record written so far has been handed to the consumer. */
  drain(): Promise<void>;
  stop(): Promise<void>;
}

const BATCH_SIZE = 100;

/**
 * Plays the DynamoDB Streams → Lambda event source mapping: polls every shard of the
 * table's stream, invokes the consumer with Lambda-shaped records, and on a reported
 * partial failure re-delivers from the first failed record, as Lambda does.
 */
export async function startStreamPoller(endpoint: string, tableName: string, consumer: StreamLambda, intervalMs = 100): Promise<StreamPoller> {
  const ddb = localClient(endpoint);
  const streams = new DynamoDBStreamsClient({ endpoint, region: 'local', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  const table = await ddb.send(new DescribeTableCommand({ TableName: tableName }));
  const streamArn = table.Table?.LatestStreamArn;
  if (!streamArn) throw new Error(`Table ${tableName} has no stream`);

  const iterators = new Map<string, string | undefined>(); // shardId → next iterator (undefined: shard closed)
  let stopped = false;
  let running: Promise<void> = Promise.resolve();
  let idleWaiters: (() => void)[] = [];

  async function discoverShards(): Promise<void> {
    const description = await streams.send(new DescribeStreamCommand({ StreamArn: streamArn }));
    for (const shard of description.StreamDescription?.Shards ?? []) {
      if (!shard.ShardId || iterators.has(shard.ShardId)) continue;
      const iterator = await streams.send(
        new GetShardIteratorCommand({ StreamArn: streamArn, ShardId: shard.ShardId, ShardIteratorType: 'TRIM_HORIZON' }),
      );
      iterators.set(shard.ShardId, iterator.ShardIterator);
    }
  }

  /** One pass over all shards; returns true if any records were read. */
  async function pollOnce(): Promise<boolean> {
    await discoverShards();
    let sawRecords = false;
    for (const [shardId, iterator] of iterators) {
      if (!iterator) continue;
      let page: GetRecordsCommandOutput | undefined;
      try {
        page = await streams.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: BATCH_SIZE }));
      } catch (error) {
        const name = (error as { name?: string }).name;
        if (name !== 'TrimmedDataAccessException' && name !== 'ExpiredIteratorException') throw error;
        // DynamoDB Local under load may trim or expire an iterator: start the shard again from its
        // oldest record. Records seen before come again; the consumer's dispatch claim drops them.
        const fresh = await streams.send(new GetShardIteratorCommand({ StreamArn: streamArn, ShardId: shardId, ShardIteratorType: 'TRIM_HORIZON' }));
        iterators.set(shardId, fresh.ShardIterator);
        continue;
      }
      const records = page.Records ?? [];
      if (records.length === 0) {
        iterators.set(shardId, page.NextShardIterator);
        continue;
      }
      sawRecords = true;
      const failedFrom = await invoke(records);
      if (failedFrom === undefined) {
        iterators.set(shardId, page.NextShardIterator);
      } else {
        // Retry from the first failed record on the next pass.
        const retry = await streams.send(
          new GetShardIteratorCommand({ StreamArn: streamArn, ShardId: shardId, ShardIteratorType: 'AT_SEQUENCE_NUMBER', SequenceNumber: failedFrom }),
        );
        iterators.set(shardId, retry.ShardIterator);
      }
    }
    return sawRecords;
  }

  async function invoke(records: _Record[]): Promise<string | undefined> {
    const event = { Records: records.map((record) => ({ ...record, eventSourceARN: streamArn, awsRegion: 'local' })) };
    try {
      const result = await consumer(event);
      const failures = result && 'batchItemFailures' in result ? result.batchItemFailures ?? [] : [];
      return failures[0]?.itemIdentifier;
    } catch (error) {
      console.error('stream consumer failed; retrying the batch', error);
      return records[0]?.dynamodb?.SequenceNumber;
    }
  }

  async function loop(): Promise<void> {
    while (!stopped) {
      let sawRecords = false;
      try {
        sawRecords = await pollOnce();
      } catch (error) {
        if (!stopped) console.error('stream poll failed', error);
      }
      if (!sawRecords) {
        const waiters = idleWaiters;
        idleWaiters = [];
        for (const resolve of waiters) resolve();
        await new Promise((resolve) => setTimeout(resolve, intervalMs));
      }
    }
  }

  running = loop();
  return {
    drain: () => new Promise<void>((resolve) => idleWaiters.push(resolve)),
    async stop() {
      stopped = true;
      await running;
      for (const resolve of idleWaiters) resolve();
      streams.destroy();
      ddb.destroy();
    },
  };
}
