import { unauthenticated } from '../core/errors.js';
import type { Actor, DomainContext } from '../db/context.js';
import type { Clock } from '../core/clock.js';
import { db } from '../db/service.js';
import { batchGetMixed } from '../db/batch.js';
import { transact } from '../db/transact.js';
import type { CredentialItem, OAuthGrantItem, OrganizationItem, UserItem } from '../db/entities/index.js';
import { groupDirectoryOf, permissionsOfGroups } from '../organizations/index.js';
import { looksLikeJwt, verifySessionJwt } from './sessions.js';
import { parseAccessToken } from './access-tokens.js';
import { parseOAuthAccessToken, resourceOf } from './oauth-access-tokens.js';
import { log } from '../core/telemetry.js';

/** Where a request was sent: the organization it addresses and the origin it reached. */
export interface RequestTarget {
  /** The organization the request addresses (subdomain or X-Organization), if any. */
  slug: string | null;
  /** Scheme, host and port the client reached (an OAuth access token's audience is built from it). */
  origin: string;
}

/** Token use is recorded at most this often, so authentication stays one read per request. */
const LAST_USED_WRITE_INTERVAL_MS = 5 * 60 * 1000;

/**
 * Resolves a bearer credential to its organization and actor with exactly one round trip:
 * a consistent BatchGetItem of {credential, user, organization} (and for an OAuth access token
 * its grant). Every failure is the same 401, so a caller learns nothing about which part was
 * wrong.
 *
 * `target.slug` is the organization the request addresses (subdomain or X-Organization); a
 * credential presented to another organization is refused (docs/design/oauth.md). An OAuth access
 * token must also be meant for this origin's resource (its `aud`).
 */
export async function authenticate(
  bearer: string,
  target: RequestTarget,
  clock: Clock,
  requestId: string,
): Promise<DomainContext> {
  const requestedSlug = target.slug;
  const reference = await credentialReference(bearer, clock.now());
  if (!reference) throw unauthenticated('Invalid or expired credential');
  const entities = db().entities;
  const [credential, user, org, grant] = (await batchGetMixed([
    { entity: entities.credential, key: { lookupKey: reference.lookupKey } },
    { entity: entities.user, key: { orgId: reference.orgId, userId: reference.userId } },
    { entity: entities.organization, key: { orgId: reference.orgId } },
    ...(reference.grantId ? [{ entity: entities.oauthGrant, key: { grantId: reference.grantId } }] : []),
  ])) as [CredentialItem | undefined, UserItem | undefined, OrganizationItem | undefined, OAuthGrantItem | undefined];

  const now = clock.now();
  if (!credential || !user || !org) throw unauthenticated('Invalid or expired credential');
  if (credential.userId !== reference.userId || credential.orgId !== reference.orgId || credential.kind !== reference.kind) {
    throw unauthenticated('Invalid or expired credential');
  }
  if (credential.expiresAt && credential.expiresAt <= now.toISOString()) throw unauthenticated('Credential expired');
  if (!user.isActive || user.isDeleted) throw unauthenticated('Account is deactivated');
  if (credential.kind === 'SESSION' && user.sessionsValidAfter && credential.createdAt < user.sessionsValidAfter) {
    throw unauthenticated('Session ended');
  }
  if (requestedSlug && requestedSlug !== org.slug) throw unauthenticated('Credential belongs to another organization');
  if ((credential.kind === 'AGENT') !== user.isAgent) throw unauthenticated('Invalid or expired credential');
  if (credential.kind === 'OAUTH') {
    if (!grant || grant.revokedAt || grant.grantId !== credential.grantId || grant.userId !== user.userId) throw unauthenticated('Token revoked');
    if (user.oauthValidAfter && grant.createdAt < user.oauthValidAfter) throw unauthenticated('Token revoked');
    if (reference.audience !== resourceOf(target.origin)) throw unauthenticated('Token is meant for another resource');
  }

  if (credential.kind === 'PERSONAL' || credential.kind === 'AGENT') await recordTokenUse(credential, now);
  return { org, actor: actorOf(user, org, credential), clock, requestId };
}

interface CredentialReference {
  kind: CredentialItem['kind'];
  lookupKey: string;
  orgId: string;
  userId: string;
  grantId?: string;
  audience?: string;
}

async function credentialReference(bearer: string, now: Date): Promise<CredentialReference | undefined> {
  if (looksLikeJwt(bearer)) {
    const oauth = parseOAuthAccessToken(bearer);
    if (oauth) return { kind: 'OAUTH', ...oauth };
    const claims = await verifySessionJwt(bearer, now);
    return claims && { kind: 'SESSION', lookupKey: claims.sessionId, orgId: claims.orgId, userId: claims.userId };
  }
  const token = parseAccessToken(bearer);
  return token && { kind: token.kind, lookupKey: token.lookupKey, orgId: token.orgId, userId: token.userId };
}

export function actorOf(user: UserItem, org: OrganizationItem, credential: CredentialItem): Actor {
  const isAdmin = user.role === 'ADMIN';
  return {
    userId: user.userId,
    name: user.name,
    email: user.email,
    role: user.role,
    isAgent: user.isAgent,
    isAdmin,
    customerId: user.customerId ?? null,
    permissions: permissionsOfGroups(groupDirectoryOf(org), user.permissionGroupIds ?? []),
    teamIds: new Set(user.teamIds ?? []),
    agent: user.isAgent
      ? { ownerId: user.ownerId ?? null, maxConcurrentClaims: user.maxConcurrentClaims ?? null, timeFactor: user.timeFactor ?? null, weeklyHoursCap: user.weeklyHoursCap ?? null, dispatchPaused: user.dispatchPaused === true, monthlyBudgetMicros: user.monthlyBudgetMicros ?? null }
      : null,
    credential: {
      kind: credential.kind,
      credentialId: credential.tokenId ?? credential.lookupKey,
      lookupKey: credential.lookupKey,
      allowedBoardIds: credential.allowedBoardIds ?? [],
      readOnly: credential.readOnly ?? false,
      denyDelete: credential.denyDelete ?? false,
      clientLabel: credential.clientLabel ?? null,
      scopes: credential.kind === 'OAUTH' ? (credential.scope ?? '').split(' ').filter(Boolean) : null,
      ...(credential.clientId ? { clientId: credential.clientId } : {}),
    },
  };
}

async function recordTokenUse(credential: CredentialItem, now: Date): Promise<void> {
  const last = credential.lastUsedAt ? Date.parse(credential.lastUsedAt) : 0;
  if (now.getTime() - last < LAST_USED_WRITE_INTERVAL_MS) return;
  const at = now.toISOString();
  await transact(({ credential: credentials, user }) => [
    credentials.patch({ lookupKey: credential.lookupKey }).set({ lastUsedAt: at }).commit(),
    user.patch({ orgId: credential.orgId, userId: credential.userId }).set({ lastSeenAt: at }).commit(),
  ]).catch((error: unknown) => log.warn('recording token use failed', { orgId: credential.orgId, error: String(error) }));
}
