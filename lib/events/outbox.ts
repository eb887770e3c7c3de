import { newId } from '../core/ids.js';
import { noteEmitted } from '../core/operation.js';
import { addSeconds, epochSeconds, type Clock } from '../core/clock.js';
import type { TransactionEntities } from '../db/transact.js';

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
  noteEmitted(input.type);
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
