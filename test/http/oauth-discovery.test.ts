import { beforeAll, describe, expect, inject, it } from 'vitest';
import { calculateJwkThumbprint } from 'jose';
import { api, baseUrl, signupOrg, type TestOrg } from '../support/api.js';

/*
 * OAuth discovery (RFC 8414, RFC 9728) on an organization's own origin: the issuer is exactly the
 * origin the document was fetched from, scheme, host and port included, so a client that compares
 * them (as RFC 8414 §3.3 requires) accepts it.
 */
let org: TestOrg;
let origin: string;
const hostOf = (slug: string) => `${slug}.localhost:${new URL(inject('baseUrl')).port}`;

beforeAll(async () => {
  org = await signupOrg();
  origin = `http://${hostOf(org.slug)}`;
});

const fetchFrom = (host: string, path: string, headers: Record<string, string> = {}) => api('GET', path, { headers: { host, ...headers } });

describe('OAuth discovery', () => {
  it("answers the authorization server metadata with the organization's origin as issuer", async () => {
    const response = await fetchFrom(hostOf(org.slug), '/.well-known/oauth-authorization-server');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
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
      token_endpoint_auth_methods_supported: ['client_secret_post', 'none'],
      revocation_endpoint_auth_methods_supported: ['client_secret_post', 'none'],
      scopes_supported: ['read', 'write', 'admin'],
      authorization_response_iss_parameter_supported: true,
      client_id_metadata_document_supported: true,
      service_documentation: `${origin}/docs`,
    });
  });

  it.each(['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/api/v1/mcp'])(
    'answers %s with the MCP endpoint as the resource',
    async (path) => {
      const response = await fetchFrom(hostOf(org.slug), path);
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        resource: `${origin}/api/v1/mcp`,
        authorization_servers: [origin],
        // Clients ask for what the resource lists; `admin` only when named (the server metadata lists it).
        scopes_supported: ['read', 'write'],
        bearer_methods_supported: ['header'],
        resource_name: 'Work-management MCP server and API',
        resource_documentation: `${origin}/docs`,
      });
    },
  );

  it('builds the issuer from the Host the client reached, never from a forwarded host it sends', async () => {
    const response = await fetchFrom(hostOf(org.slug), '/.well-known/oauth-authorization-server', { 'x-forwarded-host': 'evil.example.com' });
    expect(response.body.issuer).toBe(origin);
  });

  it('answers 404 for an unknown organization, by subdomain or by X-Organization, and when none is named', async () => {
    expect((await fetchFrom(hostOf('no-such-org'), '/.well-known/oauth-authorization-server')).status).toBe(404);
    const unknownByHeader = await api('GET', '/.well-known/oauth-authorization-server', { org: 'no-such-org' });
    expect(unknownByHeader.status).toBe(404);
    expect(unknownByHeader.body.error.code).toBe('NOT_FOUND');
    expect((await api('GET', '/.well-known/oauth-authorization-server')).status).toBe(404);
    expect((await fetchFrom(hostOf('no-such-org'), '/.well-known/oauth-protected-resource/api/v1/mcp')).status).toBe(404);
  });

  it('answers for the organization X-Organization names on a shared origin: its issuer is that origin, and the browser endpoint names the organization', async () => {
    const shared = new URL(baseUrl()).origin;
    const server = await api('GET', '/.well-known/oauth-authorization-server', { org: org.slug });
    expect(server.status).toBe(200);
    expect(server.body).toMatchObject({
      issuer: shared,
      authorization_endpoint: `${shared}/api/v1/oauth/authorize?org=${org.slug}`,
      token_endpoint: `${shared}/api/v1/oauth/token`,
      registration_endpoint: `${shared}/api/v1/oauth/register`,
    });
    const resource = await api('GET', '/.well-known/oauth-protected-resource/api/v1/mcp', { org: org.slug });
    expect(resource.body).toMatchObject({ resource: `${shared}/api/v1/mcp`, authorization_servers: [shared] });
    const challenge = await api('POST', '/api/v1/mcp', { org: org.slug, body: { jsonrpc: '2.0', id: 1, method: 'tools/list' } });
    expect(challenge.status).toBe(401);
    expect(challenge.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${shared}/.well-known/oauth-protected-resource/api/v1/mcp"`);
  });

  it('publishes the Ed25519 public key that signs access tokens, identified by its RFC 7638 thumbprint', async () => {
    const response = await fetchFrom(hostOf(org.slug), '/.well-known/jwks.json');
    expect(response.status).toBe(200);
    const [key] = response.body.keys;
    expect(key).toEqual({ kty: 'OKP', crv: 'Ed25519', x: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/), kid: expect.any(String), alg: 'EdDSA', use: 'sig' });
    expect(key.kid).toBe(await calculateJwkThumbprint({ kty: 'OKP', crv: 'Ed25519', x: key.x }));
    expect(JSON.stringify(response.body)).not.toContain('"d"');
  });
});
