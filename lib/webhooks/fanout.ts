import type { Clock } from '../core/clock.js';
import { config } from '../core/config.js';
import type { WebhookDeliveryItem, WebhookEndpointItem } from '../db/entities/index.js';
import { db } from '../db/service.js';
import { isConditionFailure } from '../db/transact.js';
import { planIncludes } from '../organizations/index.js';
import { automaticDeliveryId, deliveryRecord, envelope, messageOf } from './delivery-records.js';
import { enqueueDeliveries, type DeliveryMessage } from './queue.js';

/**
 * Creates an automatic delivery's record unless it exists (its id derives from the event: the
 * conditional create is the deduplication), and answers its queue message when it is to be
 * queued: a new record, or an existing one no worker has taken (its message may have been
 * lost). A replayed event thus queues nothing that is already on its way.
 */
export async function recordOnce(delivery: WebhookDeliveryItem): Promise<DeliveryMessage | undefined> {
  try {
    await db().entities.webhookDelivery.create(delivery).go({ response: 'none' });
    return messageOf(delivery);
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    const existing = (await db().entities.webhookDelivery.get(messageOf(delivery)).go()).data;
    const untaken = existing && existing.state === 'pending' && existing.attemptsMade === 0 && !existing.messageId;
    return untaken ? messageOf(delivery) : undefined;
  }
}

export interface FannedOutEvent {
  eventId: string;
  orgId: string;
  type: string;
  occurredAt: string;
  data: Record<string, unknown>;
  attribution?: Record<string, unknown>;
}

/**
 * What one stream batch has read of each organization: its endpoints that may receive events
 * (active, on a plan with webhooks). A batch holds the changes of a moment, so reading them once
 * per batch decides as reading them per event would, for half the round trips per event.
 */
export type BatchMemo = Map<string, Promise<WebhookEndpointItem[]>>;

/** The organization's active endpoints; none when it has left the Pro plan (it keeps its endpoints but receives nothing). */
async function receiversOf(orgId: string): Promise<WebhookEndpointItem[]> {
  const { data: endpoints } = await db().entities.webhookEndpoint.query.byOrg({ orgId }).go({ pages: 'all' });
  const active = endpoints.filter((endpoint) => endpoint.isActive);
  if (active.length === 0) return [];
  const org = (await db().entities.organization.get({ orgId }).go()).data;
  return org && planIncludes(org.plan, 'WEBHOOKS') ? active : [];
}

/**
 * Hands one event to every active endpoint of its organization subscribed to it: one Query for
 * the endpoints (at most 20; once per stream batch), one conditional write per endpoint, one SQS message per new
 * delivery. Replays are harmless: a delivery that already exists is not queued again, unless
 * no worker has taken it yet (its message may have been lost); a second message for it is
 * dropped by the worker, which lets only the first message that takes a delivery make its
 * attempts. Returns how many deliveries were queued.
 */
export async function fanOutEvent(event: FannedOutEvent, clock: Clock, batch: BatchMemo = new Map()): Promise<number> {
  const receivers = batch.get(event.orgId) ?? receiversOf(event.orgId);
  batch.set(event.orgId, receivers);
  const subscribed = (await receivers).filter((endpoint) => endpoint.events.includes(event.type));
  if (subscribed.length === 0) return 0;

  const now = clock.now();
  const body = envelope(event.eventId, event.type, event.occurredAt, event.orgId, event.data, event.attribution);
  const maxAttempts = config().webhookRetryDelaysSeconds.length + 1;
  const queued = await Promise.all(
    subscribed.map(async (endpoint) => {
      const delivery = deliveryRecord(
        {
          orgId: event.orgId,
          endpointId: endpoint.endpointId,
          deliveryId: automaticDeliveryId(event.eventId, endpoint.endpointId),
          eventId: event.eventId,
          eventType: event.type,
          body,
          maxAttempts,
          manual: false,
        },
        now,
      );
      return recordOnce(delivery);
    }),
  );
  const messages = queued.filter((message): message is DeliveryMessage => message !== undefined);
  await enqueueDeliveries(messages);
  return messages.length;
}
