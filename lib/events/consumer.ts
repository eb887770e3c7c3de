import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { db } from '../db/service.js';
import { isConditionFailure } from '../db/transact.js';
import type { Clock } from '../core/clock.js';
import { forEachAtMost } from '../core/concurrency.js';
import { log } from '../core/telemetry.js';

/** The subset of a DynamoDB stream record (Lambda event shape) the consumer reads. */
export interface StreamRecordLike {
  eventID?: string;
  eventName?: 'INSERT' | 'MODIFY' | 'REMOVE' | string;
  dynamodb?: {
    NewImage?: Record<string, AttributeValue>;
    SequenceNumber?: string;
  };
}

export interface DispatchedEvent {
  eventId: string;
  orgId: string;
  /** What the event is about (a ticket id, or the organization id). */
  subjectId: string;
  type: string;
  occurredAt: string;
  data: Record<string, unknown>;
  /** Who caused it, when an agent did (lib/db/context.ts, attributionOf): `{actor, claimCount?}`, delivered beside `data`. */
  attribution?: Record<string, unknown>;
}

/** `batch` lives for one call of the consumer: what a dispatcher may read once per batch rather than per event. */
// biome-ignore lint/suspicious/noExplicitAny: one batch cache shared by dispatchers of different item types
export type Dispatcher = (event: DispatchedEvent, clock: Clock, batch: Map<string, any>) => Promise<void>;

export interface BatchResult {
  batchItemFailures: { itemIdentifier: string }[];
  dispatched: DispatchedEvent[];
}

/** Reads an outbox event out of a stream record; anything else (other entities, updates, removals) is not an event. */
export function eventFromRecord(record: StreamRecordLike): DispatchedEvent | undefined {
  if (record.eventName !== 'INSERT' || !record.dynamodb?.NewImage) return undefined;
  // Decide from the raw attribute first: other entities' images are never converted.
  if (record.dynamodb.NewImage.__edb_e__?.S !== 'event') return undefined;
  const image = unmarshall(record.dynamodb.NewImage);
  return {
    eventId: image.eventId,
    orgId: image.orgId,
    subjectId: image.subjectId,
    type: image.type,
    occurredAt: image.occurredAt,
    data: image.data ?? {},
    ...(image.attribution ? { attribution: image.attribution } : {}),
  };
}

/** Events of one batch handed over at once: fan-outs are independent and each is idempotent. */
const CONCURRENT_DISPATCHES = 8;

/**
 * Hands a batch's events to the dispatcher, several at once, and reports partial batch failure
 * as Lambda checkpoints it: the earliest failed record, from which the rest of the shard is
 * replayed. An event is marked `dispatchedAt` only after its hand-over succeeded, so a consumer
 * that dies in the middle (a timeout, a kill) leaves it unmarked and the replay hands it over
 * again: never lost. What was already marked is skipped on a replay (one BatchGet per batch reads
 * the marks), and a hand-over that is repeated all the same (a crash between hand-over and mark)
 * is harmless: every dispatcher is idempotent (a delivery's id derives from the event, counts are
 * recounted from what is stored, continuations have derived ids). Receivers never relied on
 * order: retries reorder deliveries anyway.
 */
export async function consumeStreamRecords(
  records: StreamRecordLike[],
  dispatch: Dispatcher,
  clock: Clock,
): Promise<BatchResult> {
  // biome-ignore lint/suspicious/noExplicitAny: one batch cache shared by dispatchers of different item types
  const batch = new Map<string, any>();
  const events: { index: number; record: StreamRecordLike; event: DispatchedEvent }[] = [];
  const seen = new Set<string>();
  records.forEach((record, index) => {
    try {
      const event = eventFromRecord(record);
      // The same record twice in one batch (a replay joined to its original) is handed over once.
      if (event && !seen.has(event.eventId)) {
        seen.add(event.eventId);
        events.push({ index, record, event });
      }
    } catch (error) {
      // A record that cannot be read never will be: retrying it would only block the shard.
      log.error('unreadable stream record skipped', { eventID: record.eventID }, error);
    }
  });
  const handedOver = await alreadyDispatched(events.map((entry) => entry.event));

  const dispatched: { index: number; event: DispatchedEvent }[] = [];
  const failed: { index: number; record: StreamRecordLike; event: DispatchedEvent }[] = [];
  await forEachAtMost(
    events.filter((entry) => !handedOver.has(entry.event.eventId)),
    CONCURRENT_DISPATCHES,
    async (entry) => {
      try {
        await dispatch(entry.event, clock, batch);
        await markDispatched(entry.event, clock);
        dispatched.push({ index: entry.index, event: entry.event });
      } catch (error) {
        log.error('event dispatch failed', { eventId: entry.event.eventId, type: entry.event.type, orgId: entry.event.orgId }, error);
        failed.push(entry);
      }
    },
  );

  const earliest = failed.sort((a, b) => a.index - b.index)[0];
  return {
    batchItemFailures: earliest
      ? [{ itemIdentifier: earliest.record.dynamodb?.SequenceNumber ?? earliest.record.eventID ?? earliest.event.eventId }]
      : [],
    dispatched: dispatched.sort((a, b) => a.index - b.index).map((entry) => entry.event),
  };
}

/** The outbox record's key. */
const keyOf = ({ orgId, subjectId, eventId }: DispatchedEvent) => ({ orgId, subjectId, eventId });

/** Ids of the events already marked dispatched (a replay): one BatchGet for the batch, none when it holds no event. */
async function alreadyDispatched(events: DispatchedEvent[]): Promise<Set<string>> {
  if (events.length === 0) return new Set();
  const { data } = await db().entities.event.get(events.map(keyOf)).go({ attributes: ['eventId', 'dispatchedAt'] });
  return new Set(data.filter((item) => item.dispatchedAt).map((item) => item.eventId));
}

/** Marks a handed-over event; the first mark stays (a concurrent run's is as good). */
async function markDispatched(event: DispatchedEvent, clock: Clock): Promise<void> {
  try {
    await db()
      .entities.event.patch(keyOf(event))
      .set({ dispatchedAt: clock.now().toISOString() })
      .where((attr, op) => op.notExists(attr.dispatchedAt))
      .go({ response: 'none' });
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
}
