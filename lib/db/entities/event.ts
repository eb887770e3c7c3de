import { Entity, type EntityConfiguration, type EntityItem } from 'electrodb';

/**
 * Outbox record of a domain event. Written in the same transaction as the change that
 * causes it; the stream consumer picks up its INSERT (the whole item is in the stream
 * image) and hands it to the dispatcher. Keyed by subject (a ticket, or the organization for
 * organization-wide events), so one subject's events read in order with one Query and a busy
 * organization's ticket events spread over as many partitions as it has tickets. No index:
 * nothing reads events across subjects.
 */
export const DomainEvent = (config?: EntityConfiguration) =>
  new Entity({
  model: { entity: 'event', version: '2', service: 'wm' },
  attributes: {
    eventId: { type: 'string', required: true },
    orgId: { type: 'string', required: true },
    type: { type: 'string', required: true },
    /** What the event is about (a ticket id, or the organization id): the partition of its outbox record. */
    subjectId: { type: 'string', required: true },
    occurredAt: { type: 'string', required: true },
    data: { type: 'any', required: true },
    /** Who caused it, when an agent did: `{actor: {id, name, isAgent, ownerId, client}, claimCount?}`, delivered beside `data`. */
    attribution: { type: 'any' },
    /** Set once by the dispatcher (conditional), which makes redelivered stream records no-ops. */
    dispatchedAt: { type: 'string' },
    ttl: { type: 'number', required: true },
  },
  indexes: {
    bySubject: { pk: { field: 'pk', composite: ['orgId', 'subjectId'] }, sk: { field: 'sk', composite: ['eventId'] } },
  },
}, config);
export type DomainEventItem = EntityItem<ReturnType<typeof DomainEvent>>;
