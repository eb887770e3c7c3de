import { Entity, type EntityConfiguration, type EntityItem } from 'electrodb';

export const UNIQUE_NAME_SCOPES = ['status', 'statusKey', 'ticketType', 'label', 'customField', 'milestone', 'wikiSlug', 'wikiBoard'] as const;
export type UniqueNameScope = (typeof UNIQUE_NAME_SCOPES)[number];

/**
 * A name guard: one item per (organization, scope, comparable name), written with
 * `attribute_not_exists` in the same transaction as the item that takes the name, deleted in
 * the transaction that renames or deletes it. Two concurrent writes of the same name cannot
 * both commit, which the organization's Query alone could not ensure.
 */
export const UniqueName = (config?: EntityConfiguration) =>
  new Entity({
  model: { entity: 'uniqueName', version: '1', service: 'wm' },
  attributes: {
    orgId: { type: 'string', required: true },
    scope: { type: UNIQUE_NAME_SCOPES, required: true },
    /** The comparable name (NFC, lower case) — or the status key for scope `statusKey`. */
    name: { type: 'string', required: true },
    /** The id of the status, ticket type, label or custom field holding the name. */
    ownerId: { type: 'string', required: true },
  },
  indexes: {
    byName: { pk: { field: 'pk', composite: ['orgId', 'scope'] }, sk: { field: 'sk', composite: ['name'] } },
  },
}, config);
export type UniqueNameItem = EntityItem<ReturnType<typeof UniqueName>>;
