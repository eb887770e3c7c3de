import * as z from 'zod';

const url = z.string().meta({ format: 'uri' });
const scopes = z.array(z.enum(['read', 'write', 'admin']));

/** RFC 8414 authorization server metadata. */
export const authorizationServerResult = z.lazy(() =>
  z
    .strictObject({
      issuer: url.meta({ description: "The organization's own origin: exactly the URL this document was fetched from" }),
      authorization_endpoint: url,
      token_endpoint: url,
      registration_endpoint: url,
      revocation_endpoint: url,
      jwks_uri: url,
      response_types_supported: z.array(z.literal('code')),
      response_modes_supported: z.array(z.literal('query')),
      grant_types_supported: z.array(z.enum(['authorization_code', 'refresh_token'])),
      code_challenge_methods_supported: z.array(z.literal('S256')),
      token_endpoint_auth_methods_supported: z.array(z.enum(['client_secret_post', 'none'])),
      revocation_endpoint_auth_methods_supported: z.array(z.enum(['client_secret_post', 'none'])),
      scopes_supported: scopes,
      authorization_response_iss_parameter_supported: z.literal(true),
      client_id_metadata_document_supported: z.literal(true),
      service_documentation: url,
    })
    .meta({ id: 'AuthorizationServerMetadata' }),
);

/** RFC 9728 protected resource metadata. */
export const protectedResourceResult = z.lazy(() =>
  z
    .strictObject({
      resource: url.meta({ description: '`{origin}/api/v1/mcp`: the audience of access tokens, for the MCP endpoint and the REST API alike' }),
      authorization_servers: z.array(url),
      scopes_supported: scopes,
      bearer_methods_supported: z.array(z.literal('header')),
      resource_name: z.string(),
      resource_documentation: url,
    })
    .meta({ id: 'ProtectedResourceMetadata' }),
);

/** The public keys that verify access tokens (RFC 7517). */
export const jwksResult = z.lazy(() =>
  z
    .strictObject({
      keys: z.array(z.strictObject({ kty: z.literal('OKP'), crv: z.literal('Ed25519'), x: z.string(), kid: z.string(), alg: z.literal('EdDSA'), use: z.literal('sig') })),
    })
    .meta({ id: 'JsonWebKeySet' }),
);

/** A registered client (RFC 7591 §3.2.1, docs/oauth.md): the secret appears here only. */
export const registeredClientResult = z.lazy(() =>
  z
    .strictObject({
      client_id: z.string(),
      client_secret: z
        .string()
        .optional()
        .meta({ description: 'A confidential client only (registered with a session): shown once; only its SHA-256 is kept. Send it as `client_secret` in token requests (client_secret_post)' }),
      client_id_issued_at: z.number().int(),
      client_secret_expires_at: z.literal(0).optional().meta({ description: 'With `client_secret`: 0, the secret does not expire' }),
      client_name: z.string(),
      redirect_uris: z.array(z.string()),
      client_uri: z.string().optional(),
      logo_uri: z.string().optional(),
      token_endpoint_auth_method: z.enum(['client_secret_post', 'none']).meta({ description: '`client_secret_post`: confidential (registered with a session); `none`: public (open registration), PKCE alone' }),
      grant_types: z.array(z.enum(['authorization_code', 'refresh_token'])),
      response_types: z.array(z.literal('code')),
    })
    .meta({ id: 'OAuthClient' }),
);

/** RFC 6749 §5.1 token response. */
export const tokenResult = z.lazy(() =>
  z
    .strictObject({
      access_token: z.string().meta({ description: 'A JWT (`at+jwt`, EdDSA), valid 900 s; send it as `Authorization: Bearer …`' }),
      token_type: z.literal('Bearer'),
      expires_in: z.number().int(),
      refresh_token: z.string().meta({ description: 'Valid 30 days and once: every refresh returns a new one' }),
      scope: z.string(),
    })
    .meta({ id: 'OAuthTokens' }),
);

/** A client the caller authorized. */
export const grantResult = z.lazy(() =>
  z
    .strictObject({
      id: z.string(),
      clientId: z.string(),
      clientName: z.string(),
      scopes: z.array(z.enum(['read', 'write', 'admin'])),
      createdAt: z.string(),
      lastUsedAt: z.string(),
      expiresAt: z.string().meta({ description: 'When the authorization ends unless the client refreshes its tokens' }),
    })
    .meta({ id: 'OAuthGrant' }),
);

/** An organization that authorized the client. */
export const authorizedOrganizationResult = z.lazy(() =>
  z
    .strictObject({ id: z.string(), slug: z.string(), name: z.string(), scopes: z.array(z.enum(['read', 'write', 'admin'])) })
    .meta({ id: 'AuthorizedOrganization' }),
);

/** The shapes' types: the functions that build these answers are typed against them. */
export type AuthorizationServerMetadata = z.output<typeof authorizationServerResult>;
export type ProtectedResourceMetadata = z.output<typeof protectedResourceResult>;
export type RegisteredClient = z.output<typeof registeredClientResult>;
export type Grant = z.output<typeof grantResult>;
export type AuthorizedOrganization = z.output<typeof authorizedOrganizationResult>;
