import { Entity, type EntityConfiguration, type EntityItem } from 'electrodb';

export const Customer = (config?: EntityConfiguration) =>
  new Entity({
  model: { entity: 'customer', version: '1', service: 'wm' },
  attributes: {
    orgId: { type: 'string', required: true },
    customerId: { type: 'string', required: true },
    name: { type: 'string', required: true },
    email: { type: 'string' },
    phone: { type: 'string' },
    /** Lower-cased "name email" for case-insensitive search. */
    // Derived by the entity from \`name\` and \`email\` in the same write (watch): domain code never
    // sets it, and a write that changes either sends both (updateCustomer does).
    searchText: {
      type: 'string',
      required: true,
      default: '',
      watch: ['name', 'email'],
      set: (_: unknown, item: { name?: string; email?: string }) => [item.name, item.email].filter(Boolean).join('\n').toLowerCase(),
    },
    isArchived: { type: 'boolean', required: true, default: false },
    createdAt: { type: 'string', required: true, readOnly: true },
    updatedAt: { type: 'string', required: true },
  },
  indexes: {
    byOrg: { pk: { field: 'pk', composite: ['orgId'] }, sk: { field: 'sk', composite: ['customerId'] } },
  },
}, config);
export type CustomerItem = EntityItem<ReturnType<typeof Customer>>;
