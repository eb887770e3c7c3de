import { Entity, type EntityConfiguration, type EntityItem } from 'electrodb';

/**
 * A milestone of a board (docs/features.md, Milestones and releases). Its name is unique among the board's live milestones
 * (a UniqueName guard of scope `milestone`, `<boardId>:<name>`, taken and released in the
 * transactions that create, rename and delete it). `ticketCount` and `completedCount` are the
 * progress: changed by ADD in the transaction of every ticket write that moves a ticket into
 * or out of the milestone, into or out of a FINAL status, or deletes it (lib/tickets/reference-guards.ts),
 * and never written otherwise, so a milestone's own changes use `patch`, not `put`.
 */
export const Milestone = (config?: EntityConfiguration) =>
  new Entity({
  model: { entity: 'milestone', version: '1', service: 'wm' },
  attributes: {
    orgId: { type: 'string', required: true },
    boardId: { type: 'string', required: true },
    milestoneId: { type: 'string', required: true },
    name: { type: 'string', required: true },
    description: { type: 'string' },
    /** YYYY-MM-DD. */
    dueDate: { type: 'string', required: true },
    color: { type: 'string', required: true },
    sortOrder: { type: 'number', required: true },
    isDeleted: { type: 'boolean', required: true, default: false },
    deletedAt: { type: 'string' },
    ticketCount: { type: 'number', required: true, default: 0 },
    completedCount: { type: 'number', required: true, default: 0 },
    createdAt: { type: 'string', required: true, readOnly: true },
    updatedAt: { type: 'string', required: true },
  },
  indexes: {
    // In the `orgConfig` collection: the ticket operations' one Query of the organization's
    // vocabulary returns the milestones too (a full ticket names its milestone at no cost).
    byBoard: { collection: 'orgConfig', pk: { field: 'pk', composite: ['orgId'] }, sk: { field: 'sk', composite: ['boardId', 'milestoneId'] } },
  },
}, config);
export type MilestoneItem = EntityItem<ReturnType<typeof Milestone>>;
