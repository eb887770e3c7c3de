import { Entity, type EntityConfiguration, type EntityItem } from 'electrodb';

export const TicketType = (config?: EntityConfiguration) =>
  new Entity({
  model: { entity: 'ticketType', version: '1', service: 'wm' },
  attributes: {
    orgId: { type: 'string', required: true },
    typeId: { type: 'string', required: true },
    name: { type: 'string', required: true },
    color: { type: 'string', required: true },
    description: { type: 'string', required: true, default: '' },
    order: { type: 'number', required: true, default: 0 },
    isOrgDefault: { type: 'boolean', required: true, default: false },
    enabledByDefault: { type: 'boolean', required: true, default: true },
    /** Tickets of this type; maintained by the ticket write path (same transaction). */
    ticketCount: { type: 'number', required: true, default: 0 },
    /**
     * Set when the type is deleted while tickets have it: the type is gone from every read (its
     * tickets show this one), and a background job (lib/tickets/lists/retype.ts) moves its tickets
     * here, then deletes the item.
     */
    replacedBy: { type: 'string' },
    createdAt: { type: 'string', required: true, readOnly: true },
    updatedAt: { type: 'string', required: true },
  },
  indexes: {
    // In the `orgConfig` collection: one Query returns the statuses, types, labels and custom fields.
    byOrg: { collection: 'orgConfig', pk: { field: 'pk', composite: ['orgId'] }, sk: { field: 'sk', composite: ['typeId'] } },
  },
}, config);
export type TicketTypeItem = EntityItem<ReturnType<typeof TicketType>>;
