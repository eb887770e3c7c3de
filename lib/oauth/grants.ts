import { notFound } from '../core/errors.js';
import { sha256Hex } from '../core/ids.js';
import type { DomainContext } from '../db/context.js';
import type { OAuthGrantItem } from '../db/entities/index.js';
import { db } from '../db/service.js';
import { liveGrantsOfPerson, revokeGrant } from './tokens.js';
import { isMetadataDocumentClientId } from './clients.js';
import type { OAuthScope } from './discovery.js';
import type { AuthorizedOrganization, Grant } from './shapes.js';

/** The scopes a grant holds: stored space-separated, each checked when the grant was made. */
const scopesOf = (grant: OAuthGrantItem): OAuthScope[] => grant.scope.split(' ') as OAuthScope[];

const isLive = (grant: OAuthGrantItem, now: string, validAfter: string | undefined) =>
  !grant.revokedAt && grant.expiresAt > now && !(validAfter && grant.createdAt < validAfter);

const presentGrant = (grant: OAuthGrantItem): Grant => ({
  id: grant.grantId,
  clientId: grant.clientId,
  clientName: grant.clientName,
  scopes: scopesOf(grant),
  createdAt: grant.createdAt,
  lastUsedAt: grant.lastUsedAt,
  expiresAt: grant.expiresAt,
});

/** The clients the caller authorized in this organization and has not revoked, newest first. */
export async function listGrants(ctx: DomainContext) {
  const now = ctx.clock.now().toISOString();
  const [grants, user] = await Promise.all([
    db().entities.oauthGrant.query.byUser({ orgId: ctx.org.orgId, userId: ctx.actor.userId }).go({ pages: 'all', order: 'desc' }),
    db().entities.user.get({ orgId: ctx.org.orgId, userId: ctx.actor.userId }).go(),
  ]);
  return grants.data.filter((grant) => isLive(grant, now, user.data?.oauthValidAfter)).map(presentGrant);
}

/** Revokes one of the caller's grants: its tokens stop working at once. Another user's grant is unknown (404). */
export async function deleteGrant(ctx: DomainContext, grantId: string): Promise<void> {
  const grant = (await db().entities.oauthGrant.get({ grantId }).go()).data;
  if (!grant || grant.orgId !== ctx.org.orgId || grant.userId !== ctx.actor.userId || grant.revokedAt) throw notFound('Grant');
  await revokeGrant(grantId, ctx.clock.now());
}

/**
 * The organizations the caller belongs to that have authorized `clientId` (docs/oauth.md). Another
 * organization is listed only when the caller is that very client, holding an access token a
 * registered client obtained with its secret: the person is then recognised by e-mail across
 * organizations, as for the switch (lib/oauth/tokens.ts). Any other caller (a session, another
 * client, a metadata-document client, shared by every installation of an app) learns only about
 * its own organization.
 */
export async function organizationsOfClient(ctx: DomainContext, clientId: string) {
  const now = ctx.clock.now();
  const credential = ctx.actor.credential;
  const acrossOrganizations = credential.kind === 'OAUTH' && credential.clientId === clientId && !isMetadataDocumentClientId(clientId);
  const live = await liveGrantsOfPerson(sha256Hex(ctx.actor.email.toLowerCase()), clientId, now, acrossOrganizations ? undefined : ctx.org.orgId);
  const byOrg = new Map<string, (typeof live)[number]>();
  for (const entry of live) if (!byOrg.has(entry.org.orgId)) byOrg.set(entry.org.orgId, entry);
  return [...byOrg.values()].map(({ org, grant }) => ({ id: org.orgId, slug: org.slug, name: org.name, scopes: scopesOf(grant) }) satisfies AuthorizedOrganization);
}
