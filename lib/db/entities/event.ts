import { Entity, type EntityItem } from 'electrodb';

/**
 * Outbox record of a domain event. Written in the same transaction as the change that
 * causes it; the stream consumer picks up its INSERT and hands it to the dispatcher.
 * Partitioned by event id so a busy organization's events never share one partition.
 */
export const DomainEvent = new Entity({
  model: { entity: 'event', version: '1', service: 'wm' },
  attributes: {
    eventId: { type: 'string', required: true },
    orgId: { type: 'string', required: true },
    type: { type: 'string', required: true },
    occurredAt: { type: 'string', required: true },
    data: { type: 'any', required: true },
    /** Set once by the dispatcher (conditional), which makes redelivered stream records no-ops. */
    dispatchedAt: { type: 'string' },
    ttl: { type: 'number', required: true },
  },
  indexes: {
    byId: { pk: { field: 'pk', composite: ['eventId'] }, sk: { field: 'sk', composite: [] } },
  },
});
export type DomainEventItem = EntityItem<typeof DomainEvent>;
