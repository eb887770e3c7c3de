import { Entity, type EntityConfiguration, type EntityItem } from 'electrodb';

export const GROUP_TYPES = ['INTERNAL', 'CUSTOMER'] as const;

export const PermissionGroup = (config?: EntityConfiguration) =>
  new Entity({
  model: { entity: 'permissionGroup', version: '1', service: 'wm' },
  attributes: {
    orgId: { type: 'string', required: true },
    groupId: { type: 'string', required: true },
    name: { type: 'string', required: true },
    color: { type: 'string', required: true },
    type: { type: GROUP_TYPES, required: true },
    permissions: { type: 'list', items: { type: 'string' }, required: true },
    isSystem: { type: 'boolean', required: true, default: false },
    /** Stable key of a system group (ADMINISTRATORS, MEMBERS, AGENTS, CUSTOMERS). */
    systemKey: { type: 'string' },
    createdAt: { type: 'string', required: true, readOnly: true },
    updatedAt: { type: 'string', required: true },
  },
  indexes: {
    byOrg: { pk: { field: 'pk', composite: ['orgId'] }, sk: { field: 'sk', composite: ['groupId'] } },
  },
}, config);
export type PermissionGroupItem = EntityItem<ReturnType<typeof PermissionGroup>>;
