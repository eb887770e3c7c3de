import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { db } from '../db/service.js';
import { isConditionFailure } from '../db/transact.js';
import type { Clock } from '../core/clock.js';

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

export type Dispatcher = (event: DispatchedEvent, clock: Clock) => Promise<void>;

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

/**
 * Processes stream records one by one and reports partial batch failures, so one bad record
 * never replays the whole batch. Delivery is at-least-once: `markDispatched` is a conditional
 * write that lets exactly one consumer run hand an event to the dispatcher.
 */
export async function consumeStreamRecords(
  records: StreamRecordLike[],
  dispatch: Dispatcher,
  clock: Clock,
): Promise<BatchResult> {
  const result: BatchResult = { batchItemFailures: [], dispatched: [] };
  for (const record of records) {
    let event: DispatchedEvent | undefined;
    try {
      event = eventFromRecord(record);
    } catch (error) {
      // A record that cannot be read never will be: retrying it would only block the shard.
      console.error(JSON.stringify({ msg: 'unreadable stream record skipped', eventID: record.eventID, error: String(error) }));
      continue;
    }
    if (!event) continue;
    try {
      if (!(await claimForDispatch(event, clock))) continue;
      await dispatch(event, clock);
      result.dispatched.push(event);
    } catch (error) {
      console.error(JSON.stringify({ msg: 'event dispatch failed', eventId: event.eventId, type: event.type, error: String(error) }));
      await releaseDispatchClaim(event).catch(() => undefined);
      result.batchItemFailures.push({ itemIdentifier: record.dynamodb?.SequenceNumber ?? record.eventID ?? event.eventId });
      // Later records of the same shard must not overtake a failed one.
      break;
    }
  }
  return result;
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
