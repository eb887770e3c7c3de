import { Entity, type EntityConfiguration, type EntityItem } from 'electrodb';

export const STATUS_CATEGORIES = ['PLANNING', 'ACTIVE', 'FINAL'] as const;
export type StatusCategory = (typeof STATUS_CATEGORIES)[number];

export const Status = (config?: EntityConfiguration) =>
  new Entity({
  model: { entity: 'status', version: '1', service: 'wm' },
  attributes: {
    orgId: { type: 'string', required: true },
    statusId: { type: 'string', required: true },
    key: { type: 'string', required: true },
    name: { type: 'string', required: true },
    color: { type: 'string', required: true },
    category: { type: STATUS_CATEGORIES, required: true },
    order: { type: 'number', required: true },
    isDefault: { type: 'boolean', required: true, default: false },
    isFinal: { type: 'boolean', required: true, default: false },
    isMandatory: { type: 'boolean', required: true, default: false },
    enabledByDefault: { type: 'boolean', required: true, default: true },
    createdAt: { type: 'string', required: true, readOnly: true },
    updatedAt: { type: 'string', required: true },
    /**
     * Set while the status's tickets move to its new category (the job of a category change,
     * lib/tickets/lists/recategorize.ts): the id of the newest such job, which removes it when
     * no ticket of the status is left under another category. Meanwhile a read of the status's
     * column reads it under every category.
     */
    recategorizing: { type: 'string' },
  },
  indexes: {
    // In the `orgConfig` collection: one Query returns the statuses, types, labels and custom fields.
    byOrg: { collection: 'orgConfig', pk: { field: 'pk', composite: ['orgId'] }, sk: { field: 'sk', composite: ['statusId'] } },
  },
}, config);
export type StatusItem = EntityItem<ReturnType<typeof Status>>;
