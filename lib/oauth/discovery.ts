import { notFound } from '../core/errors.js';
import { db } from '../db/service.js';
import { resourceOf } from '../identity/oauth-access-tokens.js';

/** Scopes of OAuth access tokens (spec §5.4.5): read, write (changes), admin (administration). */
export const OAUTH_SCOPES = ['read', 'write', 'admin'] as const;
export type OAuthScope = (typeof OAUTH_SCOPES)[number];

/** The resource (token audience) is defined beside the access-token parsing the authenticator uses. */
export { resourceOf };

/**
 * The organization an OAuth document is for, named by the request's subdomain: an issuer must be
 * one organization's own origin, so the `X-Organization` header, which leaves the origin shared,
 * does not name one here. Unknown → 404.
 */
export async function requireOAuthOrganization(subdomainSlug: string | null): Promise<string> {
  if (!subdomainSlug) throw notFound('Organization');
  const slug = (await db().entities.organizationSlug.get({ slug: subdomainSlug }).go()).data;
  if (!slug) throw notFound('Organization');
  return slug.orgId;
}

/** RFC 8414 metadata. `issuer` is exactly the origin the document was fetched from. */
export function authorizationServerMetadata(origin: string) {
  return {
    issuer: origin,
    authorization_endpoint: `${origin}/api/v1/oauth/authorize`,
    token_endpoint: `${origin}/api/v1/oauth/token`,
    registration_endpoint: `${origin}/api/v1/oauth/register`,
    revocation_endpoint: `${origin}/api/v1/oauth/revoke`,
    jwks_uri: `${origin}/.well-known/jwks.json`,
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    // `none`: clients identified by a Client ID Metadata Document (PKCE alone); registered clients use their secret.
    token_endpoint_auth_methods_supported: ['client_secret_post', 'none'],
    revocation_endpoint_auth_methods_supported: ['client_secret_post', 'none'],
    scopes_supported: [...OAUTH_SCOPES],
    authorization_response_iss_parameter_supported: true,
    client_id_metadata_document_supported: true,
    service_documentation: `${origin}/docs`,
  };
}

/** RFC 9728 metadata of the organization's MCP endpoint (root and path-aware forms alike). */
export function protectedResourceMetadata(origin: string) {
  return {
    resource: resourceOf(origin),
    authorization_servers: [origin],
    scopes_supported: [...OAUTH_SCOPES],
    bearer_methods_supported: ['header'],
    resource_name: 'Work-management MCP server and API',
    resource_documentation: `${origin}/docs`,
  };
}

/** Where a client finds the protected resource metadata of the organization's resource (RFC 9728 §3.1, path-aware). */
export const resourceMetadataUrl = (origin: string): string => `${origin}/.well-known/oauth-protected-resource/api/v1/mcp`;
