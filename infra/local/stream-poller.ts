import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type _Record,
  type GetRecordsCommandOutput,
} from '@aws-sdk/client-dynamodb-streams';
import { DescribeTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { localClient } from './dynamodb.js';
import { WRITE_OPERATIONS } from '../../lib/db/client.js';

export type StreamLambda = (event: { Records: unknown[] }) => Promise<{ batchItemFailures?: { itemIdentifier: string }[] } | undefined>;

export interface StreamPoller {
  /** Resolves once every record written so far has been handed to the consumer. */
  drain(): Promise<void>;
  /** Polls again at once (after the pass under way, if any) instead of at the end of the idle pause: something was written. */
  nudge(): void;
  stop(): Promise<void>;
}

const BATCH_SIZE = 100;
/** How often the stream's shards are listed again (a shard that closes is followed at once). */
const DISCOVERY_MS = 2_000;

/** Where a shard's reading resumes: after the last record handed over, or at the first that failed. */
type Position = { after: string } | { at: string };

export interface StreamPollerOptions {
  /**
   * A file that keeps each shard's position across restarts (with the data kept in DATA_DIR).
   * The position moves only after the consumer has taken a batch, and the file is replaced
   * whole (write, then rename), so a kill at any moment resumes at the first record not yet
   * handed over: nothing is skipped; the batch in flight at the kill comes again (the consumer
   * skips what it had marked). Without it, every start reads the stream from its oldest record.
   */
  positionFile?: string;
  /**
   * The pause after a pass that found nothing (default 250 ms: Lambda polls a stream's shards
   * four times a second). A nudge ends it early, so this process's own writes are read at once.
   */
  intervalMs?: number;
}

/**
 * Plays the DynamoDB Streams → Lambda event source mapping: polls every shard of the
 * table's stream, invokes the consumer with Lambda-shaped records, and on a reported
 * partial failure re-delivers from the first failed record, as Lambda does.
 */
export async function startStreamPoller(endpoint: string, tableName: string, consumer: StreamLambda, options: StreamPollerOptions = {}): Promise<StreamPoller> {
  const intervalMs = options.intervalMs ?? 250;
  const ddb = localClient(endpoint);
  const streams = new DynamoDBStreamsClient({ endpoint, region: 'local', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  const table = await ddb.send(new DescribeTableCommand({ TableName: tableName }));
  const streamArn = table.Table?.LatestStreamArn;
  if (!streamArn) throw new Error(`Table ${tableName} has no stream`);

  const iterators = new Map<string, string | undefined>(); // shardId → next iterator (undefined: shard closed)
  const positions = readPositions(options.positionFile);
  let stopped = false;
  let running: Promise<void> = Promise.resolve();
  let idleWaiters: (() => void)[] = [];
  /** Set by a nudge; a pass clears it as it begins, so a write during the pass brings another. */
  let nudged = false;
  let wake: (() => void) | undefined;

  /** When the shards are listed again (a closed shard's successor is looked for at once). */
  let discoverAt = 0;

  async function discoverShards(): Promise<void> {
    discoverAt = Date.now() + DISCOVERY_MS;
    const description = await streams.send(new DescribeStreamCommand({ StreamArn: streamArn }));
    for (const shard of description.StreamDescription?.Shards ?? []) {
      if (!shard.ShardId || iterators.has(shard.ShardId)) continue;
      iterators.set(shard.ShardId, await resumeAt(shard.ShardId, positions.get(shard.ShardId)));
    }
  }

  /** An iterator where the shard's kept position says (its oldest record when none, or when that record is gone). */
  async function resumeAt(shardId: string, position: Position | undefined): Promise<string | undefined> {
    const start = { StreamArn: streamArn, ShardId: shardId };
    if (position) {
      try {
        const kept = 'after' in position
          ? await streams.send(new GetShardIteratorCommand({ ...start, ShardIteratorType: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: position.after }))
          : await streams.send(new GetShardIteratorCommand({ ...start, ShardIteratorType: 'AT_SEQUENCE_NUMBER', SequenceNumber: position.at }));
        return kept.ShardIterator;
      } catch (error) {
        if ((error as { name?: string }).name !== 'TrimmedDataAccessException') throw error;
      }
    }
    return (await streams.send(new GetShardIteratorCommand({ ...start, ShardIteratorType: 'TRIM_HORIZON' }))).ShardIterator;
  }

  /** Records where a shard resumes, in memory and (when kept) in the position file. */
  function moveTo(shardId: string, position: Position): void {
    positions.set(shardId, position);
    if (!options.positionFile) return;
    writeFileSync(`${options.positionFile}.next`, JSON.stringify(Object.fromEntries(positions)));
    renameSync(`${options.positionFile}.next`, options.positionFile);
  }

  /** One pass over all shards; returns true if any records were read. */
  async function pollOnce(): Promise<boolean> {
    if (Date.now() >= discoverAt) await discoverShards();
    let sawRecords = false;
    for (const [shardId, iterator] of iterators) {
      if (!iterator) continue;
      let page: GetRecordsCommandOutput | undefined;
      try {
        page = await streams.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: BATCH_SIZE }));
      } catch (error) {
        const name = (error as { name?: string }).name;
        if (name !== 'TrimmedDataAccessException' && name !== 'ExpiredIteratorException') throw error;
        // DynamoDB Local under load may trim or expire an iterator: resume the shard where it
        // stands (or from its oldest record). Records seen before come again; the consumer skips
        // what it has marked dispatched.
        iterators.set(shardId, await resumeAt(shardId, positions.get(shardId)));
        continue;
      }
      const records = page.Records ?? [];
      if (records.length === 0) {
        iterators.set(shardId, page.NextShardIterator);
        if (!page.NextShardIterator) discoverAt = 0;
        continue;
      }
      sawRecords = true;
      const failedFrom = await invoke(records);
      if (failedFrom === undefined) {
        const last = records.at(-1)?.dynamodb?.SequenceNumber;
        if (last) moveTo(shardId, { after: last });
        iterators.set(shardId, page.NextShardIterator);
        if (!page.NextShardIterator) discoverAt = 0;
      } else {
        // Retry from the first failed record on the next pass.
        moveTo(shardId, { at: failedFrom });
        iterators.set(shardId, await resumeAt(shardId, { at: failedFrom }));
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
      nudged = false;
      try {
        sawRecords = await pollOnce();
      } catch (error) {
        if (!stopped) console.error('stream poll failed', error);
      }
      if (!sawRecords) {
        const waiters = idleWaiters;
        idleWaiters = [];
        for (const resolve of waiters) resolve();
        if (!nudged && !stopped) await pause();
      }
    }
  }

  /** The idle pause, ended early by a nudge or stop. */
  function pause(): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(done, intervalMs);
      function done() {
        clearTimeout(timer);
        wake = undefined;
        resolve();
      }
      wake = done;
    });
  }

  running = loop();
  return {
    drain: () => new Promise<void>((resolve) => idleWaiters.push(resolve)),
    nudge() {
      nudged = true;
      wake?.();
    },
    async stop() {
      stopped = true;
      wake?.();
      await running;
      for (const resolve of idleWaiters) resolve();
      streams.destroy();
      ddb.destroy();
    },
  };
}

/** The kept positions by shard id; none when there is no file yet. */
function readPositions(file: string | undefined): Map<string, Position> {
  if (!file) return new Map();
  try {
    return new Map(Object.entries(JSON.parse(readFileSync(file, 'utf8')) as Record<string, Position>));
  } catch (error) {
    if ((error as { code?: string }).code === 'ENOENT') return new Map();
    throw error;
  }
}

/** The listeners of each client's writes (the middleware is added once per client). */
const writeListeners = new WeakMap<DynamoDBClient, Set<() => void>>();

function listenersOf(client: DynamoDBClient): Set<() => void> {
  const known = writeListeners.get(client);
  if (known) return known;
  const listeners = new Set<() => void>();
  writeListeners.set(client, listeners);
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const result = await next(args);
      if (WRITE_OPERATIONS.has(String(context.commandName).replace(/Command$/, ''))) for (const notify of listeners) notify();
      return result;
    },
    { step: 'initialize', name: 'localStreamNudge' },
  );
  return listeners;
}

/**
 * Calls `listener` after each write `client` makes (the functions' client, in this process: a
 * request's writes, a job's next step), so the poller reads their records at once. Answers
 * the way to stop listening.
 */
export function afterEachWrite(client: DynamoDBClient, listener: () => void): () => Promise<void> {
  const listeners = listenersOf(client);
  listeners.add(listener);
  return async () => {
    listeners.delete(listener);
  };
}
