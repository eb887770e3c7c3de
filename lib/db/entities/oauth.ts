import { Entity, type EntityConfiguration, type EntityItem } from 'electrodb';

export const OAUTH_CLIENT_KINDS = ['REGISTERED', 'PUBLIC', 'METADATA'] as const;

/**
 * An OAuth client, by `client_id`: one registered by a signed-in user (RFC 7591; confidential,
 * its secret kept only as SHA-256), one registered anonymously (PUBLIC: no secret, PKCE alone,
 * usable only at the organization it registered with, and gone unless used within 24 hours:
 * `expiresAt` until its first code is redeemed, `usedAt` after), or the cached, validated
 * Client ID Metadata Document of a public client whose `client_id` is the document's HTTPS URL
 * (`cachedUntil` says when it is fetched again; TTL removes it later).
 */
export const OAuthClient = (config?: EntityConfiguration) =>
  new Entity({
  model: { entity: 'oauthClient', version: '1', service: 'wm' },
  attributes: {
    clientId: { type: 'string', required: true },
    kind: { type: OAUTH_CLIENT_KINDS, required: true },
    clientName: { type: 'string', required: true },
    redirectUris: { type: 'list', items: { type: 'string' }, required: true },
    clientUri: { type: 'string' },
    logoUri: { type: 'string' },
    secretSha256: { type: 'string' },
    /** The organization it registered with (REGISTERED, PUBLIC) and the user who did (REGISTERED). */
    orgId: { type: 'string' },
    createdBy: { type: 'string' },
    /** PUBLIC: unusable from then on unless used before (`usedAt`, set when its first code is redeemed). */
    expiresAt: { type: 'string' },
    usedAt: { type: 'string' },
    cachedUntil: { type: 'string' },
    ttl: { type: 'number' },
    createdAt: { type: 'string', required: true },
  },
  indexes: {
    byClientId: { pk: { field: 'pk', composite: ['clientId'] }, sk: { field: 'sk', composite: [] } },
  },
}, config);
export type OAuthClientItem = EntityItem<ReturnType<typeof OAuthClient>>;

/**
 * What one user allowed one client in one organization: the family of its refresh tokens and
 * the access tokens issued from them. Revoking it (`revokedAt`) ends them all at once: the
 * authenticator reads the grant beside each access token's record. `personKey` (SHA-256 of the
 * user's e-mail) links one person's grants of a client across organizations.
 */
export const OAuthGrant = (config?: EntityConfiguration) =>
  new Entity({
  model: { entity: 'oauthGrant', version: '1', service: 'wm' },
  attributes: {
    grantId: { type: 'string', required: true },
    orgId: { type: 'string', required: true },
    userId: { type: 'string', required: true },
    clientId: { type: 'string', required: true },
    clientName: { type: 'string', required: true },
    scope: { type: 'string', required: true },
    resource: { type: 'string', required: true },
    personKey: { type: 'string', required: true },
    createdAt: { type: 'string', required: true, readOnly: true },
    lastUsedAt: { type: 'string', required: true },
    /** When its newest refresh token expires: the grant ends then unless refreshed. */
    expiresAt: { type: 'string', required: true },
    revokedAt: { type: 'string' },
    /** The console's grants: the lookup key of the sign-in session that made it, which signing out revokes. */
    sessionKey: { type: 'string' },
    ttl: { type: 'number', required: true },
  },
  indexes: {
    byGrant: { pk: { field: 'pk', composite: ['grantId'] }, sk: { field: 'sk', composite: [] } },
    byUser: {
      index: 'gsi1',
      pk: { field: 'gsi1pk', composite: ['orgId', 'userId'] },
      sk: { field: 'gsi1sk', composite: ['createdAt', 'grantId'] },
    },
    byPersonClient: {
      index: 'gsi2',
      pk: { field: 'gsi2pk', composite: ['personKey', 'clientId'] },
      sk: { field: 'gsi2sk', composite: ['orgId', 'grantId'] },
    },
  },
}, config);
export type OAuthGrantItem = EntityItem<ReturnType<typeof OAuthGrant>>;

export const OAUTH_TOKEN_KINDS = ['CODE', 'REFRESH'] as const;

/**
 * An authorization code (60 s) or a refresh token (30 days), by the SHA-256 of its value.
 * `usedAt` is set by the one exchange or rotation that wins (a conditional write); a later use
 * is a replay, and revokes the grant.
 */
export const OAuthToken = (config?: EntityConfiguration) =>
  new Entity({
  model: { entity: 'oauthToken', version: '1', service: 'wm' },
  attributes: {
    lookupKey: { type: 'string', required: true },
    kind: { type: OAUTH_TOKEN_KINDS, required: true },
    grantId: { type: 'string', required: true },
    orgId: { type: 'string', required: true },
    userId: { type: 'string', required: true },
    clientId: { type: 'string', required: true },
    scope: { type: 'string', required: true },
    resource: { type: 'string', required: true },
    redirectUri: { type: 'string' },
    codeChallenge: { type: 'string' },
    /** The e-mail's SHA-256 (codes: the grant the code makes needs it). */
    personKey: { type: 'string' },
    clientName: { type: 'string' },
    /** Codes for the console: the sign-in session that made it (the grant keeps it). */
    sessionKey: { type: 'string' },
    expiresAt: { type: 'string', required: true },
    usedAt: { type: 'string' },
    /**
     * REFRESH, once rotated: the pair the rotation issued, sealed with a key derived from this
     * very token (lib/oauth/rotation.ts), and the digest of the request that rotated it. The
     * same request sent again within seconds (a lost response, a client racing itself) is
     * answered that pair; any other reuse revokes the grant (RFC 9700 §4.14.2).
     */
    rotatedTo: { type: 'string' },
    rotationRequest: { type: 'string' },
    ttl: { type: 'number', required: true },
    createdAt: { type: 'string', required: true },
  },
  indexes: {
    byLookupKey: { pk: { field: 'pk', composite: ['lookupKey'] }, sk: { field: 'sk', composite: [] } },
  },
}, config);
export type OAuthTokenItem = EntityItem<ReturnType<typeof OAuthToken>>;
