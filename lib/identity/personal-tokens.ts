import { notFound, invalidField } from '../core/errors.js';
import type { DomainContext } from '../db/context.js';
import { newId } from '../core/ids.js';
import { addSeconds, epochSeconds } from '../core/clock.js';
import { db } from '../db/service.js';
import type { CredentialItem } from '../db/entities/index.js';
import { mintAccessToken } from './access-tokens.js';

export interface TokenRestrictionsInput {
  name: string;
  expiresInDays?: number | null;
  allowedBoardIds?: string[];
  readOnly?: boolean;
  denyDelete?: boolean;
  clientLabel?: string | null;
}

/** A token as listed (the API reference): never the secret, never the hash. */
export function presentToken(credential: CredentialItem) {
  return {
    id: credential.tokenId!,
    name: credential.name ?? '',
    tokenPrefix: credential.tokenPrefix ?? '',
    expiresAt: credential.expiresAt ?? null,
    lastUsedAt: credential.lastUsedAt ?? null,
    createdAt: credential.createdAt,
    allowedBoardIds: credential.allowedBoardIds ?? [],
    readOnly: credential.readOnly ?? false,
    denyDelete: credential.denyDelete ?? false,
    clientLabel: credential.clientLabel ?? null,
  };
}

/**
 * Builds and stores an access token for `userId`. The plaintext is returned exactly once.
 * Shared by personal tokens (here) and agent tokens (agents domain).
 */
export async function createAccessToken(
  ctx: DomainContext,
  kind: 'PERSONAL' | 'AGENT',
  userId: string,
  input: TokenRestrictionsInput,
  defaults: { denyDelete: boolean },
) {
  const now = ctx.clock.now();
  const tokenId = newId('tok');
  const minted = mintAccessToken(kind, ctx.org.orgId, userId);
  const expiresAt = input.expiresInDays ? addSeconds(now, input.expiresInDays * 86400) : undefined;
  const record: CredentialItem = {
    lookupKey: minted.lookupKey,
    kind,
    orgId: ctx.org.orgId,
    userId,
    tokenId,
    name: input.name,
    tokenPrefix: minted.tokenPrefix,
    allowedBoardIds: [...new Set(input.allowedBoardIds ?? [])],
    readOnly: input.readOnly ?? false,
    denyDelete: input.denyDelete ?? defaults.denyDelete,
    clientLabel: input.clientLabel ?? undefined,
    expiresAt: expiresAt?.toISOString(),
    // Expired tokens are removed a day after expiry; validity is always checked against expiresAt.
    ttl: expiresAt ? epochSeconds(addSeconds(expiresAt, 86400)) : undefined,
    createdAt: now.toISOString(),
  };
  await db().entities.credential.create(record).go({ response: 'none' });
  return { ...presentToken(record), token: minted.token };
}

export async function listAccessTokens(orgId: string, userId: string, kind: 'PERSONAL' | 'AGENT'): Promise<CredentialItem[]> {
  const result = await db().entities.credential.query.byOwner({ orgId, userId, kind }).go({ pages: 'all', order: 'desc' });
  return result.data;
}

/** Revokes one token of `userId`; revocation is immediate because every request reads the credential. */
export async function revokeAccessToken(orgId: string, userId: string, kind: 'PERSONAL' | 'AGENT', tokenId: string): Promise<void> {
  const tokens = await listAccessTokens(orgId, userId, kind);
  const token = tokens.find((candidate) => candidate.tokenId === tokenId);
  if (!token) throw notFound('Token');
  await db().entities.credential.delete({ lookupKey: token.lookupKey }).go({ response: 'none' });
}

export async function createPersonalToken(ctx: DomainContext, input: TokenRestrictionsInput) {
  if (ctx.actor.isAgent) throw invalidField('Authorization', 'Agents receive tokens from their owner, not through this endpoint');
  return createAccessToken(ctx, 'PERSONAL', ctx.actor.userId, input, { denyDelete: false });
}

export async function listPersonalTokens(ctx: DomainContext) {
  return { tokens: (await listAccessTokens(ctx.org.orgId, ctx.actor.userId, 'PERSONAL')).map(presentToken) };
}

export async function revokePersonalToken(ctx: DomainContext, tokenId: string): Promise<void> {
  await revokeAccessToken(ctx.org.orgId, ctx.actor.userId, 'PERSONAL', tokenId);
}
