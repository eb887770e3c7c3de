import { Entity, type EntityConfiguration, type EntityItem } from 'electrodb';

/**
 * A board carries everything its access check needs (assigned teams, direct members,
 * customers) and its workflow configuration, so one GetItem answers "may this caller see
 * it, and how does it behave". `teams` holds each assigned team's id, name and color
 * (denormalized; a team rename rewrites the boards it is assigned to) so GET board needs
 * no second read. List-valued attributes are changed by read-modify-write guarded by
 * `updatedAt` (optimistic locking).
 */
export const Board = (config?: EntityConfiguration) =>
  new Entity({
  model: { entity: 'board', version: '1', service: 'wm' },
  attributes: {
    orgId: { type: 'string', required: true },
    boardId: { type: 'string', required: true },
    name: { type: 'string', required: true },
    prefix: { type: 'string', required: true },
    description: { type: 'string', required: true, default: '' },
    isArchived: { type: 'boolean', required: true, default: false },
    isDeleted: { type: 'boolean', required: true, default: false },
    deletedAt: { type: 'string' },
    /** [{teamId, name, color, assignedAt}] */
    teams: { type: 'any' },
    memberUserIds: { type: 'set', items: 'string' },
    customerIds: { type: 'set', items: 'string' },
    milestonesAndReleases: { type: 'boolean', required: true, default: false },
    explainableStatus: { type: 'boolean', required: true, default: false },
    /** Claim-next passes this board's tickets over while set; a named claim answers DISPATCH_PAUSED (lib/tickets/claims/dispatch.ts). */
    dispatchPaused: { type: 'boolean' },
    /** Spend allowed per calendar month (US dollars × 10⁶); absent: no budget. */
    monthlyBudgetMicros: { type: 'number' },
    /** Organization statuses shown on this board; absent means the org's enabled-by-default set. */
    enabledStatusIds: { type: 'list', items: { type: 'string' } },
    /** [{fromStatusId, toStatusIds}]; empty means any move is allowed. */
    transitionRules: { type: 'any' },
    enabledTypeIds: { type: 'list', items: { type: 'string' } },
    /** Last ticket number handed out on this board (atomic ADD; display ids are `<prefix>-<n>`). */
    ticketCounter: { type: 'number', required: true, default: 0 },
    /** Lower-cased name for case-insensitive search. */
    // Derived by the entity from \`name\` in the same write (watch): domain code never sets it.
    searchName: { type: 'string', required: true, default: '', watch: ['name'], set: (_: unknown, item: { name?: string }) => (item.name ?? '').toLowerCase() },
    createdAt: { type: 'string', required: true, readOnly: true },
    updatedAt: { type: 'string', required: true },
  },
  indexes: {
    byOrg: { pk: { field: 'pk', composite: ['orgId'] }, sk: { field: 'sk', composite: ['boardId'] } },
  },
}, config);
export type BoardItem = EntityItem<ReturnType<typeof Board>>;

/** Uniqueness of a board prefix within an organization (prefixes are upper-case). */
export const BoardPrefix = (config?: EntityConfiguration) =>
  new Entity({
  model: { entity: 'boardPrefix', version: '1', service: 'wm' },
  attributes: {
    orgId: { type: 'string', required: true },
    prefix: { type: 'string', required: true },
    boardId: { type: 'string', required: true },
  },
  indexes: {
    byPrefix: { pk: { field: 'pk', composite: ['orgId', 'prefix'] }, sk: { field: 'sk', composite: [] } },
  },
}, config);
