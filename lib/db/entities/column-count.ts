import { Entity, type EntityItem } from 'electrodb';

/**
 * The live tickets of one status column of one board: `total` counts the board's tickets in
 * that status that are not deleted, `archived` those of them that are archived, `claimed`
 * those a claim names (see below). One item per
 * (board, status) that has ever held a live ticket; kept exact by `saveTicket` (lib/tickets/
 * write.ts), which adds the deltas of every ticket write in the ticket's own transaction
 * (`update` … `add`, an upsert). The board list reads a board's counts in one Query to
 * compute its exact `total` and to skip whole columns before the requested page.
 */
export const ColumnCount = new Entity({
  model: { entity: 'columnCount', version: '1', service: 'wm' },
  attributes: {
    orgId: { type: 'string', required: true },
    boardId: { type: 'string', required: true },
    statusId: { type: 'string', required: true },
    total: { type: 'number', required: true, default: 0 },
    archived: { type: 'number', required: true, default: 0 },
    /** Of `total`, the tickets a claim names (live, or lapsed and not yet cleared by the sweeper). */
    claimed: { type: 'number' },
    /** Of `claimed`, the archived ones. */
    claimedArchived: { type: 'number' },
  },
  indexes: {
    byBoard: { pk: { field: 'pk', composite: ['orgId', 'boardId'] }, sk: { field: 'sk', composite: ['statusId'] } },
  },
});
export type ColumnCountItem = EntityItem<typeof ColumnCount>;
