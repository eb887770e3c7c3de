import { Entity, type EntityConfiguration, type EntityItem } from 'electrodb';

/**
 * Outbox record of a domain event. Written in the same transaction as the change that
 * causes it; the stream consumer picks up its INSERT and hands it to the dispatcher.
 * Partitioned by event id so a busy organization's events never share one partition; the
 * bySubject index lists one ticket's (or other subject's) events.
 */
export const DomainEvent = (config?: EntityConfiguration) =>
  new Entity({
  model: { entity: 'event', version: '1', service: 'wm' },
  attributes: {
    eventId: { type: 'string', required: true },
    orgId: { type: 'string', required: true },
    type: { type: 'string', required: true },
    /** What the event is about (a ticket id, or the organization id): the key of bySubject. */
    subjectId: { type: 'string', required: true },
    occurredAt: { type: 'string', required: true },
    data: { type: 'any', required: true },
    /** Set once by the dispatcher (conditional), which makes redelivered stream records no-ops. */
    dispatchedAt: { type: 'string' },
    ttl: { type: 'number', required: true },
  },
  indexes: {
    byId: { pk: { field: 'pk', composite: ['eventId'] }, sk: { field: 'sk', composite: [] } },
    /** A subject's events in order (spread by subject, so no organization shares one key). */
    bySubject: { index: 'gsi1', pk: { field: 'gsi1pk', composite: ['orgId', 'subjectId'] }, sk: { field: 'gsi1sk', composite: ['eventId'] } },
  },
}, config);
export type DomainEventItem = EntityItem<ReturnType<typeof DomainEvent>>;
