import { Entity, type EntityConfiguration, type EntityItem } from 'electrodb';

/**
 * A release of a board (docs/features.md, Milestones and releases), in the board's own partition of releases.
 *
 * - `milestoneIds`: the attached milestones (a string set, ADDed and DELETEd by attach and
 *   detach). Their names are read from the milestones when a release is shown, so a rename
 *   shows at once and a deleted milestone is never shown.
 * - `ticketCount`: the live tickets attached. Changed by ADD only, in the transaction that
 *   writes a ReleaseTicket and the ticket's `releaseIds` (attach, detach, and a ticket
 *   write that deletes or moves the ticket: lib/tickets/release-membership.ts), so it is
 *   exact at all times and never written otherwise (the release's own changes use `patch`).
 * - `isDeleted`: set by DELETE before its tickets are detached; the item goes once none is
 *   left. While set, the release is 404 everywhere and nothing can be attached to it.
 */
export const Release = (config?: EntityConfiguration) =>
  new Entity({
  model: { entity: 'release', version: '1', service: 'wm' },
  attributes: {
    orgId: { type: 'string', required: true },
    boardId: { type: 'string', required: true },
    releaseId: { type: 'string', required: true },
    name: { type: 'string', required: true },
    version: { type: 'string' },
    description: { type: 'string' },
    /** An ISO 8601 timestamp. */
    releaseDate: { type: 'string' },
    milestoneIds: { type: 'set', items: 'string' },
    ticketCount: { type: 'number', required: true, default: 0 },
    isDeleted: { type: 'boolean', required: true, default: false },
    createdAt: { type: 'string', required: true, readOnly: true },
    updatedAt: { type: 'string', required: true },
  },
  indexes: {
    byBoard: { pk: { field: 'pk', composite: ['orgId', 'boardId'] }, sk: { field: 'sk', composite: ['releaseId'] } },
  },
}, config);
export type ReleaseItem = EntityItem<ReturnType<typeof Release>>;

/**
 * A live ticket attached to a release: one item per (release, ticket), so a release's tickets
 * are one Query. Written and deleted only together with the ticket's `releaseIds` and the
 * release's `ticketCount`.
 */
export const ReleaseTicket = (config?: EntityConfiguration) =>
  new Entity({
  model: { entity: 'releaseTicket', version: '1', service: 'wm' },
  attributes: {
    orgId: { type: 'string', required: true },
    releaseId: { type: 'string', required: true },
    ticketId: { type: 'string', required: true },
    boardId: { type: 'string', required: true },
    attachedAt: { type: 'string', required: true },
  },
  indexes: {
    byRelease: { pk: { field: 'pk', composite: ['orgId', 'releaseId'] }, sk: { field: 'sk', composite: ['ticketId'] } },
  },
}, config);
export type ReleaseTicketItem = EntityItem<ReturnType<typeof ReleaseTicket>>;
