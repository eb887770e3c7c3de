import { Entity, type EntityConfiguration, type EntityItem } from 'electrodb';

/**
 * A quarantined ticket, listed in its organization's partition (`GET /api/v1/issues?quarantined=true`
 * reads these, never the boards): put in the transaction that quarantines the ticket, deleted in
 * the one that lifts it. The ticket item is the truth; a reader skips an entry whose ticket is
 * gone or no longer quarantined.
 */
export const QuarantineEntry = (config?: EntityConfiguration) =>
  new Entity({
    model: { entity: 'quarantineEntry', version: '1', service: 'wm' },
    attributes: {
      orgId: { type: 'string', required: true },
      ticketId: { type: 'string', required: true },
      boardId: { type: 'string', required: true },
      since: { type: 'string', required: true },
      lapses: { type: 'number', required: true },
    },
    indexes: {
      byOrg: { pk: { field: 'pk', composite: ['orgId'] }, sk: { field: 'sk', composite: ['ticketId'] } },
    },
  }, config);
export type QuarantineEntryItem = EntityItem<ReturnType<typeof QuarantineEntry>>;
