import type { Clock } from '../core/clock.js';
import { fanOutEvent, type BatchMemo } from '../webhooks/index.js';
import type { DispatchedEvent, Dispatcher } from './consumer.js';
import { log } from '../core/telemetry.js';

/** Hands one outbox record of an internal type to its receiver; answers how many deliveries it queued. */
export type InternalHandler = (event: DispatchedEvent, clock: Clock) => Promise<number>;

/**
 * The stream consumer's dispatcher. An event goes to its subscribers: the organization's
 * webhook endpoints (one SQS message per subscribed endpoint, lib/webhooks/fanout.ts). An
 * outbox record of an internal type (never a webhook event; e.g. a time entry's push to the
 * time-booking system) goes to the handler the function's entry wires in for it, so this
 * module depends on no domain. Throws when the hand-over fails, so the stream consumer
 * reports the record and it is replayed; a replay queues nothing twice.
 */
export function eventDispatcher(internal: Record<string, InternalHandler> = {}): Dispatcher {
  return async (event: DispatchedEvent, clock: Clock, batch: BatchMemo): Promise<void> => {
    const handler = internal[event.type];
    const queued = handler ? await handler(event, clock) : await fanOutEvent(event, clock, batch);
    log.info('event dispatched', { eventId: event.eventId, type: event.type, orgId: event.orgId, deliveries: queued });
  };
}
