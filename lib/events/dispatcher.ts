import type { Clock } from '../core/clock.js';
import { fanOutEvent, type BatchMemo } from '../webhooks/fanout.js';
import type { DispatchedEvent } from './consumer.js';

/**
 * Hands an event on to its subscribers: the organization's webhook endpoints (one SQS message
 * per subscribed endpoint, lib/webhooks/fanout.ts). Throws when the hand-over fails, so the
 * stream consumer reports the record and it is replayed; a replay queues nothing twice.
 */
export async function dispatchEvent(event: DispatchedEvent, clock: Clock, batch: BatchMemo): Promise<void> {
  const queued = await fanOutEvent(event, clock, batch);
  // The same switch as request logs (LOG_REQUESTS=false keeps test output readable).
  if (process.env.LOG_REQUESTS === 'false') return;
  console.log(JSON.stringify({ msg: 'event dispatched', eventId: event.eventId, type: event.type, orgId: event.orgId, deliveries: queued }));
}
