import { Entity, type EntityConfiguration, type EntityItem } from 'electrodb';

export const TIMELINE_KINDS = [
  'CREATED', 'STATUS_CHANGED', 'ASSIGNED', 'MOVED', 'CONVERTED_TO_SUBTICKET', 'PROMOTED_TO_STANDALONE',
  'CLAIMED', 'CLAIM_RELEASED', 'CLAIM_EXPIRED', 'REPORTED', 'HANDOFF', 'CLAIM_DIRECTIVE', 'CLAIM_MESSAGE', 'QUARANTINED', 'QUARANTINE_LIFTED',
  'DEPENDENCY_ADDED', 'DEPENDENCY_REMOVED', 'UNBLOCKED',
  'TIME_LOGGED', 'TIME_UPDATED', 'TIME_DELETED', 'TIME_APPROVED', 'TIME_REJECTED',
] as const;

/**
 * The ticket's timeline (Explainable Status): written in the same transaction as the change
 * it records, oldest first by ULID.
 */
export const TimelineEntry = (config?: EntityConfiguration) =>
  new Entity({
  model: { entity: 'timelineEntry', version: '1', service: 'wm' },
  attributes: {
    ticketId: { type: 'string', required: true },
    entryId: { type: 'string', required: true },
    orgId: { type: 'string', required: true },
    kind: { type: TIMELINE_KINDS, required: true },
    actorId: { type: 'string' },
    actorName: { type: 'string' },
    /** Attribution of an agent's write (lib/db/context.ts, attributionOf): its owner, its client, the lease it wrote under. */
    actorIsAgent: { type: 'boolean' },
    actorOwnerId: { type: 'string' },
    actorClient: { type: 'string' },
    claimCount: { type: 'number' },
    /** Kind-specific facts: {fromStatusId, toStatusId, reason} / {fromAssigneeId, toAssigneeId} / … */
    details: { type: 'any', required: true, default: () => ({}) },
    createdAt: { type: 'string', required: true },
  },
  indexes: {
    byTicket: { pk: { field: 'pk', composite: ['ticketId'] }, sk: { field: 'sk', composite: ['entryId'] } },
  },
}, config);
export type TimelineEntryItem = EntityItem<ReturnType<typeof TimelineEntry>>;
