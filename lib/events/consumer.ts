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
  };
}

/** Events of one batch handed over at once: fan-outs are independent and each is idempotent. */
const CONCURRENT_DISPATCHES = 8;

/**
 * Hands a batch's events to the dispatcher, several at once, and reports partial batch failure
 * as Lambda checkpoints it: the earliest failed record, from which the rest of the shard is
 * replayed. Later records that succeeded come again in that replay and are dropped there, since
 * delivery is at-least-once and `markDispatched` is a conditional write that lets exactly one
 * consumer run hand an event to the dispatcher. (Receivers never relied on order: retries
 * reorder deliveries anyway.)
 */
export async function consumeStreamRecords(
  records: StreamRecordLike[],
  dispatch: Dispatcher,
  clock: Clock,
): Promise<BatchResult> {
  // biome-ignore lint/suspicious/noExplicitAny: one batch cache shared by dispatchers of different item types
  const batch = new Map<string, any>();
  const events: { index: number; record: StreamRecordLike; event: DispatchedEvent }[] = [];
  records.forEach((record, index) => {
    try {
      const event = eventFromRecord(record);
      if (event) events.push({ index, record, event });
    } catch (error) {
      // A record that cannot be read never will be: retrying it would only block the shard.
      log.error('unreadable stream record skipped', { eventID: record.eventID }, error);
    }
  });

  const dispatched: { index: number; event: DispatchedEvent }[] = [];
  const failed: { index: number; record: StreamRecordLike; event: DispatchedEvent }[] = [];
  await forEachAtMost(events, CONCURRENT_DISPATCHES, async (entry) => {
    try {
      if (!(await claimForDispatch(entry.event, clock))) return;
      await dispatch(entry.event, clock, batch);
      dispatched.push({ index: entry.index, event: entry.event });
    } catch (error) {
      log.error('event dispatch failed', { eventId: entry.event.eventId, type: entry.event.type, orgId: entry.event.orgId }, error);
      await releaseDispatchClaim(entry.event).catch(() => undefined);
      failed.push(entry);
    }
  });

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

async function claimForDispatch(event: DispatchedEvent, clock: Clock): Promise<boolean> {
  try {
    await db()
      .entities.event.patch(keyOf(event))
      .set({ dispatchedAt: clock.now().toISOString() })
      .where((attr, op) => op.notExists(attr.dispatchedAt))
      .go({ response: 'none' });
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

async function releaseDispatchClaim(event: DispatchedEvent): Promise<void> {
  await db().entities.event.patch(keyOf(event)).remove(['dispatchedAt']).go({ response: 'none' });
}
