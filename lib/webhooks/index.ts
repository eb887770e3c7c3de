/** Public face of the webhooks domain for other domains: they reach it only through this file. */
export type { DeliveryKind } from './attempts.js';
export { automaticDeliveryId, deliveryRecord, envelope, messageOf } from './delivery-records.js';
export { type BatchMemo, fanOutEvent, recordOnce } from './fanout.js';
export { EVENT_TYPES } from './events.js';
export { enqueueDeliveries } from './queue.js';
export { deliverQueuedMessages } from './worker.js';
export { newWebhookSecret } from './signing.js';
export type { PostResult } from './transport.js';
