import type { DispatchedEvent } from './consumer.js';

/**
 * Hands an event on to its subscribers. Webhook fan-out (SQS → delivery Lambda) arrives with
 * the webhooks issue; until then the dispatcher records each event in the structured log,
 * and the outbox record itself carries `dispatchedAt`.
 */
export async function dispatchEvent(event: DispatchedEvent): Promise<void> {
  // The same switch as request logs (LOG_REQUESTS=false keeps test output readable).
  if (process.env.LOG_REQUESTS === 'false') return;
  console.log(JSON.stringify({ msg: 'event dispatched', eventId: event.eventId, type: event.type, orgId: event.orgId }));
}
