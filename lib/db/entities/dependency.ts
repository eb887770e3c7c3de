import { Entity, type EntityConfiguration, type EntityItem } from 'electrodb';

export const DEPENDENCY_DIRECTIONS = ['blockedBy', 'blocks'] as const;

/**
 * One side of a dependency between two tickets of an organization ("ticket is blocked by
 * blocker"). Each dependency is two items written and removed in one transaction, one in each
 * ticket's partition: (ticket, blockedBy, blocker) and (blocker, blocks, ticket), so both
 * directions are read with one consistent Query, never an eventually consistent index.
 */
export const Dependency = (config?: EntityConfiguration) =>
  new Entity({
  model: { entity: 'dependency', version: '1', service: 'wm' },
  attributes: {
    orgId: { type: 'string', required: true },
    /** The ticket whose partition holds the item. */
    ticketId: { type: 'string', required: true },
    direction: { type: DEPENDENCY_DIRECTIONS, required: true },
    /** The ticket at the other end: the blocker (blockedBy) or the blocked ticket (blocks). */
    otherId: { type: 'string', required: true },
    createdById: { type: 'string', required: true },
    createdAt: { type: 'string', required: true },
  },
  indexes: {
    byTicket: { pk: { field: 'pk', composite: ['ticketId'] }, sk: { field: 'sk', composite: ['direction', 'otherId'] } },
  },
}, config);
export type DependencyItem = EntityItem<ReturnType<typeof Dependency>>;

/**
 * What one lease left for the next holder of its ticket: written by its holder on release
 * (`auto` false) or by the service when the lease lapsed (`auto` true: the lease's last
 * progress note and heartbeat). Newest first by ULID within the ticket's partition.
 */
export const Handoff = (config?: EntityConfiguration) =>
  new Entity({
  model: { entity: 'handoff', version: '1', service: 'wm' },
  attributes: {
    orgId: { type: 'string', required: true },
    ticketId: { type: 'string', required: true },
    handoffId: { type: 'string', required: true },
    fromId: { type: 'string', required: true },
    fromName: { type: 'string', required: true },
    fromIsAgent: { type: 'boolean', required: true },
    claimCount: { type: 'number', required: true },
    summary: { type: 'string' },
    nextSteps: { type: 'string' },
    branch: { type: 'string' },
    links: { type: 'list', items: { type: 'string' } },
    lastNote: { type: 'string' },
    lastHeartbeatAt: { type: 'string' },
    auto: { type: 'boolean', required: true },
    createdAt: { type: 'string', required: true },
  },
  indexes: {
    byTicket: { pk: { field: 'pk', composite: ['ticketId'] }, sk: { field: 'sk', composite: ['handoffId'] } },
  },
}, config);
export type HandoffItem = EntityItem<ReturnType<typeof Handoff>>;
