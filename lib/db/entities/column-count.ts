import { Entity, type EntityConfiguration, type EntityItem } from 'electrodb';

/** Shards per (board, status): a ticket write adds its delta to one of them, picked at random. */
export const COLUMN_COUNT_SHARDS = 4;

/**
 * The live tickets of one status column of one board, spread over up to COLUMN_COUNT_SHARDS
 * items (`shard` '0'…'3') so concurrent ticket writes in one column rarely touch the same
 * item: summed over its shards, `total` counts the board's tickets in that status that are not
 * deleted, `archived` those of them that are archived, `claimed` those a claim names (see
 * below). Kept exact by `saveTicket` (lib/tickets/write.ts), which adds the deltas of every
 * ticket write in the ticket's own transaction (`update` … `add`, an upsert). The board list
 * reads a board's counts in one Query (`loadColumnCounts` sums the shards) to compute its
 * exact `total` and to skip whole columns before the requested page.
 */
export const ColumnCount = (config?: EntityConfiguration) =>
  new Entity({
  model: { entity: 'columnCount', version: '1', service: 'wm' },
  attributes: {
    orgId: { type: 'string', required: true },
    boardId: { type: 'string', required: true },
    statusId: { type: 'string', required: true },
    shard: { type: 'string', required: true, default: '0' },
    total: { type: 'number', required: true, default: 0 },
    archived: { type: 'number', required: true, default: 0 },
    /** Of `total`, the tickets a claim names (live, or lapsed and not yet cleared by the sweeper). */
    claimed: { type: 'number' },
    /** Of `claimed`, the archived ones. */
    claimedArchived: { type: 'number' },
    /** Of `total`, the tickets in the ready queue (`isQueued`, lib/db/entities/ticket.ts): the ready list's exact total. */
    queued: { type: 'number' },
  },
  indexes: {
    byBoard: { pk: { field: 'pk', composite: ['orgId', 'boardId'] }, sk: { field: 'sk', composite: ['statusId', 'shard'] } },
  },
}, config);
export type ColumnCountItem = EntityItem<ReturnType<typeof ColumnCount>>;
