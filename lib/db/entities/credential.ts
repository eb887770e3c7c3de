import { Entity, type EntityConfiguration, type EntityItem } from 'electrodb';

export const CREDENTIAL_KINDS = ['SESSION', 'PERSONAL', 'AGENT', 'OAUTH'] as const;
export type CredentialKind = (typeof CREDENTIAL_KINDS)[number];

/**
 * Every server-side credential, keyed by its lookup key: the session id of a session JWT,
 * or the SHA-256 of a personal/agent token or of an OAuth access token (whose grant, client
 * and scope it keeps). Plain tokens are never stored.
 * `byOwner` lists a user's (or agent's) credentials of one kind, newest first.
 */
export const Credential = (config?: EntityConfiguration) =>
  new Entity({
  model: { entity: 'credential', version: '1', service: 'wm' },
  attributes: {
    lookupKey: { type: 'string', required: true },
    kind: { type: CREDENTIAL_KINDS, required: true },
    orgId: { type: 'string', required: true },
    userId: { type: 'string', required: true },
    tokenId: { type: 'string' },
    name: { type: 'string' },
    tokenPrefix: { type: 'string' },
    allowedBoardIds: { type: 'list', items: { type: 'string' } },
    readOnly: { type: 'boolean', default: false },
    denyDelete: { type: 'boolean', default: false },
    clientLabel: { type: 'string' },
    /** OAUTH: the grant it was issued from, its client and its space-separated scopes. */
    grantId: { type: 'string' },
    clientId: { type: 'string' },
    scope: { type: 'string' },
    /** ISO timestamp; absent means the credential never expires. */
    expiresAt: { type: 'string' },
    /** DynamoDB TTL (epoch seconds): housekeeping only, validity is decided by expiresAt. */
    ttl: { type: 'number' },
    lastUsedAt: { type: 'string' },
    createdAt: { type: 'string', required: true, readOnly: true },
  },
  indexes: {
    byLookupKey: { pk: { field: 'pk', composite: ['lookupKey'] }, sk: { field: 'sk', composite: [] } },
    byOwner: {
      index: 'gsi1',
      pk: { field: 'gsi1pk', composite: ['orgId', 'userId', 'kind'] },
      sk: { field: 'gsi1sk', composite: ['createdAt'] },
    },
  },
}, config);
export type CredentialItem = EntityItem<ReturnType<typeof Credential>>;
