import { open, originOf, type Routes } from '../http/router.js';
import { subdomainSlugOf } from '../http/organization-slug.js';
import { authorizationServerMetadata, protectedResourceMetadata, requireOAuthOrganization } from './discovery.js';
import { signingKey } from './keys.js';
import { authorizationServerResult, jwksResult, protectedResourceResult } from './http-responses.js';

const ORG_BY_SUBDOMAIN = { 404: ['NOT_FOUND'] } as const;
const SUBDOMAIN_NOTE = "Served on an organization's own origin (`https://<slug>.<base domain>`); any other host answers 404.";

/** Routes of the `oauth` group: discovery (RFC 8414, RFC 9728) and the token-signing keys. */
export const oauthRoutes: Routes = {
  'GET /.well-known/oauth-authorization-server': open({
    summary: 'OAuth 2.0 authorization server metadata (RFC 8414)',
    description: SUBDOMAIN_NOTE,
    result: authorizationServerResult,
    errors: ORG_BY_SUBDOMAIN,
    handler: async (_ctx, { request }) => {
      await requireOAuthOrganization(subdomainSlugOf(request.headers));
      return authorizationServerMetadata(originOf(request));
    },
  }),
  'GET /.well-known/oauth-protected-resource': open({
    summary: 'Protected resource metadata (RFC 9728)',
    description: SUBDOMAIN_NOTE,
    result: protectedResourceResult,
    errors: ORG_BY_SUBDOMAIN,
    handler: async (_ctx, { request }) => {
      await requireOAuthOrganization(subdomainSlugOf(request.headers));
      return protectedResourceMetadata(originOf(request));
    },
  }),
  'GET /.well-known/oauth-protected-resource/api/v1/mcp': open({
    summary: 'Protected resource metadata of the MCP endpoint (RFC 9728, path-aware)',
    description: SUBDOMAIN_NOTE,
    result: protectedResourceResult,
    errors: ORG_BY_SUBDOMAIN,
    handler: async (_ctx, { request }) => {
      await requireOAuthOrganization(subdomainSlugOf(request.headers));
      return protectedResourceMetadata(originOf(request));
    },
  }),
  'GET /.well-known/jwks.json': open({
    summary: 'The public keys that verify OAuth access tokens',
    result: jwksResult,
    handler: async () => ({ keys: [signingKey().publicJwk] }),
  }),
};
