import * as z from 'zod';

const url = z.string().meta({ format: 'uri' });
const scopes = z.array(z.enum(['read', 'write', 'admin']));

/** RFC 8414 authorization server metadata. */
export const authorizationServerResult = z
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
  .meta({ id: 'AuthorizationServerMetadata' });

/** RFC 9728 protected resource metadata. */
export const protectedResourceResult = z
  .strictObject({
    resource: url.meta({ description: '`{origin}/api/v1/mcp`: the audience of access tokens, for the MCP endpoint and the REST API alike' }),
    authorization_servers: z.array(url),
    scopes_supported: scopes,
    bearer_methods_supported: z.array(z.literal('header')),
    resource_name: z.string(),
    resource_documentation: url,
  })
  .meta({ id: 'ProtectedResourceMetadata' });

/** The public keys that verify access tokens (RFC 7517). */
export const jwksResult = z
  .strictObject({
    keys: z.array(z.strictObject({ kty: z.literal('OKP'), crv: z.literal('Ed25519'), x: z.string(), kid: z.string(), alg: z.literal('EdDSA'), use: z.literal('sig') })),
  })
  .meta({ id: 'JsonWebKeySet' });
