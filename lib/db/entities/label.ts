import { Entity, type EntityConfiguration, type EntityItem } from 'electrodb';

export const Label = (config?: EntityConfiguration) =>
  new Entity({
  model: { entity: 'label', version: '1', service: 'wm' },
  attributes: {
    orgId: { type: 'string', required: true },
    labelId: { type: 'string', required: true },
    name: { type: 'string', required: true },
    color: { type: 'string', required: true },
    description: { type: 'string', required: true, default: '' },
    createdAt: { type: 'string', required: true, readOnly: true },
    updatedAt: { type: 'string', required: true },
  },
  indexes: {
    byOrg: { collection: 'orgConfig', pk: { field: 'pk', composite: ['orgId'] }, sk: { field: 'sk', composite: ['labelId'] } },
  },
}, config);
export type LabelItem = EntityItem<ReturnType<typeof Label>>;
