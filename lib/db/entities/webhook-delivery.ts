import { Entity, type EntityConfiguration, type EntityItem } from 'electrodb';

export const DELIVERY_STATES = ['pending', 'succeeded', 'failed', 'cancelled'] as const;
export type DeliveryState = (typeof DELIVERY_STATES)[number];

/**
 * One delivery of one event to one endpoint (or a ping, or a manual redelivery): what the
 * delivery worker needs to make its attempts. An event's automatic delivery has an id derived
 * from (event id, endpoint id), so creating it is the conditional write that keeps a replayed
 * stream record from delivering the same event to the same endpoint twice. The worker takes
 * the delivery for one attempt at a time (`inFlightUntil`), and only for the SQS message that
 * first took it (`messageId`): a duplicate message finds it owned and is dropped. The body is
 * the exact envelope sent on every attempt (ids and states only, a few hundred bytes).
 */
export const WebhookDelivery = (config?: EntityConfiguration) =>
  new Entity({
  model: { entity: 'webhookDelivery', version: '1', service: 'wm' },
  attributes: {
    orgId: { type: 'string', required: true },
    endpointId: { type: 'string', required: true },
    deliveryId: { type: 'string', required: true },
    eventId: { type: 'string', required: true },
    eventType: { type: 'string', required: true },
    /**
     * Absent for an event to a webhook endpoint; otherwise the kind of receiver the delivery
     * goes to (`timeSync`: the organization's external time-booking endpoint), whose module
     * finds its URL and secret and records what an attempt's outcome means.
     */
    kind: { type: 'string' },
    /** The JSON envelope (docs/webhooks.md), byte for byte what is signed and sent. */
    body: { type: 'string', required: true },
    /** 1 for a ping or a redelivery; the retry schedule's length + 1 for an event. */
    maxAttempts: { type: 'number', required: true },
    attemptsMade: { type: 'number', required: true, default: 0 },
    state: { type: DELIVERY_STATES, required: true, default: 'pending' },
    /** A ping or a redelivery asked for by a person: sent even to an inactive endpoint. */
    manual: { type: 'boolean', required: true, default: false },
    /** The SQS message that owns the delivery (set by the first attempt). */
    messageId: { type: 'string' },
    /** An attempt is under way until then; a crashed worker's hold lapses by itself. */
    inFlightUntil: { type: 'string' },
    createdAt: { type: 'string', required: true, readOnly: true },
    ttl: { type: 'number', required: true },
  },
  indexes: {
    byEndpoint: { pk: { field: 'pk', composite: ['orgId', 'endpointId'] }, sk: { field: 'sk', composite: ['deliveryId'] } },
  },
}, config);
export type WebhookDeliveryItem = EntityItem<ReturnType<typeof WebhookDelivery>>;

/**
 * One attempt of a delivery: what `GET /webhook-endpoints/{id}/deliveries` lists (docs/webhooks.md
 * "Delivery"), newest first by the time of the attempt. Lives 30 days (TTL).
 */
export const WebhookAttempt = (config?: EntityConfiguration) =>
  new Entity({
  model: { entity: 'webhookAttempt', version: '1', service: 'wm' },
  attributes: {
    orgId: { type: 'string', required: true },
    endpointId: { type: 'string', required: true },
    deliveryId: { type: 'string', required: true },
    attempt: { type: 'number', required: true },
    eventType: { type: 'string', required: true },
    /** The response's status; 0 when there was none (refused address, timeout, network error). */
    statusCode: { type: 'number', required: true },
    success: { type: 'boolean', required: true },
    error: { type: 'string' },
    durationMs: { type: 'number', required: true },
    createdAt: { type: 'string', required: true },
    ttl: { type: 'number', required: true },
  },
  indexes: {
    byEndpoint: {
      pk: { field: 'pk', composite: ['orgId', 'endpointId'] },
      sk: { field: 'sk', composite: ['createdAt', 'deliveryId', 'attempt'] },
    },
  },
}, config);
export type WebhookAttemptItem = EntityItem<ReturnType<typeof WebhookAttempt>>;
