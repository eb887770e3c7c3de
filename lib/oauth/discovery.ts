import { notFound } from '../core/errors.js';
import { db } from '../db/service.js';
import { resourceOf } from '../identity/index.js';
import type { AuthorizationServerMetadata, ProtectedResourceMetadata } from './shapes.js';

/** Scopes of OAuth access tokens (docs/oauth.md): read, write (changes), admin (administration). */
export const OAUTH_SCOPES = ['read', 'write', 'admin'] as const;
export type OAuthScope = (typeof OAUTH_SCOPES)[number];

/** The resource (token audience) is defined beside the access-token parsing the authenticator uses. */
export { resourceOf };

/**
 * The organization an OAuth endpoint serves, and the origin it is served on. On an
 * organization's own origin (`https://<slug>.<base domain>`) that is the subdomain's. Where the
 * origin is shared by every organization (`npm start` on `localhost`, where Node cannot resolve
 * `*.localhost`), a client names the organization as on every other route, with
 * `X-Organization`, and the documents answer for it: MCP clients send their configured headers
 * on discovery and token requests too. The one endpoint a browser opens, which cannot send a
 * header, carries the slug as an `org` query parameter in the metadata (RFC 6749 §3.1 lets an
 * endpoint URI have a query). Unknown → 404.
 */
export interface OAuthSite {
  orgId: string;
  slug: string;
  /** The issuer: the origin the client reached. */
  origin: string;
  /** The origin is not the organization's own (named by X-Organization or `org`). */
  sharedOrigin: boolean;
}

export interface SiteSlugs {
  /** The slug of the origin's subdomain, if the origin is an organization's own. */
  subdomain: string | null;
  /** The slug the request names otherwise: `X-Organization`, or the authorization endpoint's `org`. */
  named: string | null;
}

export async function oauthSiteOf(slugs: SiteSlugs, origin: string): Promise<OAuthSite> {
  const subdomain = slugs.subdomain;
  const slug = subdomain ?? slugs.named?.trim().toLowerCase() ?? null;
  if (!slug) throw notFound('Organization');
  const found = (await db().entities.organizationSlug.get({ slug }).go()).data;
  if (!found) throw notFound('Organization');
  return { orgId: found.orgId, slug, origin, sharedOrigin: !subdomain };
}

/** The slug of an organization (the authorization pages on a shared origin name it in their redirects). */
export async function slugOfOrganization(orgId: string): Promise<string | undefined> {
  return (await db().entities.organization.get({ orgId }).go()).data?.slug;
}

/** RFC 8414 metadata. `issuer` is exactly the origin the document was fetched from. */
export function authorizationServerMetadata(site: OAuthSite): AuthorizationServerMetadata {
  const origin = site.origin;
  return {
    issuer: origin,
    authorization_endpoint: `${origin}/api/v1/oauth/authorize${site.sharedOrigin ? `?org=${encodeURIComponent(site.slug)}` : ''}`,
    token_endpoint: `${origin}/api/v1/oauth/token`,
    registration_endpoint: `${origin}/api/v1/oauth/register`,
    revocation_endpoint: `${origin}/api/v1/oauth/revoke`,
    jwks_uri: `${origin}/.well-known/jwks.json`,
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    // `none`: public clients (open registration, Client ID Metadata Documents) prove themselves with PKCE alone; registered confidential clients send their secret.
    token_endpoint_auth_methods_supported: ['client_secret_post', 'none'],
    revocation_endpoint_auth_methods_supported: ['client_secret_post', 'none'],
    scopes_supported: [...OAUTH_SCOPES],
    authorization_response_iss_parameter_supported: true,
    client_id_metadata_document_supported: true,
    service_documentation: `${origin}/docs`,
  };
}

/** RFC 9728 metadata of the organization's MCP endpoint (root and path-aware forms alike). */
export function protectedResourceMetadata(site: OAuthSite): ProtectedResourceMetadata {
  const origin = site.origin;
  return {
    resource: resourceOf(origin),
    authorization_servers: [origin],
    // What a client should ask for: MCP clients ask for every scope listed here (MCP authorization,
    // scope selection), and `admin` is granted only to a client that names it (the server metadata lists it).
    scopes_supported: OAUTH_SCOPES.filter((scope) => scope !== 'admin'),
    bearer_methods_supported: ['header'],
    resource_name: 'Work-management MCP server and API',
    resource_documentation: `${origin}/docs`,
  };
}

/** Where a client finds the protected resource metadata of the organization's resource (RFC 9728 §3.1, path-aware). */
export const resourceMetadataUrl = (origin: string): string => `${origin}/.well-known/oauth-protected-resource/api/v1/mcp`;
