import { Entity, type EntityConfiguration, type EntityItem } from 'electrodb';

export const CUSTOM_FIELD_TYPES = ['TEXT', 'NUMBER', 'DATE', 'URL', 'SELECT', 'CHECKBOX'] as const;
export type CustomFieldType = (typeof CUSTOM_FIELD_TYPES)[number];

/** Definition of an organization-wide custom field; ticket values live on the ticket. */
export const CustomField = (config?: EntityConfiguration) =>
  new Entity({
  model: { entity: 'customField', version: '1', service: 'wm' },
  attributes: {
    orgId: { type: 'string', required: true },
    fieldId: { type: 'string', required: true },
    name: { type: 'string', required: true },
    fieldType: { type: CUSTOM_FIELD_TYPES, required: true },
    description: { type: 'string', required: true, default: '' },
    /** Allowed values of a SELECT field. */
    options: { type: 'list', items: { type: 'string' } },
    isRequired: { type: 'boolean', required: true, default: false },
    order: { type: 'number', required: true, default: 0 },
    createdAt: { type: 'string', required: true, readOnly: true },
    updatedAt: { type: 'string', required: true },
  },
  indexes: {
    byOrg: { collection: 'orgConfig', pk: { field: 'pk', composite: ['orgId'] }, sk: { field: 'sk', composite: ['fieldId'] } },
  },
}, config);
export type CustomFieldItem = EntityItem<ReturnType<typeof CustomField>>;
