import { addSeconds, epochSeconds } from '../core/clock.js';
import { sha256Hex } from '../core/ids.js';
import type { WebhookDeliveryItem } from '../db/entities/index.js';
import type { DeliveryMessage } from './queue.js';

/*
 * A delivery record (lib/db/entities/webhook-delivery.ts) as the fan-out, a ping or a
 * redelivery creates it, and the queue message that names it.
 */

/** Delivery records (and the attempts they list) live 30 days (TTL housekeeping). */
export const DELIVERY_RETENTION_SECONDS = 30 * 24 * 3600;

/**
 * The body of every delivery (docs/webhooks.md): ids and states only, never content. An event an agent
 * caused also names it beside `data` (`actor`, and `claimCount` when the write was fenced:
 * docs/fleet-control.md), so `data` keeps exactly its documented fields.
 */
export function envelope(eventId: string, event: string, timestamp: string, organizationId: string, data: Record<string, unknown>, attribution?: Record<string, unknown>): string {
  return JSON.stringify({ id: eventId, event, timestamp, organizationId, ...attribution, data });
}

/**
 * The id of an event's automatic delivery to an endpoint, derived from both: creating the
 * delivery record under it is the conditional write that admits one delivery per pair.
 */
export const automaticDeliveryId = (eventId: string, endpointId: string): string =>
  `dlv_${sha256Hex(`${eventId}\n${endpointId}`).slice(0, 26).toUpperCase()}`;

export type NewDelivery = Pick<WebhookDeliveryItem, 'orgId' | 'endpointId' | 'deliveryId' | 'eventId' | 'eventType' | 'body' | 'maxAttempts' | 'manual' | 'kind'>;

export function deliveryRecord(input: NewDelivery, now: Date): WebhookDeliveryItem {
  return {
    ...input,
    attemptsMade: 0,
    state: 'pending',
    createdAt: now.toISOString(),
    ttl: epochSeconds(addSeconds(now, DELIVERY_RETENTION_SECONDS)),
  };
}

export const messageOf = ({ orgId, endpointId, deliveryId, kind }: Pick<WebhookDeliveryItem, 'orgId' | 'endpointId' | 'deliveryId' | 'kind'>): DeliveryMessage => ({
  orgId,
  endpointId,
  deliveryId,
  ...(kind ? { kind } : {}),
});
