import { SignJWT } from 'jose';
import { notFound, oauthError } from '../core/errors.js';
import type { Clock } from '../core/clock.js';
import { addSeconds, epochSeconds } from '../core/clock.js';
import { newId, randomSecret, sha256Hex } from '../core/ids.js';
import { batchGetMixed } from '../db/batch.js';
import type { OAuthClientItem, OAuthGrantItem, OAuthTokenItem, OrganizationItem, OrganizationSlugItem, UserItem, CredentialItem } from '../db/entities/index.js';
import { db } from '../db/service.js';
import { guarded, transact, type TransactionEntities } from '../db/transact.js';
import { ACCESS_TOKEN_TYP, CONSOLE_CLIENT_ID } from '../identity/index.js';
import type { DomainContext } from '../db/context.js';
import { authenticateClient, markClientUsed, resolveClient, type OAuthClient } from './clients.js';
import { openRotatedPair, rotationRequestDigest, sealRotatedPair, type RotatedPair } from './rotation.js';
import { resourceOf } from './discovery.js';
import { sameResource } from './authorize.js';
import { signingKey } from './keys.js';
import { verifiesS256 } from './pkce.js';

/** Access tokens live 900 s, refresh tokens 30 days (docs/design/oauth.md). */
export const ACCESS_TOKEN_TTL_SECONDS = 900;
export const REFRESH_TOKEN_TTL_SECONDS = 30 * 86_400;
/**
 * A rotated refresh token presented again within this many seconds of its rotation, in the
 * same request (client, scope, organization, resource), is a client racing itself or retrying
 * a lost response: it is answered the very pair the rotation issued (lib/oauth/rotation.ts),
 * and nothing new is minted. Any other reuse (later, or a different request) is a replay, and
 * revokes the grant (RFC 9700 §4.14.2).
 */
export const REFRESH_RACE_SECONDS = 5;

const REFRESH_PREFIX = 'wmr_';
const SECRET_LENGTH = 43;
const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/;

/** The token request's parameters (RFC 6749 §4.1.3, §6; docs/oauth.md). */
export interface TokenRequest {
  grant_type?: string | undefined;
  code?: string | undefined;
  redirect_uri?: string | undefined;
  client_id?: string | undefined;
  client_secret?: string | undefined;
  code_verifier?: string | undefined;
  refresh_token?: string | undefined;
  scope?: string | undefined;
  resource?: string | undefined;
  organization_id?: string | undefined;
}

export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
  scope: string;
}

/**
 * The organization whose token endpoint was reached (its slug: the organization is read beside
 * the token, in the same round trip), its origin, and how to reach another organization's.
 */
export interface TokenEndpointSite {
  slug: string;
  origin: string;
  /** The origin of the organization with this slug (same scheme, base domain and port). */
  originOfSlug: (slug: string) => string;
}

/** The organization of the endpoint's slug, read beside the token; unknown → 404, as on every OAuth endpoint. */
function organizationOf(slug: OrganizationSlugItem | undefined): string {
  if (!slug) throw notFound('Organization');
  return slug.orgId;
}

const required = (value: string | undefined, name: string): string => {
  if (!value) throw oauthError('invalid_request', `${name} is required`);
  return value;
};

/** POST /api/v1/oauth/token: the authorization code and refresh token grants. */
export async function exchangeToken(clock: Clock, input: TokenRequest, site: TokenEndpointSite): Promise<TokenResponse> {
  const grantType = required(input.grant_type, 'grant_type');
  if (grantType === 'authorization_code') return redeemCode(clock, input, site);
  if (grantType === 'refresh_token') return refresh(clock, input, site);
  throw oauthError('unsupported_grant_type', 'grant_type must be authorization_code or refresh_token');
}

/** The client of a token request, authenticated: a registered client by its secret, a metadata-document client by PKCE alone. */
async function requestingClient(clientId: string, orgId: string, secret: string | undefined, cached: OAuthClientItem | undefined, now: Date): Promise<OAuthClient> {
  const client = await resolveClient(clientId, orgId, now, cached ?? null);
  if ('refused' in client) throw oauthError('invalid_client', client.refused);
  authenticateClient(client, secret);
  return client;
}

/**
 * Authorization code grant. One read (the code beside the client), one transaction: the code is
 * marked used on condition that it was not (so of two exchanges exactly one wins), and the
 * grant, its first refresh token and the access token's record are created with it, on
 * condition that the user is still active and has not signed out since. A code used twice
 * revokes the grant the first use made (RFC 6749 §4.1.2). A code is redeemed only at the
 * organization that issued it: at another one's token endpoint it is unknown.
 */
async function redeemCode(clock: Clock, input: TokenRequest, site: TokenEndpointSite): Promise<TokenResponse> {
  const origin = site.origin;
  const code = required(input.code, 'code');
  const redirectUri = required(input.redirect_uri, 'redirect_uri');
  const clientId = required(input.client_id, 'client_id');
  const verifier = required(input.code_verifier, 'code_verifier');
  const now = clock.now();
  const entities = db().entities;
  const [stored, clientItem, slug] = (await batchGetMixed([
    { entity: entities.oauthToken, key: { lookupKey: sha256Hex(code) } },
    { entity: entities.oauthClient, key: { clientId } },
    { entity: entities.organizationSlug, key: { slug: site.slug } },
  ])) as [OAuthTokenItem | undefined, OAuthClientItem | undefined, OrganizationSlugItem | undefined];
  const orgId = organizationOf(slug);
  const client = await requestingClient(clientId, orgId, input.client_secret, clientItem, now);

  if (stored?.kind !== 'CODE' || stored.clientId !== clientId || stored.orgId !== orgId) {
    throw oauthError('invalid_grant', 'The code is invalid, expired or was issued to another client');
  }
  if (stored.usedAt) {
    await revokeGrant(stored.grantId, now);
    throw oauthError('invalid_grant', 'The code was already used; everything issued with it is revoked');
  }
  if (stored.expiresAt <= now.toISOString()) throw oauthError('invalid_grant', 'The code has expired');
  if (stored.redirectUri !== redirectUri) throw oauthError('invalid_grant', 'redirect_uri differs from the authorization request');
  if (!verifiesS256(verifier, stored.codeChallenge ?? '')) throw oauthError('invalid_grant', 'code_verifier does not match the code_challenge');
  if (input.resource !== undefined && !sameResource(input.resource, stored.resource)) throw oauthError('invalid_target', `resource must be ${stored.resource}`);

  const scopes = narrowedScopes(input.scope, stored.scope);
  const refreshToken = mintRefreshToken(stored.grantId);
  const access = await mintAccessToken({ origin, orgId: stored.orgId, userId: stored.userId, grantId: stored.grantId, clientId, scope: scopes, resource: stored.resource }, now);
  const refreshExpires = addSeconds(now, REFRESH_TOKEN_TTL_SECONDS);
  const at = now.toISOString();
  const replayed = oauthError('invalid_grant', 'The code was already used; everything issued with it is revoked');
  await transact((e) => [
    guarded(
      e.oauthToken.patch({ lookupKey: stored.lookupKey }).set({ usedAt: at }).where((attr, op) => op.notExists(attr.usedAt)).commit(),
      () => replayed,
    ),
    e.oauthGrant
      .create({
        grantId: stored.grantId,
        orgId: stored.orgId,
        userId: stored.userId,
        clientId,
        clientName: stored.clientName ?? clientId,
        scope: stored.scope,
        resource: stored.resource,
        personKey: stored.personKey ?? '',
        ...(stored.sessionKey ? { sessionKey: stored.sessionKey } : {}),
        createdAt: stored.createdAt,
        lastUsedAt: at,
        expiresAt: refreshExpires.toISOString(),
        ttl: epochSeconds(refreshExpires) + 86_400,
      })
      .commit(),
    refreshRecord(e, refreshToken, stored, stored.scope, now),
    access.record(e),
    userStillAuthorized(e, stored.orgId, stored.userId, stored.createdAt),
    ...markClientUsed(e, client, now),
  ]).catch(async (error: unknown) => {
    // A concurrent exchange of the same code won: this one is the replay, and revokes the grant.
    if (error === replayed) await revokeGrant(stored.grantId, now);
    throw error;
  });
  return { access_token: access.token, token_type: 'Bearer', expires_in: ACCESS_TOKEN_TTL_SECONDS, refresh_token: refreshToken, scope: scopes };
}

/**
 * Refresh token grant with rotation. One read (the token, its grant and the client together),
 * one transaction: the token is marked used on condition that it was not, so of two concurrent
 * refreshes exactly one rotates; the rotation's pair is kept sealed on the spent token, and the
 * same request again within REFRESH_RACE_SECONDS is answered that pair. Any other reuse of a
 * spent token revokes the grant. `scope` can only narrow; `organization_id` asks for an access
 * token of another organization (docs/oauth.md). A refresh token works only at the token endpoint
 * of the organization whose grant it belongs to.
 */
async function refresh(clock: Clock, input: TokenRequest, site: TokenEndpointSite): Promise<TokenResponse> {
  const token = required(input.refresh_token, 'refresh_token');
  const clientId = required(input.client_id, 'client_id');
  const now = clock.now();
  const grantId = grantIdOfRefreshToken(token);
  const entities = db().entities;
  const [stored, clientItem, grant, slug] = (await batchGetMixed([
    { entity: entities.oauthToken, key: { lookupKey: sha256Hex(token) } },
    { entity: entities.oauthClient, key: { clientId } },
    { entity: entities.oauthGrant, key: { grantId: grantId ?? 'grt_none' } },
    { entity: entities.organizationSlug, key: { slug: site.slug } },
  ])) as [OAuthTokenItem | undefined, OAuthClientItem | undefined, OAuthGrantItem | undefined, OrganizationSlugItem | undefined];
  const orgId = organizationOf(slug);
  const client = await requestingClient(clientId, orgId, input.client_secret, clientItem, now);

  if (stored?.kind !== 'REFRESH' || stored.clientId !== clientId || !grant || grant.grantId !== stored.grantId || grant.orgId !== orgId) {
    throw oauthError('invalid_grant', 'The refresh token is invalid or was issued to another client');
  }
  if (grant.revokedAt) throw oauthError('invalid_grant', 'The grant was revoked');
  const request = rotationRequestDigest({ clientId, scope: input.scope, organizationId: input.organization_id, resource: input.resource });
  if (stored.usedAt) return answerSpentToken(token, stored, request, now);
  if (stored.expiresAt <= now.toISOString()) throw oauthError('invalid_grant', 'The refresh token has expired');
  if (input.resource !== undefined && !sameResource(input.resource, resourceOf(site.origin))) throw oauthError('invalid_target', `resource must be ${resourceOf(site.origin)}`);
  const scopes = narrowedScopes(input.scope, grant.scope);

  const target = input.organization_id && input.organization_id !== grant.orgId ? await switchTarget(client, grant, input.organization_id, scopes, site, now) : undefined;
  const issuedFor = target ?? { origin: site.origin, grant, scope: scopes };
  const newRefresh = mintRefreshToken(grant.grantId);
  const access = await mintAccessToken(
    { origin: issuedFor.origin, orgId: issuedFor.grant.orgId, userId: issuedFor.grant.userId, grantId: issuedFor.grant.grantId, clientId, scope: issuedFor.scope, resource: resourceOf(issuedFor.origin) },
    now,
  );
  const pair = { access_token: access.token, refresh_token: newRefresh, scope: issuedFor.scope, accessExpiresAt: epochSeconds(now) + ACCESS_TOKEN_TTL_SECONDS };
  const refreshExpires = addSeconds(now, REFRESH_TOKEN_TTL_SECONDS);
  const at = now.toISOString();
  const lostRace = oauthError('invalid_grant', 'The refresh token was just rotated by a concurrent request');
  try {
    await transact((e) => [
      guarded(
        e.oauthToken
          .patch({ lookupKey: stored.lookupKey })
          .set({ usedAt: at, rotatedTo: sealRotatedPair(token, pair), rotationRequest: request })
          .where((attr, op) => op.notExists(attr.usedAt))
          .commit(),
        () => lostRace,
      ),
      guarded(
        e.oauthGrant
          .patch({ grantId: grant.grantId })
          .set({ lastUsedAt: at, expiresAt: refreshExpires.toISOString(), ttl: epochSeconds(refreshExpires) + 86_400 })
          .where((attr, op) => op.notExists(attr.revokedAt))
          .commit(),
        () => oauthError('invalid_grant', 'The grant was revoked'),
      ),
      refreshRecord(e, newRefresh, stored, grant.scope, now),
      access.record(e),
      userStillAuthorized(e, grant.orgId, grant.userId, grant.createdAt),
      ...(target ? [userStillAuthorized(e, target.grant.orgId, target.grant.userId, target.grant.createdAt)] : []),
    ]);
  } catch (error) {
    if (error !== lostRace) throw error;
    // A concurrent request rotated the token first: this one is answered as a reuse of a spent token.
    const winner = (await entities.oauthToken.get({ lookupKey: stored.lookupKey }).go({ consistent: true })).data;
    if (!winner?.usedAt) throw error;
    return answerSpentToken(token, winner, request, now);
  }
  return tokenResponseOf(pair, now);
}

const tokenResponseOf = (pair: RotatedPair, now: Date): TokenResponse => ({
  access_token: pair.access_token,
  token_type: 'Bearer',
  expires_in: Math.max(1, pair.accessExpiresAt - epochSeconds(now)),
  refresh_token: pair.refresh_token,
  scope: pair.scope,
});

/**
 * A spent refresh token presented again (RFC 9700 §4.14.2). The same request within
 * REFRESH_RACE_SECONDS of the rotation, while the pair it issued is unused, gets that pair
 * again; anything else is a replay: the grant is revoked.
 */
async function answerSpentToken(token: string, stored: OAuthTokenItem, request: string, now: Date): Promise<TokenResponse> {
  const withinRace = now.getTime() - Date.parse(stored.usedAt!) <= REFRESH_RACE_SECONDS * 1000;
  const pair = withinRace && stored.rotatedTo && stored.rotationRequest === request ? openRotatedPair(token, stored.rotatedTo) : undefined;
  if (pair) {
    const successor = (await db().entities.oauthToken.get({ lookupKey: sha256Hex(pair.refresh_token) }).go({ consistent: true })).data;
    if (successor && !successor.usedAt) return tokenResponseOf(pair, now);
  }
  await revokeGrant(stored.grantId, now);
  throw oauthError('invalid_grant', 'The refresh token was already used; the grant is revoked');
}

/**
 * The organization switch (docs/oauth.md): the user (the same e-mail address) must be an active
 * member of the other organization and have authorized this client there. Only a registered
 * client may switch: its secret proves it is the very client the other grant was given to. A
 * metadata-document client is one public identity shared by every installation of an app, and
 * e-mail addresses are not verified, so for it a switch could hand one person's grant to
 * another's installation; it authorizes in each organization instead.
 */
async function switchTarget(client: OAuthClient, grant: OAuthGrantItem, orgId: string, scopes: string, site: TokenEndpointSite, now: Date) {
  if (client.kind !== 'REGISTERED') throw oauthError('unauthorized_client', 'Only a registered client can switch organizations; authorize in the other organization instead');
  const live = await liveGrantsOfPerson(grant.personKey, grant.clientId, now, orgId);
  const other = live[0];
  if (!other) throw oauthError('invalid_grant', 'The client is not authorized in that organization');
  const org = (await db().entities.organization.get({ orgId }).go()).data;
  if (!org) throw oauthError('invalid_grant', 'The client is not authorized in that organization');
  return { origin: site.originOfSlug(org.slug), grant: other.grant, scope: narrowedScopes(scopes, other.grant.scope) };
}

/**
 * The live grants of one person (e-mail) for one client, optionally in one organization, with
 * their users: not revoked, not expired, the user active and not signed out since.
 */
export async function liveGrantsOfPerson(personKey: string, clientId: string, now: Date, orgId?: string): Promise<{ grant: OAuthGrantItem; user: UserItem; org: OrganizationItem }[]> {
  const entities = db().entities;
  const query = entities.oauthGrant.query.byPersonClient({ personKey, clientId });
  const grants = (await (orgId ? query.begins({ orgId }) : query).go({ pages: 'all' })).data.filter(
    (grant) => !grant.revokedAt && grant.expiresAt > now.toISOString(),
  );
  if (grants.length === 0) return [];
  const related = await batchGetMixed(
    grants.flatMap((grant) => [
      { entity: entities.user, key: { orgId: grant.orgId, userId: grant.userId } },
      { entity: entities.organization, key: { orgId: grant.orgId } },
    ]),
  );
  return grants.flatMap((grant, index) => {
    const user = related[index * 2] as UserItem | undefined;
    const org = related[index * 2 + 1] as OrganizationItem | undefined;
    if (!user || !org || !user.isActive || user.isDeleted || (user.oauthValidAfter && grant.createdAt < user.oauthValidAfter)) return [];
    return [{ grant, user, org }];
  });
}

/** The scopes of a token request: those asked for, each one the grant holds; none asked, all of the grant's. */
function narrowedScopes(requested: string | undefined, granted: string): string {
  const held = granted.split(' ');
  if (requested === undefined) return granted;
  const asked = requested.split(' ').filter(Boolean);
  if (asked.length === 0 || asked.some((scope) => !held.includes(scope))) throw oauthError('invalid_scope', `scope may only narrow the grant's: ${granted}`);
  return held.filter((scope) => asked.includes(scope)).join(' ');
}

/** `wmr_<43 characters of secret><the grant's ULID>`: the grant id lets the token endpoint read the grant beside the token. */
function mintRefreshToken(grantId: string): string {
  return `${REFRESH_PREFIX}${randomSecret(32)}${grantId.slice(grantId.indexOf('_') + 1)}`;
}

export function grantIdOfRefreshToken(token: string): string | undefined {
  if (!token.startsWith(REFRESH_PREFIX) || token.length !== REFRESH_PREFIX.length + SECRET_LENGTH + 26) return undefined;
  const ulid = token.slice(REFRESH_PREFIX.length + SECRET_LENGTH);
  return ULID.test(ulid) ? `grt_${ulid}` : undefined;
}

function refreshRecord(e: TransactionEntities, token: string, from: OAuthTokenItem, scope: string, now: Date) {
  const expiresAt = addSeconds(now, REFRESH_TOKEN_TTL_SECONDS);
  return e.oauthToken
    .create({
      lookupKey: sha256Hex(token),
      kind: 'REFRESH',
      grantId: from.grantId,
      orgId: from.orgId,
      userId: from.userId,
      clientId: from.clientId,
      scope,
      resource: from.resource,
      expiresAt: expiresAt.toISOString(),
      ttl: epochSeconds(expiresAt) + 86_400,
      createdAt: now.toISOString(),
    })
    .commit();
}

/** The user is active and has not signed out (or changed the password) since the grant was made. */
function userStillAuthorized(e: TransactionEntities, orgId: string, userId: string, grantCreatedAt: string) {
  return guarded(
    e.user
      .check({ orgId, userId })
      .where((attr, op) => `${op.eq(attr.isActive, true)} AND (${op.notExists(attr.oauthValidAfter)} OR ${op.lte(attr.oauthValidAfter, grantCreatedAt)})`)
      .commit(),
    () => oauthError('invalid_grant', 'The user signed out or is no longer active; authorize again'),
  );
}

interface AccessTokenClaims {
  origin: string;
  orgId: string;
  userId: string;
  grantId: string;
  clientId: string;
  scope: string;
  resource: string;
}

/**
 * An access token: a JWT (RFC 9068 `at+jwt`) signed with the deployment's Ed25519 key, with
 * `iss` (the organization's origin), `sub`, `aud` (the resource), `org`, `scope`,
 * `client_id`, `jti`, `gid` (its grant), `iat` and `exp` (900 s), and its server-side record
 * under the token's SHA-256, which the authenticator requires, so revocation is immediate.
 */
async function mintAccessToken(claims: AccessTokenClaims, now: Date) {
  const key = signingKey();
  const iat = epochSeconds(now);
  const expiresAt = addSeconds(now, ACCESS_TOKEN_TTL_SECONDS);
  const token = await new SignJWT({ org: claims.orgId, scope: claims.scope, client_id: claims.clientId, gid: claims.grantId })
    .setProtectedHeader({ alg: 'EdDSA', kid: key.kid, typ: ACCESS_TOKEN_TYP })
    .setIssuer(claims.origin)
    .setSubject(claims.userId)
    .setAudience(claims.resource)
    .setJti(newId('atk'))
    .setIssuedAt(iat)
    .setExpirationTime(iat + ACCESS_TOKEN_TTL_SECONDS)
    .sign(key.privateKey);
  return {
    token,
    record: (e: TransactionEntities) =>
      e.credential
        .create({
          lookupKey: sha256Hex(token),
          kind: 'OAUTH',
          orgId: claims.orgId,
          userId: claims.userId,
          grantId: claims.grantId,
          clientId: claims.clientId,
          scope: claims.scope,
          expiresAt: expiresAt.toISOString(),
          ttl: epochSeconds(expiresAt) + 3600,
          createdAt: now.toISOString(),
        })
        .commit(),
  };
}

/** Revokes a grant: its refresh tokens stop working and its access tokens are refused at once (the authenticator reads the grant). */
/**
 * Signing out of the console (docs/console.md, "Signing in"): every console grant the ending
 * sign-in session made is revoked, the one in the tab that signs out and those of earlier loads
 * of the page in the same browser (each load gets its own grant, and its refresh token dies with
 * the page's memory). The person's console sessions in other browsers, and the grants of other
 * clients, stay. One Query of the person's console grants in this organization.
 */
export async function revokeConsoleGrantsOfSession(ctx: DomainContext): Promise<void> {
  if (ctx.actor.credential.kind !== 'SESSION') return;
  const sessionKey = ctx.actor.credential.lookupKey;
  const now = ctx.clock.now();
  const grants = (
    await db()
      .entities.oauthGrant.query.byPersonClient({ personKey: sha256Hex(ctx.actor.email.toLowerCase()), clientId: CONSOLE_CLIENT_ID })
      .begins({ orgId: ctx.org.orgId })
      .go({ pages: 'all' })
  ).data;
  await Promise.all(grants.filter((grant) => grant.sessionKey === sessionKey && !grant.revokedAt).map((grant) => revokeGrant(grant.grantId, now)));
}

export async function revokeGrant(grantId: string, now: Date): Promise<void> {
  await db()
    .entities.oauthGrant.patch({ grantId })
    .set({ revokedAt: now.toISOString() })
    .where((attr, op) => op.notExists(attr.revokedAt))
    .go({ response: 'none' })
    .catch(() => undefined); // no such grant yet, or already revoked: nothing left to revoke
}

/**
 * RFC 7009 revocation. The client authenticates first (§2.1): a confidential client with its
 * secret, a public client by its `client_id`; a request naming no client, or a client that fails
 * authentication, is refused (401 invalid_client). Then a refresh token (or code) revokes its
 * grant, an access token its own record, and only when it was issued to that client at this
 * organization: unknown tokens, another client's and another organization's are ignored (200).
 * One read: the token's record, the organization and the client, together.
 */
export async function revokeToken(input: { token: string; clientId: string | undefined; clientSecret: string | undefined }, slug: string, now: Date): Promise<void> {
  const { token, clientId } = input;
  if (!clientId) throw oauthError('invalid_client', 'Client authentication failed: send client_id (and client_secret for a confidential client)');
  const entities = db().entities;
  const spendable = token.startsWith(REFRESH_PREFIX) || token.startsWith('wmc_');
  const [stored, organization, clientItem] = (await batchGetMixed([
    spendable ? { entity: entities.oauthToken, key: { lookupKey: sha256Hex(token) } } : { entity: entities.credential, key: { lookupKey: sha256Hex(token) } },
    { entity: entities.organizationSlug, key: { slug } },
    { entity: entities.oauthClient, key: { clientId } },
  ])) as [OAuthTokenItem | CredentialItem | undefined, OrganizationSlugItem | undefined, OAuthClientItem | undefined];
  const orgId = organizationOf(organization);
  await requestingClient(clientId, orgId, input.clientSecret, clientItem, now);
  if (!stored || stored.orgId !== orgId || stored.clientId !== clientId) return;
  if (spendable) await revokeGrant((stored as OAuthTokenItem).grantId, now);
  else if ((stored as CredentialItem).kind === 'OAUTH') await entities.credential.delete({ lookupKey: stored.lookupKey }).go({ response: 'none' });
}
