import { newId, sha256Hex } from '../core/ids.js';
import { addSeconds, epochSeconds, type Clock } from '../core/clock.js';
import { isConditionFailure, type TransactionEntities } from '../db/transact.js';
import { db } from '../db/service.js';

/** Outbox records live a week: long enough for stream retries, TTL is only housekeeping. */
const EVENT_RETENTION_SECONDS = 7 * 24 * 3600;

export interface EventInput {
  type: string;
  data: Record<string, unknown>;
  /** The outbox partition: the ticket of a ticket event unless given (a pull request, a pipeline). */
  subjectId?: string;
  /** A derived id (a continuation's, so a replayed run writes the same record, once); a new one unless given. */
  eventId?: string;
  /** Who caused it, when an agent did (lib/db/context.ts, attributionOf): delivered beside `data`, which keeps its documented fields. */
  attribution?: Record<string, unknown>;
}

export interface EventRecord extends Omit<EventInput, 'eventId'> {
  eventId: string;
  subjectId: string;
  orgId: string;
  occurredAt: string;
  ttl: number;
}

export function newEventRecord(orgId: string, clock: Clock, input: EventInput): EventRecord {
  const now = clock.now();
  return {
    eventId: input.eventId ?? newId('evt'),
    orgId,
    subjectId: String(input.subjectId ?? input.data.ticketId ?? input.data.subjectId ?? orgId),
    type: input.type,
    occurredAt: now.toISOString(),
    data: input.data,
    ...(input.attribution ? { attribution: input.attribution } : {}),
    ttl: epochSeconds(addSeconds(now, EVENT_RETENTION_SECONDS)),
  };
}

/**
 * The transaction items that store events beside the change that causes them. Callers add
 * these to the same `transact()` as the change: the change and its events are one write.
 */
export function eventPuts(entities: TransactionEntities, records: EventRecord[]) {
  return records.map((record) => entities.event.create(record).commit());
}

/** The id of the record that continues `eventId`'s work: the same on every run of that event. */
const continuationId = (eventId: string): string => `evt_${sha256Hex(`${eventId}:continued`).slice(0, 26).toUpperCase()}`;

/**
 * Background work in steps: a job is an internal outbox record whose handler does a bounded
 * part of the work and, while some remains, writes the record that continues it (with `data`,
 * e.g. where the next step starts). The stream consumer marks a record only after its handler
 * returned, so a crash at any point replays the step, and a replayed step writes the same
 * continuation (its id derives from the record's), which then already exists: one chain, never
 * two, and no step lost. Each step must be idempotent (re-reading what it changes).
 */
export async function continueJob(event: { eventId: string; orgId: string; subjectId: string; type: string }, clock: Clock, data: Record<string, unknown>): Promise<void> {
  const next = newEventRecord(event.orgId, clock, { type: event.type, subjectId: event.subjectId, data, eventId: continuationId(event.eventId) });
  try {
    await db().entities.event.create(next).go({ response: 'none' });
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
}
