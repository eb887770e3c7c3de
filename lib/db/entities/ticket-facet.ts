import { Entity, type EntityConfiguration, type EntityItem } from 'electrodb';

/**
 * One value a live ticket has for a list filter (a "facet"): `assignee:<userId>`,
 * `type:<typeId>`, `customer:<customerId>`, `priority:<p>`, `impact:<level>`, `due` (with the
 * due date as `rangeKey`) or `due:none`. Keyed by (organization, board, facet), then range key
 * and ticket id, so one Query reads exactly the board's tickets with that value, and a due-date
 * range reads only the dates in range. Each entry carries what a list needs to select and
 * order it without the ticket: status, column position and archived flag. Kept exact by the
 * ticket write path (`facetItems`, lib/tickets/record/facets.ts) in the ticket's own transaction:
 * a write that changes no facet, status, position or archived flag (a claim, a heartbeat, a
 * comment count) writes none.
 */
export const TicketFacet = (config?: EntityConfiguration) =>
  new Entity({
  model: { entity: 'ticketFacet', version: '1', service: 'wm' },
  attributes: {
    orgId: { type: 'string', required: true },
    boardId: { type: 'string', required: true },
    facet: { type: 'string', required: true },
    /** The due date (normalized ISO 8601) for `due`; '-' for every other facet. */
    rangeKey: { type: 'string', required: true, default: '-' },
    ticketId: { type: 'string', required: true },
    statusId: { type: 'string', required: true },
    positionKey: { type: 'string', required: true },
    isArchived: { type: 'boolean', required: true, default: false },
  },
  indexes: {
    byFacet: { pk: { field: 'pk', composite: ['orgId', 'boardId', 'facet'] }, sk: { field: 'sk', composite: ['rangeKey', 'ticketId'] } },
  },
}, config);
export type TicketFacetItem = EntityItem<ReturnType<typeof TicketFacet>>;

/** Shards per (board, value, status): a ticket write adds its delta to one of them, picked at random. */
export const FACET_COUNT_SHARDS = 4;

/**
 * How many live tickets of one board have one filter value, per status: summed over its shards,
 * `total` counts them, `archived` those of them that are archived. Kept for the values a ticket
 * has at most one of per kind (`type:`, `priority:`, `assignee:`, `customer:`, `impact:`,
 * `due:none`), not for labels (a ticket has up to 25: their deltas would crowd a status change's
 * transaction) nor due dates (a list asks for a range). Kept exact by the ticket write path in
 * the ticket's own transaction (`facetCountItems`, lib/tickets/record/facets.ts).
 * Keyed value and board first, so the counts of a value are a partition of their own (a few
 * items), apart from its entries. A filtered list reads its total here, whatever the number of
 * tickets that have the value.
 */
export const FacetCount = (config?: EntityConfiguration) =>
  new Entity({
  model: { entity: 'facetCount', version: '1', service: 'wm' },
  attributes: {
    orgId: { type: 'string', required: true },
    boardId: { type: 'string', required: true },
    facet: { type: 'string', required: true },
    statusId: { type: 'string', required: true },
    shard: { type: 'string', required: true, default: '0' },
    total: { type: 'number', required: true, default: 0 },
    archived: { type: 'number', required: true, default: 0 },
  },
  indexes: {
    byFacet: { pk: { field: 'pk', composite: ['facet', 'boardId', 'orgId'] }, sk: { field: 'sk', composite: ['statusId', 'shard'] } },
  },
}, config);
export type FacetCountItem = EntityItem<ReturnType<typeof FacetCount>>;
