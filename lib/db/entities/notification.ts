import { Entity, type EntityConfiguration, type EntityItem } from 'electrodb';

export const NOTIFICATION_TYPES = ['TICKET_CLAIM_EXPIRED', 'AGENT_SUGGESTION_PENDING', 'WEBHOOK_ENDPOINT_DISABLED', 'AGENT_TIME_PENDING'] as const;

/** A user's in-app notification, newest first by ULID; TTL removes it after 90 days. */
export const Notification = (config?: EntityConfiguration) =>
  new Entity({
  model: { entity: 'notification', version: '1', service: 'wm' },
  attributes: {
    orgId: { type: 'string', required: true },
    userId: { type: 'string', required: true },
    notificationId: { type: 'string', required: true },
    type: { type: NOTIFICATION_TYPES, required: true },
    data: { type: 'any', required: true, default: () => ({}) },
    readAt: { type: 'string' },
    createdAt: { type: 'string', required: true },
    ttl: { type: 'number', required: true },
  },
  indexes: {
    byUser: { pk: { field: 'pk', composite: ['orgId', 'userId'] }, sk: { field: 'sk', composite: ['notificationId'] } },
  },
}, config);
export type NotificationItem = EntityItem<ReturnType<typeof Notification>>;
